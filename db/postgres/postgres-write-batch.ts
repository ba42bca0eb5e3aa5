import type { SQL } from 'bun'

/** A transaction's (or savepoint's) query function: the tagged template the work writes its statements with. */
export type PostgresTransaction = SQL

/** One write of the batch failed: the transaction is rolled back and the writes are retried one by one. */
class BatchWriteFailed extends Error {
  constructor(readonly reason: unknown) {
    super('a write of the batch failed')
  }
}

/**
 * Group commit on Postgres, the counterpart of `createWriteBatch` on SQLite: writes queued during one turn of the
 * event loop are committed together in one transaction, and one batch commits at a time (what is queued meanwhile
 * goes into the next one, in order: a message's saves, a run's end after its start). Each caller's promise settles
 * after the commit: nothing is reported as stored before it is.
 *
 * The writes are sent pipelined, without waiting for each statement's answer (a round trip per statement, awaited
 * in turn, cost ten times as much as the statements). Should one fail, the transaction is rolled back and the writes
 * run again one by one, each in its own savepoint, so one failing write fails only its own caller. A `work` may
 * therefore run twice: whatever it takes from memory (the messages to save) it must take once.
 */
export function createPostgresWriteBatch(client: SQL) {
  interface Item {
    work: ((tx: PostgresTransaction) => Promise<unknown>) | undefined
    resolve(value: unknown): void
    reject(error: unknown): void
    /** Called when a commit takes the item: a gathered item takes no more calls from then on (see `gather`). */
    taken?: () => void
  }
  let queue: Item[] = []
  let scheduled = false
  let committing = false

  /** Every write at once, in one transaction; rejects with `BatchWriteFailed` when one of them failed. */
  function together(writes: Item[]): Promise<unknown[]> {
    return client.begin(async (tx) => {
      const settled = await Promise.allSettled(writes.map((item) => item.work!(tx)))
      const failed = settled.find((outcome) => outcome.status === 'rejected')
      if (failed) throw new BatchWriteFailed(failed.reason)
      return settled.map((outcome) => (outcome as PromiseFulfilledResult<unknown>).value)
    })
  }

  /** The writes one after the other, each in its own savepoint of one transaction. */
  async function oneByOne(writes: Item[]): Promise<void> {
    type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown }
    let outcomes: Outcome[]
    try {
      outcomes = await client.begin(async (tx) => {
        const results: Outcome[] = []
        for (const item of writes) {
          try {
            results.push({ ok: true, value: await tx.savepoint((savepoint) => item.work!(savepoint)) })
          } catch (error) {
            results.push({ ok: false, error })
          }
        }
        return results
      })
    } catch (error) {
      for (const item of writes) item.reject(error)
      return
    }
    writes.forEach((item, index) => {
      const outcome = outcomes[index]
      if (outcome.ok) item.resolve(outcome.value)
      else item.reject(outcome.error)
    })
  }

  async function commit(items: Item[]): Promise<void> {
    const writes = items.filter((item) => item.work !== undefined)
    if (writes.length > 0) {
      try {
        const values = await together(writes)
        writes.forEach((item, index) => item.resolve(values[index]))
      } catch (error) {
        if (error instanceof BatchWriteFailed && writes.length > 1) await oneByOne(writes)
        else for (const item of writes) item.reject(error instanceof BatchWriteFailed ? error.reason : error)
      }
    }
    // Flush markers settle once everything queued before them has.
    for (const item of items) if (item.work === undefined) item.resolve(undefined)
  }

  async function drain(): Promise<void> {
    scheduled = false
    if (committing) return
    committing = true
    try {
      while (queue.length > 0) {
        const items = queue
        queue = []
        for (const item of items) item.taken?.()
        await commit(items)
      }
    } finally {
      committing = false
    }
  }

  function enqueue<T>(work: Item['work'], taken?: () => void): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      queue.push({ work, resolve: resolve as (value: unknown) => void, reject, taken })
      if (!scheduled && !committing) {
        scheduled = true
        setImmediate(drain)
      }
    })
  }

  return {
    /**
     * Runs `work` (statements on the transaction it is given; sent without awaiting each other where they can be)
     * in the next group commit; settles once committed. `work` may run twice (see above).
     */
    run<T>(work: (tx: PostgresTransaction) => Promise<T>): Promise<T> {
      return enqueue<T>(work)
    },
    /**
     * Gathers the calls of one commit into one work, so the writes of every turn ready together go as a few
     * multi-row statements instead of a few statements each: `write` gets the items queued since the last commit
     * began, in order, and returns one outcome for each (an `Error` fails that item's caller only). A failing `write`
     * fails every item it was given. Like any work, `write` may run twice with the same items (see above).
     */
    gather<I, O>(write: (tx: PostgresTransaction, items: I[]) => Promise<Array<O | Error>>): (item: I) => Promise<O> {
      interface Waiting {
        item: I
        resolve(value: O): void
        reject(error: unknown): void
      }
      let open: Waiting[] | undefined
      return (item) =>
        new Promise<O>((resolve, reject) => {
          if (!open) {
            const group: Waiting[] = (open = [])
            // Closed once a commit takes it: a call from then on goes into the next commit, after what was queued
            // before it (a run's end after its last save).
            enqueue<Array<O | Error>>(
              (tx) =>
                write(
                  tx,
                  group.map((waiting) => waiting.item),
                ),
              () => {
                if (open === group) open = undefined
              },
            ).then(
              (outcomes) =>
                group.forEach((waiting, index) => {
                  const outcome = outcomes[index]
                  if (outcome instanceof Error) waiting.reject(outcome)
                  else waiting.resolve(outcome)
                }),
              (error: unknown) => {
                for (const waiting of group) waiting.reject(error)
              },
            )
          }
          open.push({ item, resolve, reject })
        })
    },
    /** Commits what is queued now, without waiting for the next turn; settles once that is committed (or failed). */
    flush(): Promise<void> {
      const marker = enqueue<void>(undefined)
      if (!committing) void drain()
      return marker
    },
  }
}

export type PostgresWriteBatch = ReturnType<typeof createPostgresWriteBatch>
