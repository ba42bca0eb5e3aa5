import type { Database } from 'bun:sqlite'
import type { Storage } from './client'
import type { TransactionLock } from './transaction-lock'

/**
 * Group commit: writes queued during one turn of the event loop are committed together, in one transaction, right
 * after it (each in its own savepoint, so one failing write rolls back alone and fails only its own caller). A
 * commit writes every page it touched to the log, and concurrent turns touch the same pages (the ends of the
 * thread, run and message indexes), so committing them together writes those pages once instead of once a turn.
 * Callers get a promise that settles after the commit: nothing is reported as stored before it is.
 */
export function createWriteBatch(sqlite: Database, lock?: TransactionLock) {
  interface Item {
    work: () => unknown
    resolve(value: unknown): void
    reject(error: unknown): void
  }
  let queue: Item[] = []
  let scheduled = false
  // Wrapped once: inside the batch's transaction each call becomes a savepoint.
  const savepoint = sqlite.transaction((work: () => unknown) => work())
  const commit = sqlite.transaction((items: Item[]) =>
    items.map((item) => {
      try {
        return { ok: true as const, value: savepoint(item.work) }
      } catch (error) {
        return { ok: false as const, error }
      }
    }),
  )

  function flush(): void {
    scheduled = false
    const items = queue
    queue = []
    if (items.length === 0) return
    let outcomes: ReturnType<typeof commit>
    try {
      outcomes = commit.immediate(items)
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

  return {
    /** Runs `work` (synchronous bun:sqlite calls) in the next group commit; settles once that is committed. */
    run<T>(work: () => T): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queue.push({ work, resolve: resolve as (value: unknown) => void, reject })
        if (!scheduled) {
          scheduled = true
          // An open asynchronous transaction holds the connection: the commit waits for its turn.
          setImmediate(() => (lock?.busy() ? void lock.run(flush) : flush()))
        }
      })
    },
    /** Commits what is queued now (shutdown). */
    flush,
  }
}

export type WriteBatch = ReturnType<typeof createWriteBatch>

const batches = new WeakMap<Database, WriteBatch>()

/** The write batch of a database: every area that uses it shares its commits. */
export function writeBatchOf(storage: Storage): WriteBatch {
  let batch = batches.get(storage.sqlite)
  if (!batch) {
    batch = createWriteBatch(storage.sqlite, storage.lock)
    batches.set(storage.sqlite, batch)
  }
  return batch
}
