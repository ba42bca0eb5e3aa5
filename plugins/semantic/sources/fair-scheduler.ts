import { AppError } from '../../../lib/errors'

/** 429 when an account already has as many queries waiting on a source as it may. */
export class TooManyQueriesError extends AppError {
  constructor(retryAfterSeconds: number) {
    super(
      429,
      'TOO_MANY_QUERIES',
      'Too many of your queries are waiting for this data source; try again when some have finished',
    )
    this.retryAfterSeconds = retryAfterSeconds
  }
}

export interface FairSchedulerOptions {
  /** Queries running at once on the source (its connections, or the SQLite query processes). */
  capacity: number
  /** Queries one account may have running at once; the default leaves one place free for the others. */
  perAccount?: number
  /** Queries one account may have waiting; past it, 429 `TOO_MANY_QUERIES`. */
  queuePerAccount: number
}

interface Job {
  start(): void
}

/**
 * Shares a source among accounts: each account may run at most `perAccount` queries at once, waits in a queue of its
 * own, and the queues are served in turn (round robin), so an account sending many heavy queries delays its own next
 * ones, not another account's one. First come, first served let one account's burst hold every connection and put a
 * bystander's trivial query behind all of it.
 */
export class FairScheduler {
  private readonly capacity: number
  private readonly perAccount: number
  private running = 0
  private readonly runningBy = new Map<string, number>()
  private readonly queues = new Map<string, Job[]>()
  /** When each account last had a query started (a counter): the one served longest ago goes next. */
  private readonly lastServed = new Map<string, number>()
  private tick = 0

  constructor(private readonly options: FairSchedulerOptions) {
    this.capacity = Math.max(1, options.capacity)
    this.perAccount = Math.max(1, Math.min(this.capacity, options.perAccount ?? Math.max(1, this.capacity - 1)))
  }

  /** Queries waiting for a place, over every account. */
  get waiting(): number {
    let count = 0
    for (const queue of this.queues.values()) count += queue.length
    return count
  }

  /** Runs `work` for `account` once it is the account's turn and a place is free. */
  run<T>(account: string, work: () => Promise<T>): Promise<T> {
    const queue = this.queues.get(account) ?? []
    if (queue.length >= this.options.queuePerAccount) return Promise.reject(new TooManyQueriesError(1))
    return new Promise<T>((resolve, reject) => {
      queue.push({
        start: () => {
          this.running++
          this.runningBy.set(account, (this.runningBy.get(account) ?? 0) + 1)
          Promise.resolve()
            .then(work)
            .then(resolve, reject)
            .finally(() => {
              this.running--
              const left = (this.runningBy.get(account) ?? 1) - 1
              if (left > 0) this.runningBy.set(account, left)
              else {
                this.runningBy.delete(account)
                // Nothing left of the account here: it is forgotten, so the map holds only accounts at work.
                if (!this.queues.has(account)) this.lastServed.delete(account)
              }
              this.dispatch()
            })
        },
      })
      this.queues.set(account, queue)
      this.dispatch()
    })
  }

  /**
   * Starts waiting queries while places are free: each time, of the accounts below their cap, the one whose last
   * query started longest ago (or never): accounts take turns, and one that just arrived goes before one that was just
   * served.
   */
  private dispatch(): void {
    while (this.running < this.capacity && this.queues.size > 0) {
      let picked: string | undefined
      let pickedServed = Number.POSITIVE_INFINITY
      for (const account of this.queues.keys()) {
        if ((this.runningBy.get(account) ?? 0) >= this.perAccount) continue
        const served = this.lastServed.get(account) ?? -1
        if (served < pickedServed) {
          picked = account
          pickedServed = served
        }
      }
      if (picked === undefined) return
      const queue = this.queues.get(picked) as Job[]
      const job = queue.shift() as Job
      if (queue.length === 0) this.queues.delete(picked)
      this.lastServed.set(picked, this.tick++)
      job.start()
    }
  }
}
