import type { Database } from 'bun:sqlite'
import type { Storage } from './client'
import { BUSY_TIMEOUT_MS, createImmediateBegin, retryDelay } from './sqlite-begin'
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
  /** Tries in a row that found another connection (another WORKERS process) holding the write lock, since when. */
  let busyTries = 0
  let busySince = 0
  const immediate = createImmediateBegin(sqlite)
  const begin = sqlite.prepare('BEGIN IMMEDIATE')
  const commit = sqlite.prepare('COMMIT')
  const rollback = sqlite.prepare('ROLLBACK')
  // Wrapped once: inside the batch's transaction each call becomes a savepoint.
  const savepoint = sqlite.transaction((work: () => unknown) => work())

  /** Runs `items` in the transaction just begun, each in its own savepoint, commits, and settles each one. */
  function commitBegun(items: Item[]): void {
    let outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }>
    try {
      outcomes = items.map((item) => {
        try {
          return { ok: true as const, value: savepoint(item.work) }
        } catch (error) {
          return { ok: false as const, error }
        }
      })
      commit.run()
    } catch (error) {
      if (sqlite.inTransaction) rollback.run()
      for (const item of items) item.reject(error)
      return
    }
    items.forEach((item, index) => {
      const outcome = outcomes[index]
      if (outcome.ok) item.resolve(outcome.value)
      else item.reject(outcome.error)
    })
  }

  /** Commits what is queued now, waiting in SQLite for the write lock if another connection holds it. */
  function flush(): void {
    scheduled = false
    const items = queue
    queue = []
    if (items.length === 0) return
    try {
      begin.run()
    } catch (error) {
      for (const item of items) item.reject(error)
      return
    }
    commitBegun(items)
  }

  /**
   * The group commit of a turn of the event loop: when another connection holds the write lock, it tries again a
   * moment later (see `createImmediateBegin`), and what is queued meanwhile joins the same commit.
   */
  function groupCommit(): void {
    scheduled = false
    if (queue.length === 0) return
    let begun: boolean
    try {
      begun = immediate.tryBegin()
    } catch (error) {
      const items = queue
      queue = []
      for (const item of items) item.reject(error)
      return
    }
    if (!begun) {
      // Past the busy timeout, the blocking flush waits in SQLite and fails as a plain BEGIN would.
      if (busyTries === 0) busySince = performance.now()
      else if (performance.now() - busySince > BUSY_TIMEOUT_MS) return flush()
      schedule(retryDelay(busyTries++))
      return
    }
    busyTries = 0
    const items = queue
    queue = []
    commitBegun(items)
  }

  /** Runs the group commit once `after` settles; an open asynchronous transaction holds the connection until its end. */
  function schedule(after: Promise<void>): void {
    scheduled = true
    void after.then(() => (lock?.busy() ? void lock.run(groupCommit) : groupCommit()))
  }

  return {
    /** Runs `work` (synchronous bun:sqlite calls) in the next group commit; settles once that is committed. */
    run<T>(work: () => T): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queue.push({ work, resolve: resolve as (value: unknown) => void, reject })
        if (!scheduled) schedule(retryDelay(0))
      })
    },
    /** Commits what is queued now (shutdown, and a read that must see what was written before it). */
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
