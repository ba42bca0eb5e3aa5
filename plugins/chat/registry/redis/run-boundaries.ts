import type { RedisLink } from '../../../../lib/redis-link'
import { CLAIM, RELEASE_UNREAD, TAKE_OVER } from './redis-scripts'

/** A run's claim of its thread and its message, as `CLAIM` makes it. */
export interface Claim {
  thread: string
  message: string
  record: string
  runId: string
  /** Whether the message id is the client's (taken only if no run has it) or the server's own (new). */
  clientMessageId: boolean
  /** The run's places in the limits of every node together: its user's set and its API key's, '' for none. */
  sets: QuotaSets
  mostPerUser: number
  mostPerKey: number
}

/** The sorted sets a run counts in for the run limits, '' for one it does not count in. */
export interface QuotaSets {
  user: string
  key: string
}

/** The end of a run no reader elsewhere wanted, as `RELEASE_UNREAD` makes it. */
export interface UnreadRelease {
  thread: string
  message: string
  wanted: string
  record: string
  runId: string
  sets: QuotaSets
}

interface Queued<T> {
  item: T
  resolve(outcome: number): void
  reject(error: unknown): void
}

export interface RunBoundariesOptions {
  commands: RedisLink
  /** The sorted set of leases. */
  runs: string
  leaseMs: number
  holdMs: number
}

/** Most runs in one script call: a larger batch is sent as several calls (in one write). */
const MOST_PER_CALL = 64

/**
 * The claims and the releases of one node's runs, gathered: those made in one turn of the event loop go to Redis as
 * one script call each (the releases first, then the claims, in one write), so what a call costs Redis whatever its
 * runs (reading it, starting the script, the clock) is shared. Each caller gets its own run's outcome; a call that
 * fails fails every caller of it with its error. Nothing waits longer than that turn: gathering for a millisecond or
 * two more, while several runs are live, cut the round trips to Redis by a third to a half but not its CPU, and cost
 * the nodes CPU and the turns time (see docs/several-nodes.md).
 */
export class RunBoundaries {
  private claims: Array<Queued<Claim>> = []
  private releases: Array<Queued<UnreadRelease>> = []
  private scheduled = false

  constructor(private readonly options: RunBoundariesOptions) {}

  /** 1 claimed, 0 taken, -1 or -2 over the user's or the key's limit (see `CLAIM`). */
  claim(claim: Claim): Promise<number> {
    return new Promise((resolve, reject) => {
      this.claims.push({ item: claim, resolve, reject })
      this.schedule()
    })
  }

  /**
   * Takes the thread from `holder` ('' for none), a run that has ended in storage, or claims it if free (see
   * `TAKE_OVER`): rare, so a call of its own, sent at once. Outcomes as `claim`'s.
   */
  takeOver(claim: Claim, quotaPrefix: string, holder: string): Promise<unknown> {
    const { commands, runs, leaseMs, holdMs } = this.options
    return commands.send('EVAL', [
      TAKE_OVER,
      '3',
      claim.thread,
      claim.message,
      runs,
      claim.record,
      String(leaseMs),
      String(holdMs),
      claim.clientMessageId ? '1' : '0',
      quotaPrefix,
      String(claim.mostPerUser),
      String(claim.mostPerKey),
      holder,
    ])
  }

  /** 1 released, 0 wanted by a reader elsewhere after all (see `RELEASE_UNREAD`). */
  release(release: UnreadRelease): Promise<number> {
    return new Promise((resolve, reject) => {
      this.releases.push({ item: release, resolve, reject })
      this.schedule()
    })
  }

  private schedule(): void {
    if (this.claims.length + this.releases.length >= MOST_PER_CALL) return this.flush()
    if (this.scheduled) return
    this.scheduled = true
    setImmediate(() => this.flush())
  }

  /**
   * Sends what is queued now (the node closes: what it ended last goes before it does). A flush that finds nothing
   * (a full batch went already) sends nothing.
   */
  flush(): void {
    this.scheduled = false
    const { releases, claims } = this
    this.releases = []
    this.claims = []
    for (let from = 0; from < releases.length; from += MOST_PER_CALL)
      this.send(releases.slice(from, from + MOST_PER_CALL), RELEASE_UNREAD, (keys, args) => {
        args.push(String(this.options.holdMs))
        return (release) => {
          keys.push(release.thread, release.message, release.wanted)
          args.push(release.record, release.runId, release.sets.user, release.sets.key)
        }
      })
    for (let from = 0; from < claims.length; from += MOST_PER_CALL)
      this.send(claims.slice(from, from + MOST_PER_CALL), CLAIM, (keys, args) => {
        args.push(String(this.options.leaseMs), String(this.options.holdMs))
        return (claim) => {
          keys.push(claim.thread, claim.message)
          args.push(
            claim.record,
            claim.runId,
            claim.clientMessageId ? '1' : '0',
            claim.sets.user,
            String(claim.mostPerUser),
            claim.sets.key,
            String(claim.mostPerKey),
          )
        }
      })
  }

  /** One script call for `batch`: `start` adds the call's own arguments and returns how to add each run's. */
  private send<T>(
    batch: Array<Queued<T>>,
    script: string,
    start: (keys: string[], args: string[]) => (item: T) => void,
  ): void {
    if (batch.length === 0) return
    const keys = [this.options.runs]
    const args: string[] = []
    const add = start(keys, args)
    for (const { item } of batch) add(item)
    const failed = (error: unknown) => {
      for (const queued of batch) queued.reject(error)
    }
    let answer: Promise<unknown>
    try {
      answer = this.options.commands.send('EVAL', [script, String(keys.length), ...keys, ...args])
    } catch (error) {
      return failed(error)
    }
    answer.then((outcomes) => {
      if (!Array.isArray(outcomes) || outcomes.length !== batch.length)
        return failed(new Error(`Redis answered ${batch.length} runs' script call with ${JSON.stringify(outcomes)}`))
      batch.forEach((queued, index) => queued.resolve(Number(outcomes[index])))
    }, failed)
  }
}
