import type { EncodedLine } from './lines'

export interface RunKey {
  chatId: string
  messageId: string
  /** The user the thread belongs to. */
  userId: number
  /** The agent the thread belongs to: a rejoin through another agent (maybe another deployment) is not this run's. */
  agentId: number
  threadId: string
}

type Listener = () => void

/** The error line of a run whose node lost its hold on the thread (another node took the thread over). */
export const LEASE_LOST_MESSAGE = 'The server lost its hold on this answer; it was interrupted'

/** Told when a run publishes lines or finishes (the shared registry copies the log out to other nodes). */
export interface RunSink {
  published(run: Run): void
  finished(run: Run): void
}

/**
 * One active run: an append-only log of encoded lines that every reader replays from its start and then follows
 * live. Readers are woken by `listen` callbacks (no polling); the run never waits for them. Lines may be staged
 * first and published later: readers send only the first `published` lines (a line that shows stored data goes out
 * once that data is committed).
 */
export class Run {
  readonly lines: EncodedLine[] = []
  private sendable = 0
  readonly abortController = new AbortController()
  readonly startedAt = performance.now()
  private listeners = new Set<Listener>()
  private finished = false
  /** Why the run was aborted, when it was. */
  abortReason: string | undefined
  /**
   * Why the run may no longer write (see `fence`): set once its node lost its lease on the thread, or storage
   * refused one of its writes because another node took the thread over.
   */
  fenced: string | undefined
  /** Set by a registry that shares the log beyond this process. */
  sink: RunSink | undefined
  /** What the agent has sent so far, lines or not: the run deadlines take a change for a sign of life. */
  activity = 0
  /** Tool calls started and not answered yet: while any runs, the model is not silent, it waits. */
  toolsRunning = 0

  constructor(readonly key: RunKey) {}

  get done(): boolean {
    return this.finished
  }

  get signal(): AbortSignal {
    return this.abortController.signal
  }

  /** How many lines of the log readers may send. */
  get published(): number {
    return this.sendable
  }

  get readerCount(): number {
    return this.listeners.size
  }

  /** Adds a line and publishes it with every line staged before it. */
  append(line: EncodedLine): void {
    this.stage(line)
    this.release(this.lines.length)
  }

  /** Adds a line that readers do not get until `publish` covers it. */
  stage(line: EncodedLine): void {
    if (this.finished) throw new Error('append after the run finished')
    this.lines.push(line)
  }

  /** Lets readers send the first `count` lines (none more once the run is fenced: their writes were refused). */
  publish(count: number): void {
    if (this.fenced === undefined) this.release(count)
  }

  private release(count: number): void {
    if (this.finished || count <= this.sendable) return
    this.sendable = Math.min(count, this.lines.length)
    this.sink?.published(this)
    for (const listener of this.listeners) listener()
  }

  /** Drops the staged lines readers have not been given (what they show could not be stored). */
  discardUnpublished(): void {
    if (this.finished) return
    this.lines.length = this.sendable
  }

  /** Ends the log, every line of it published: readers drain what is left and stop. */
  finish(): void {
    if (this.finished) return
    this.sendable = this.lines.length
    this.finished = true
    this.sink?.finished(this)
    for (const listener of this.listeners) listener()
    this.listeners.clear()
  }

  /**
   * Stops the run's writes for good: another node holds the thread now, and the thread is as that node leaves it.
   * The lines staged and not sent are dropped (what they show was never stored, or was refused), none staged later
   * is published except by `append` (the run's error line, for its own readers), and the run is aborted.
   */
  fence(reason: string): void {
    if (this.fenced !== undefined || this.finished) return
    this.fenced = reason
    this.discardUnpublished()
    this.abort(reason)
  }

  abort(reason: string): void {
    if (this.abortController.signal.aborted) return
    this.abortReason = reason
    this.abortController.abort(new Error(reason))
  }

  /** Calls `listener` after each appended line and once at the end; returns the unsubscribe function. */
  listen(listener: Listener): () => void {
    if (this.finished) return () => {}
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /**
   * Calls `wake` once the current callback is done, with every other reader woken meanwhile: one scheduled callback
   * per run instead of one per reader, which counts when a thousand readers follow one run. Not a whole turn of the
   * event loop later: the lines of a burst are published together once their commit is done, and waiting a turn
   * more would only add that turn to every line's latency.
   */
  wakeLater(wake: () => void): void {
    this.toWake.push(wake)
    if (this.toWake.length === 1) queueMicrotask(this.wakeAll)
  }

  private toWake: Array<() => void> = []
  private readonly wakeAll = () => {
    const waking = this.toWake
    this.toWake = []
    for (const wake of waking) wake()
  }

  /** Stops calling `listener` (the same function that was passed to `listen`). */
  unlisten(listener: Listener): void {
    this.listeners.delete(listener)
  }
}

/** The key of a run, and the id of its row in storage. */
export interface RunStart extends RunKey {
  runId: string
  /**
   * The client chose the `messageId` (its idempotency key): the run may start only if that message is not already
   * running in another thread. An id the server made up (`<now>-message`) is unique in its process only.
   */
  clientMessageId?: boolean
  /**
   * The run limits to hold on every node together (a registry shared between nodes checks them as it claims the
   * thread; one process's admission has already checked them). `keyId` is the API key that asked for the run.
   */
  limits?: { keyId?: number; maxRunsPerUser: number; maxRunsPerKey: number }
}

/** From a shared registry's `start`: the user or the API key already has its most runs, on all nodes together. */
export class RunLimitReached extends Error {
  constructor(readonly limit: 'user' | 'key') {
    super(`run limit per ${limit} reached`)
  }
}

/**
 * The active runs, keyed by `chatId` (one active run per thread) and by user, agent and `messageId` (so a client
 * that lost the `chatId` can still rejoin). A run leaves the registry as soon as it finishes; a request for a
 * finished `messageId` is answered from the database. Two implementations: this process's memory, or Redis, where
 * the runs of every node are visible to every node (their logs are followed, aborts are sent to their owner).
 */
export interface RunRegistry {
  /** Whether runs are shared with other nodes. */
  readonly shared: boolean
  /** Runs executing in this process. */
  readonly size: number
  /** Readers attached to runs in this process (those of runs followed from other nodes included). */
  readonly readerCount: number
  /** The thread's active run, here or on another node. */
  forChat(chatId: string): Promise<Run | undefined>
  /** The user's active run with this agent and `messageId`, here or on another node. */
  forMessage(userId: number, agentId: number, messageId: string): Promise<Run | undefined>
  /**
   * Registers a new run in this process; undefined when the thread already has one, or when the client's `messageId`
   * of this user and agent is already running in another thread (here or on another node).
   */
  start(key: RunStart): Promise<Run | undefined>
  /** Finishes the run's log and removes it. */
  end(run: Run): void
  /** Stops the thread's active run wherever it executes; whether there was one. */
  abort(chatId: string, reason: string): Promise<boolean>
  /** Aborts every run executing in this process. */
  abortAll(reason: string): void
  /** Resolves once no run executes in this process (or after `timeoutMs`). */
  whenIdle(timeoutMs: number): Promise<void>
  /** Sends `event` to every node, this one included. */
  broadcast(event: ClusterEvent): Promise<void>
  /** Calls `listener` with every broadcast event; returns the unsubscribe function. */
  onBroadcast(listener: (event: ClusterEvent) => void): () => void
  /** Throws when the backend does not answer (readiness). */
  check(): Promise<void>
  /** Stops background work and closes connections (after `whenIdle`). */
  close(): Promise<void>
}

/**
 * What nodes tell each other besides the runs' lines. A revocation names only the account: each node checks the
 * embed sockets of that account again, and the revoked session's sockets close (the check reads the session). A
 * node that was cut off from the others (and may have missed revocations) tells itself to check every embed session
 * it serves (`embed-sessions-recheck`, never sent to other nodes).
 */
export type ClusterEvent =
  | { type: 'embed-session-revoked'; accountId: number }
  | { type: 'embed-sessions-recheck' }
  /** A deployment's AI engineer settings (its chat thread policies) changed. */
  | { type: 'policies-changed'; deploymentId: number }
  /** A stored user's row, groups or attribute values changed (see `plugins/auth/user-changes.ts`). */
  | { type: 'user-changed'; accountId: number; userId: number }

const messageKey = (userId: number, agentId: number, messageId: string) => `${userId}:${agentId}:${messageId}`

/** The registry of one process: runs live in its memory only. */
export class MemoryRunRegistry implements RunRegistry {
  readonly shared = false
  private readonly byChat = new Map<string, Run>()
  private readonly byUserMessage = new Map<string, Run>()
  private readonly idle = new Set<() => void>()
  private readonly listeners = new Set<(event: ClusterEvent) => void>()

  get size(): number {
    return this.byChat.size
  }

  get readerCount(): number {
    let total = 0
    for (const run of this.byChat.values()) total += run.readerCount
    return total
  }

  async forChat(chatId: string): Promise<Run | undefined> {
    return this.byChat.get(chatId)
  }

  async forMessage(userId: number, agentId: number, messageId: string): Promise<Run | undefined> {
    return this.byUserMessage.get(messageKey(userId, agentId, messageId))
  }

  // One process: the admission has checked the run limits already.
  async start({ clientMessageId, limits: _limits, ...key }: RunStart): Promise<Run | undefined> {
    const userKey = messageKey(key.userId, key.agentId, key.messageId)
    // A busy thread, or the client's message already running (in a thread of its own): the caller joins or refuses.
    if (this.byChat.has(key.chatId) || (clientMessageId && this.byUserMessage.has(userKey))) return undefined
    const run = new Run(key)
    this.byChat.set(key.chatId, run)
    this.byUserMessage.set(userKey, run)
    return run
  }

  end(run: Run): void {
    run.finish()
    if (this.byChat.get(run.key.chatId) === run) this.byChat.delete(run.key.chatId)
    const userKey = messageKey(run.key.userId, run.key.agentId, run.key.messageId)
    if (this.byUserMessage.get(userKey) === run) this.byUserMessage.delete(userKey)
    if (this.byChat.size === 0) for (const resolve of this.idle) resolve()
  }

  async abort(chatId: string, reason: string): Promise<boolean> {
    const run = this.byChat.get(chatId)
    run?.abort(reason)
    return run !== undefined
  }

  abortAll(reason: string): void {
    for (const run of this.byChat.values()) run.abort(reason)
  }

  whenIdle(timeoutMs: number): Promise<void> {
    return whenIdle(this.idle, () => this.byChat.size, timeoutMs)
  }

  async broadcast(event: ClusterEvent): Promise<void> {
    for (const listener of this.listeners) listener(event)
  }

  onBroadcast(listener: (event: ClusterEvent) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  async check(): Promise<void> {}

  async close(): Promise<void> {}
}

/** Resolves once `size()` is 0 (every registry calls the functions in `waiting` when it becomes so) or after `timeoutMs`. */
export function whenIdle(waiting: Set<() => void>, size: () => number, timeoutMs: number): Promise<void> {
  if (size() === 0) return Promise.resolve()
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer)
      waiting.delete(done)
      resolve()
    }
    const timer = setTimeout(done, timeoutMs)
    waiting.add(done)
  })
}
