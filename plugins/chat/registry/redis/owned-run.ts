import type { Logger } from '../../../../lib/logger'
import type { RedisKeys } from './redis-keys'
import type { RedisLink } from '../../../../lib/redis-link'
import { RELEASE } from './redis-scripts'
import type { QuotaSets, RunBoundaries } from './run-boundaries'
import { INDEX_FIELD, LINES_FIELD } from '../../stream/redis-stream-follower'
import type { Run, RunSink } from '../run'

/** What an owned run sends its log and its release with: the registry's connection and keys. */
export interface RunShipping {
  /** Where a run nobody elsewhere read is released, with the other runs of the node that end close by. */
  boundaries: RunBoundaries
  commands: RedisLink
  keys: RedisKeys
  logger: Logger
  /** How long a log lives without renewal, and how long a finished run's log stays readable. */
  logMs: number
  retainMs: number
  /** Ended runs whose release Redis did not take: sent again by the registry's upkeep. */
  unreleased: Set<OwnedRun>
}

/**
 * A run this node executes, and how much of its log is in Redis. Its lines go to its Redis stream once a reader
 * elsewhere wants it; until then only its end, which frees its thread (or finds it wanted after all, and sends
 * everything).
 */
export class OwnedRun implements RunSink {
  /** The lines sent to the log so far, and those of them Redis has confirmed (every one below). */
  shipped = 0
  acked = 0
  logStarted = false
  /** Whether a reader on another node wants the run (its lines go to Redis from then on). */
  wanted = false

  constructor(
    readonly run: Run,
    readonly runId: string,
    readonly record: string,
    /** The sets the run counts in for the run limits of every node together. */
    private readonly sets: QuotaSets,
    private readonly shipping: RunShipping,
  ) {
    run.sink = this
  }

  published(): void {
    this.ship(false)
  }

  finished(): void {
    this.ship(true)
  }

  /** A reader elsewhere wants this run: its lines so far go to its stream, and every later one. */
  want(): void {
    if (this.wanted) return
    this.wanted = true
    this.ship(this.run.done)
  }

  /**
   * Sends the published lines not sent yet (and, at the end, the release) to Redis, once the run is wanted. A fenced
   * run sends nothing: the node that took its lease over has ended its log and freed its thread, and the run's own
   * error line is for its own readers only.
   */
  ship(end: boolean): void {
    if (this.run.fenced !== undefined) return
    if (!this.wanted) {
      if (end) this.releaseUnread()
      return
    }
    const { run, shipping } = this
    const { commands, keys } = shipping
    // The end goes with every line Redis has not confirmed yet: a line sent before it may still fail.
    const from = end ? this.acked : this.shipped
    const to = run.published
    let text = ''
    for (let index = from; index < to; index++) text += `${run.lines[index].json}\n`
    this.shipped = to
    const log = keys.log(this.runId)
    // Lines Redis did not take go again with the next ones (with their index, so a reader skips what it has): a
    // reader elsewhere never misses lines in the middle of an answer.
    const failed = (error: unknown) => {
      this.shipped = Math.min(this.shipped, from)
      // The end has no next one: it goes again with the next upkeep, until Redis takes it.
      if (end) shipping.unreleased.add(this)
      shipping.logger.warn('sending run lines to Redis failed; they go again with the next ones', { error })
    }
    if (end) {
      commands
        .send('EVAL', [
          RELEASE,
          '4',
          keys.thread(run.key.chatId),
          keys.message(run.key),
          keys.runs,
          log,
          this.record,
          String(shipping.retainMs),
          text,
          keys.quota,
          String(from),
        ])
        .catch(failed)
      return
    }
    if (text === '') return
    commands.send('XADD', [log, '*', INDEX_FIELD, String(from), LINES_FIELD, text]).then(() => {
      // Confirmed in order: lines below `acked` are all in Redis.
      if (from <= this.acked && to > this.acked) this.acked = to
    }, failed)
    if (!this.logStarted) {
      this.logStarted = true
      // A log always expires, even if every node died before any cleaned it up.
      commands.send('PEXPIRE', [log, String(shipping.logMs)]).catch(failed)
    }
  }

  /** The end of a run no reader elsewhere wanted so far. */
  private releaseUnread(): void {
    const { boundaries, keys } = this.shipping
    boundaries
      .release({
        thread: keys.thread(this.run.key.chatId),
        message: keys.message(this.run.key),
        wanted: keys.wanted(this.runId),
        record: this.record,
        runId: this.runId,
        sets: this.sets,
      })
      .then(
        (released) => {
          if (released !== 1) this.want()
        },
        (error: unknown) => {
          this.shipping.unreleased.add(this)
          this.shipping.logger.warn('releasing a run in Redis failed; it goes again', { error })
        },
      )
  }
}
