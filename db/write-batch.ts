import type { Database } from 'bun:sqlite'
import type { TransactionLock } from './transaction-lock'

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown }

/**
 * Group commit: writes and transactions queued during one turn of the event loop are committed together, in one
 * transaction, right after it (each in its own savepoint, so one failing write rolls back alone and fails only its
 * own caller). A commit writes every page it touched to the log, and concurrent turns and sessions touch the same
 * pages (the ends of the thread, run, message, user and session indexes), so committing them together writes those
 * pages once instead of once a call. Callers get a promise that settles after the commit: nothing is reported as
 * stored before it is.
 *
 * A write (`run`) is synchronous bun:sqlite work; a transaction (`transaction`) is awaited work, which holds the one
 * connection across its awaits, so a batch holding one runs under the storage's lock and what arrives meanwhile goes
 * into the next batch.
 */
export function createWriteBatch(sqlite: Database, lock: TransactionLock) {
  interface Item {
    work: () => unknown
    awaited: boolean
    resolve(value: unknown): void
    reject(error: unknown): void
  }
  let queue: Item[] = []
  let scheduled = false
  let awaitedQueued = false
  // Wrapped once: inside the batch's transaction each write becomes a savepoint.
  const savepoint = sqlite.transaction((work: () => unknown) => work())
  const commit = sqlite.transaction((items: Item[]) =>
    items.map((item): Outcome => {
      try {
        return { ok: true, value: savepoint(item.work) }
      } catch (error) {
        return { ok: false, error }
      }
    }),
  )
  // Prepared once: compiling them per transaction costs more than a small transaction's own statements.
  const statements = {
    begin: sqlite.prepare('BEGIN IMMEDIATE'),
    commit: sqlite.prepare('COMMIT'),
    rollback: sqlite.prepare('ROLLBACK'),
    savepoint: sqlite.prepare('SAVEPOINT batch_item'),
    release: sqlite.prepare('RELEASE batch_item'),
    rollbackTo: sqlite.prepare('ROLLBACK TO batch_item'),
  }

  function settle(items: Item[], outcomes: Outcome[]): void {
    items.forEach((item, index) => {
      const outcome = outcomes[index]
      if (outcome.ok) item.resolve(outcome.value)
      else item.reject(outcome.error)
    })
  }

  /** Synchronous writes only: one transaction, committed before this returns. */
  function commitWrites(items: Item[]): void {
    let outcomes: Outcome[]
    try {
      outcomes = commit.immediate(items)
    } catch (error) {
      for (const item of items) item.reject(error)
      return
    }
    settle(items, outcomes)
  }

  /** One awaited transaction's work in its savepoint of the open batch transaction. */
  async function inSavepoint(item: Item): Promise<Outcome> {
    statements.savepoint.run()
    try {
      const value = await item.work()
      statements.release.run()
      return { ok: true, value }
    } catch (error) {
      // An error SQLite answers by rolling back the whole transaction leaves no savepoint to return to.
      if (sqlite.inTransaction) {
        statements.rollbackTo.run()
        statements.release.run()
      }
      return { ok: false, error }
    }
  }

  /** Writes and awaited transactions, in order, in one transaction; run under the lock. */
  async function commitTransactions(items: Item[]): Promise<void> {
    const outcomes: Outcome[] = []
    try {
      statements.begin.run()
      for (const item of items) {
        const outcome = item.awaited ? await inSavepoint(item) : savepointOutcome(item)
        outcomes.push(outcome)
        if (!sqlite.inTransaction) {
          // Everything before this item was rolled back with the transaction: those calls fail with its error.
          const error = outcome.ok ? new Error('The transaction was rolled back') : outcome.error
          outcomes.fill({ ok: false, error })
          statements.begin.run()
        }
      }
      statements.commit.run()
    } catch (error) {
      if (sqlite.inTransaction) statements.rollback.run()
      for (const item of items) item.reject(error)
      return
    }
    settle(items, outcomes)
  }

  function savepointOutcome(item: Item): Outcome {
    try {
      return { ok: true, value: savepoint(item.work) }
    } catch (error) {
      return { ok: false, error }
    }
  }

  /** Commits what is queued now; settles once it is committed. */
  function flushQueued(): void | Promise<void> {
    const items = queue
    const awaited = awaitedQueued
    queue = []
    awaitedQueued = false
    if (items.length === 0) return
    return awaited ? commitTransactions(items) : commitWrites(items)
  }

  /** The queue's turn on the connection: at once when it is free and nothing in it awaits, else under the lock. */
  function flush(): Promise<void> {
    scheduled = false
    if (queue.length === 0) return lock.busy() ? lock.idle() : Promise.resolve()
    if (!awaitedQueued && !lock.busy()) {
      flushQueued()
      return Promise.resolve()
    }
    return lock.run(flushQueued)
  }

  function enqueue<T>(work: () => T | Promise<T>, awaited: boolean): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      queue.push({ work, awaited, resolve: resolve as (value: unknown) => void, reject })
      awaitedQueued ||= awaited
      if (!scheduled) {
        scheduled = true
        setImmediate(() => void flush())
      }
    })
  }

  return {
    /** Runs `work` (synchronous bun:sqlite calls) in the next group commit; settles once that is committed. */
    run<T>(work: () => T): Promise<T> {
      return enqueue(work, false)
    },
    /**
     * Runs `work` (awaited statements on the one connection) in the next group commit, in a savepoint of its own:
     * it rolls back alone when it throws. Settles once that commit is done.
     */
    transaction<T>(work: () => Promise<T>): Promise<T> {
      return enqueue(work, true)
    },
    /** Commits what is queued now (a read that must see it, shutdown); settles once it is committed. */
    flush,
    /** Whether anything waits for the next commit. */
    pending: () => queue.length > 0,
  }
}

export type WriteBatch = ReturnType<typeof createWriteBatch>

const batches = new WeakMap<Database, WriteBatch>()

/** The write batch of a database: every area that uses it shares its commits. */
export function writeBatchOf(storage: { sqlite: Database; lock: TransactionLock }): WriteBatch {
  let batch = batches.get(storage.sqlite)
  if (!batch) {
    batch = createWriteBatch(storage.sqlite, storage.lock)
    batches.set(storage.sqlite, batch)
  }
  return batch
}
