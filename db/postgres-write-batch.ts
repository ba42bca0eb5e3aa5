import type { SQL } from 'bun'

/** A transaction's (or savepoint's) query function: the tagged template the work writes its statements with. */
export type PostgresTransaction = SQL

/**
 * Group commit on Postgres, the counterpart of `createWriteBatch` on SQLite: writes queued during one turn of the
 * event loop are committed together in one transaction (each in its own savepoint, so one failing write rolls back
 * alone and fails only its own caller), and one batch commits at a time: what is queued while a batch commits goes
 * into the next one. Concurrent turns thus cost one transaction's round trips instead of one each, and the writes
 * of one thing (a message's saves, a run's end after its start) commit in the order they were queued. Callers get
 * a promise that settles after the commit: nothing is reported as stored before it is.
 */
export function createPostgresWriteBatch(client: SQL) {
  interface Item {
    work: ((tx: PostgresTransaction) => Promise<unknown>) | undefined
    resolve(value: unknown): void
    reject(error: unknown): void
  }
  let queue: Item[] = []
  let scheduled = false
  let committing = false

  async function commit(items: Item[]): Promise<void> {
    // Only flush markers: nothing to write.
    if (items.every((item) => item.work === undefined)) return items.forEach((item) => item.resolve(undefined))
    type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown }
    let outcomes: Outcome[]
    try {
      outcomes = await client.begin(async (tx) => {
        const results: Outcome[] = []
        for (const item of items) {
          const { work } = item
          if (!work) {
            results.push({ ok: true, value: undefined })
            continue
          }
          try {
            results.push({ ok: true, value: await tx.savepoint((savepoint) => work(savepoint)) })
          } catch (error) {
            results.push({ ok: false, error })
          }
        }
        return results
      })
    } catch (error) {
      for (const item of items) item.reject(error)
      return
    }
    items.forEach((item, index) => {
      const outcome = outcomes[index]
      if (outcome.ok) item.resolve(outcome.value)
      else item.reject(outcome.error)
    })
  }

  async function drain(): Promise<void> {
    scheduled = false
    if (committing) return
    committing = true
    try {
      while (queue.length > 0) {
        const items = queue
        queue = []
        await commit(items)
      }
    } finally {
      committing = false
    }
  }

  function enqueue<T>(work: Item['work']): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      queue.push({ work, resolve: resolve as (value: unknown) => void, reject })
      if (!scheduled && !committing) {
        scheduled = true
        setImmediate(drain)
      }
    })
  }

  return {
    /** Runs `work` (statements on the transaction it is given) in the next group commit; settles once committed. */
    run<T>(work: (tx: PostgresTransaction) => Promise<T>): Promise<T> {
      return enqueue<T>(work)
    },
    /** Commits what is queued now, without waiting for the next turn; settles once that is committed (or failed). */
    flush(): Promise<void> {
      const marker = enqueue<void>(undefined).catch(() => undefined)
      if (!committing) void drain()
      return marker
    },
  }
}

export type PostgresWriteBatch = ReturnType<typeof createPostgresWriteBatch>
