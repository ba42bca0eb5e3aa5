import type { Logger } from '../../../lib/logger'
import { encodedLine } from './lines'
import { Run, type RunKey } from '../registry/run'
import { COMMAND_DEADLINE_MS, type RedisLink } from '../../../lib/redis-link'

/**
 * Stream entry fields: `l` holds NDJSON lines (each with its `\n`), `i` the index in the run's log of the first of
 * them, `e` marks the end of the run. Lines a node sends again (after Redis lost them, or did not answer) carry the
 * index they had, and a reader skips those it has.
 */
export const LINES_FIELD = 'l'
export const INDEX_FIELD = 'i'
export const END_FIELD = 'e'

/**
 * A run executing on another node, as this node's readers see it: the same log as a local run, filled from the
 * run's Redis stream. It follows the stream only while it has readers, and replays from the stream's start, so a
 * joiner gets exactly the lines the run's own readers got, in the same order.
 */
export class FollowedRun extends Run {
  /** The id of the last stream entry read: following again resumes after it. */
  position = '0-0'

  constructor(
    key: RunKey,
    readonly runId: string,
    readonly stream: string,
    private readonly follower: StreamFollower,
  ) {
    super(key)
  }

  override listen(listener: () => void): () => void {
    if (this.done) return () => {}
    super.listen(listener)
    this.follower.follow(this)
    return () => this.unlisten(listener)
  }

  override unlisten(listener: () => void): void {
    super.unlisten(listener)
    if (this.readerCount === 0 && !this.done) this.follower.unfollow(this)
  }

  /** Adds one stream entry's lines to the log (and ends it at the end entry). */
  receive(fields: readonly string[]): void {
    if (this.done) return
    let end = false
    let at: number | undefined
    for (let index = 0; index + 1 < fields.length; index += 2) {
      if (fields[index] === END_FIELD) end = true
      else if (fields[index] === INDEX_FIELD) at = Number(fields[index + 1])
      // Lines past a gap are left for the entry that fills it: the node sends again from the first line Redis lost
      // (its own failed send, or Redis's lost data), and these come again after them.
      else if (fields[index] === LINES_FIELD && at !== undefined && at > this.lines.length) continue
      else if (fields[index] === LINES_FIELD) {
        const text = fields[index + 1]
        let from = 0
        for (let newline = text.indexOf('\n'); newline !== -1; newline = text.indexOf('\n', from)) {
          // A line this log already has (sent again) is skipped; a line without an index is new.
          if (at === undefined || at++ >= this.lines.length) this.stage(encodedLine(text.slice(from, newline)))
          from = newline + 1
        }
      }
    }
    if (end) this.finish()
    else this.publish(this.lines.length)
  }
}

type StreamEntries = Array<[string, string[]]>

/**
 * Follows every stream this node's readers need over one blocking connection: one `XREAD BLOCK` names all of them
 * and returns as soon as any has new entries (no polling). A stream added while the read is blocked interrupts it
 * (`CLIENT UNBLOCK`), so the next read includes it at once.
 */
export class StreamFollower {
  private readonly runs = new Map<string, FollowedRun>()
  /** Runs handed out by `runOf`, followed or not yet; an entry goes once nothing holds its run any more. */
  private readonly handedOut = new Map<string, WeakRef<FollowedRun>>()
  private readonly collected = new FinalizationRegistry<string>((stream) => {
    if (this.handedOut.get(stream)?.deref() === undefined) this.handedOut.delete(stream)
  })
  private clientId: string | undefined
  /** The number of the read in flight (0: none), so an interruption stops once that read has returned. */
  private reading = 0
  private reads = 0
  private wake: (() => void) | undefined
  private looping = false
  private closed = false

  constructor(
    private readonly reader: RedisLink,
    private readonly commands: RedisLink,
    private readonly logger: Logger,
    /** Longest block of one read: a safety net only, new entries end a read at once. */
    private readonly blockMs = 10_000,
  ) {}

  /** How many streams are followed. */
  get size(): number {
    return this.runs.size
  }

  /**
   * The run of `stream` as this node's readers see it: the one already handed out while anything still holds it, or
   * a new one. One per stream: a request finds the run, then awaits other work before it reads, so several may hold
   * it before the first reads; a second object would take the first's place in the read and leave its readers
   * waiting for lines that never come.
   */
  runOf(key: RunKey, runId: string, stream: string): FollowedRun {
    const known = this.runs.get(stream) ?? this.handedOut.get(stream)?.deref()
    if (known) return known
    const run = new FollowedRun(key, runId, stream, this)
    this.handedOut.set(stream, new WeakRef(run))
    this.collected.register(run, stream)
    return run
  }

  follow(run: FollowedRun): void {
    if (this.closed || this.runs.get(run.stream) === run) return
    this.runs.set(run.stream, run)
    if (!this.looping) void this.loop()
    else this.interrupt()
  }

  unfollow(run: FollowedRun): void {
    if (this.runs.get(run.stream) !== run) return
    this.runs.delete(run.stream)
  }

  close(): void {
    this.closed = true
    this.runs.clear()
    this.wake?.()
  }

  private async loop(): Promise<void> {
    this.looping = true
    try {
      while (!this.closed) {
        if (this.runs.size === 0) {
          await new Promise<void>((resolve) => {
            this.wake = resolve
          })
          this.wake = undefined
          continue
        }
        let reply: unknown
        try {
          this.clientId ??= String(await this.reader.send('CLIENT', ['ID']))
          if (this.runs.size === 0) continue
          // From here to the send nothing awaits: a stream followed later finds the read in flight and interrupts it.
          this.reading = ++this.reads
          const runs = [...this.runs.values()]
          // Blocking is the point of this read, so its deadline is past the block: only a Redis that stopped
          // answering misses it, and the read then starts again on a new connection.
          reply = await this.reader.send(
            'XREAD',
            [
              'BLOCK',
              String(this.blockMs),
              'COUNT',
              '1024',
              'STREAMS',
              ...runs.map((run) => run.stream),
              ...runs.map((run) => run.position),
            ],
            this.blockMs + COMMAND_DEADLINE_MS,
          )
        } catch (error) {
          if (this.closed) return
          // A new connection has a new id; the loop resumes once Redis answers again.
          this.clientId = undefined
          this.logger.warn('reading run streams from Redis failed; retrying', { error })
          await Bun.sleep(500)
          continue
        } finally {
          this.reading = 0
        }
        if (reply) this.deliver(reply)
      }
    } finally {
      this.looping = false
    }
  }

  private deliver(reply: unknown): void {
    // RESP3 answers a map of stream to entries; RESP2 a list of [stream, entries] pairs.
    const pairs = Array.isArray(reply)
      ? (reply as Array<[string, StreamEntries]>)
      : Object.entries(reply as Record<string, StreamEntries>)
    for (const [stream, entries] of pairs) {
      const run = this.runs.get(stream)
      if (!run) continue
      for (const [id, fields] of entries) {
        run.position = id
        run.receive(fields)
      }
      if (run.done) this.unfollow(run)
    }
  }

  /** Ends the blocked read so the next one names the new stream. */
  private interrupt(): void {
    if (this.wake) return this.wake()
    const read = this.reading
    const clientId = this.clientId
    if (read === 0 || clientId === undefined) return
    void (async () => {
      // The read may not have reached Redis yet (then there is nothing to unblock): try again until it is blocked
      // or has returned by itself.
      for (let attempt = 0; attempt < 200 && this.reading === read && !this.closed; attempt++) {
        const unblocked = await this.commands.send('CLIENT', ['UNBLOCK', clientId]).catch(() => 0)
        if (unblocked === 1) return
        await Bun.sleep(attempt < 10 ? 0 : 5)
      }
    })()
  }
}
