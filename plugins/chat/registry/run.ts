import type { EncodedLine } from '../stream/lines'

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
