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
    this.publish(this.lines.length)
  }

  /** Adds a line that readers do not get until `publish` covers it. */
  stage(line: EncodedLine): void {
    if (this.finished) throw new Error('append after the run finished')
    this.lines.push(line)
  }

  /** Lets readers send the first `count` lines. */
  publish(count: number): void {
    if (this.finished || count <= this.sendable) return
    this.sendable = Math.min(count, this.lines.length)
    for (const listener of this.listeners) listener()
  }

  /** Ends the log, every line of it published: readers drain what is left and stop. */
  finish(): void {
    if (this.finished) return
    this.sendable = this.lines.length
    this.finished = true
    for (const listener of this.listeners) listener()
    this.listeners.clear()
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

/**
 * The active runs of the process, keyed by `chatId` (one active run per thread) and by user and `messageId` (so a
 * client that lost the `chatId` can still rejoin). A run leaves the registry as soon as it finishes; a request for
 * a finished `messageId` is answered from the database.
 */
export class RunRegistry {
  private readonly byChat = new Map<string, Run>()
  private readonly byUserMessage = new Map<string, Run>()
  private readonly idle = new Set<() => void>()

  get size(): number {
    return this.byChat.size
  }

  /** Total readers attached to active runs. */
  get readerCount(): number {
    let total = 0
    for (const run of this.byChat.values()) total += run.readerCount
    return total
  }

  forChat(chatId: string): Run | undefined {
    return this.byChat.get(chatId)
  }

  forMessage(userId: number, agentId: number, messageId: string): Run | undefined {
    return this.byUserMessage.get(`${userId}:${agentId}:${messageId}`)
  }

  /** Registers a new run; the caller has checked that the thread has none. */
  start(key: RunKey): Run {
    if (this.byChat.has(key.chatId)) throw new Error(`thread ${key.chatId} already has an active run`)
    const run = new Run(key)
    this.byChat.set(key.chatId, run)
    this.byUserMessage.set(`${key.userId}:${key.agentId}:${key.messageId}`, run)
    return run
  }

  /** Finishes the run's log and removes it. */
  end(run: Run): void {
    run.finish()
    if (this.byChat.get(run.key.chatId) === run) this.byChat.delete(run.key.chatId)
    const userKey = `${run.key.userId}:${run.key.agentId}:${run.key.messageId}`
    if (this.byUserMessage.get(userKey) === run) this.byUserMessage.delete(userKey)
    if (this.byChat.size === 0) for (const resolve of this.idle) resolve()
  }

  abortAll(reason: string): void {
    for (const run of this.byChat.values()) run.abort(reason)
  }

  /** Resolves once no run is active (or after `timeoutMs`). */
  whenIdle(timeoutMs: number): Promise<void> {
    if (this.byChat.size === 0) return Promise.resolve()
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer)
        this.idle.delete(done)
        resolve()
      }
      const timer = setTimeout(done, timeoutMs)
      this.idle.add(done)
    })
  }
}
