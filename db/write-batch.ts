import type { Database } from 'bun:sqlite'
import { BUSY_TIMEOUT_MS, createImmediateBegin, retryDelay } from './sqlite-begin'
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
 *
 * When another connection to the file (another WORKERS process) holds its write lock, a commit does not wait in
 * SQLite's busy handler, which sleeps on the event loop: it tries again on a timer (see `createImmediateBegin`),
 * serving requests meanwhile, and what is queued by then joins the same commit.
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
  /** Tries in a row that found another connection holding the file's write lock, and since when. */
  let busyTries = 0
  let busySince = 0
  const immediate = createImmediateBegin(sqlite)
  // Wrapped once: inside the batch's transaction each write becomes a savepoint.
  const savepoint = sqlite.transaction((work: () => unknown) => work())
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

  /** Takes what is queued: the items of the next commit. */
  function take(): { items: Item[]; awaited: boolean } {
    const taken = { items: queue, awaited: awaitedQueued }
    queue = []
    awaitedQueued = false
    return taken
  }

  function rejectAll(items: Item[], error: unknown): void {
    for (const item of items) item.reject(error)
  }

  /** Synchronous writes only, in the transaction just begun: committed before this returns. */
  function commitWritesBegun(items: Item[]): void {
    let outcomes: Outcome[]
    try {
      outcomes = items.map(savepointOutcome)
      statements.commit.run()
    } catch (error) {
      if (sqlite.inTransaction) statements.rollback.run()
      rejectAll(items, error)
      return
    }
    settle(items, outcomes)
  }

  /**
   * Begins if the file's write lock is free now and commits what is queued; false, leaving the queue, when another
   * connection holds the lock.
   */
  function tryCommitWrites(): boolean {
    let begun: boolean
    try {
      begun = immediate.tryBegin()
    } catch (error) {
      rejectAll(take().items, error)
      return true
    }
    if (begun) commitWritesBegun(take().items)
    return begun
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

  /** Writes and awaited transactions, in order, in the transaction just begun; run under the lock. */
  async function commitTransactionsBegun(items: Item[]): Promise<void> {
    const outcomes: Outcome[] = []
    try {
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
      rejectAll(items, error)
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

  /**
   * Commits what is queued, under the lock: begins once the file's write lock is free (on timers while another
   * connection holds it), then takes the queue, so what arrived meanwhile joins this commit.
   */
  async function flushQueued(): Promise<void> {
    if (queue.length === 0) return
    try {
      await immediate.begin()
    } catch (error) {
      rejectAll(take().items, error)
      return
    }
    const { items, awaited } = take()
    if (awaited) await commitTransactionsBegun(items)
    else commitWritesBegun(items)
  }

  /**
   * Commits what is queued now (a read that must see it, shutdown); settles once it is committed. Synchronous writes
   * on a free connection and a free file commit at once; else the queue takes its turn on the connection.
   */
  function flush(): Promise<void> {
    if (queue.length === 0) return lock.busy() ? lock.idle() : Promise.resolve()
    if (!awaitedQueued && !lock.busy() && tryCommitWrites()) return Promise.resolve()
    return lock.run(flushQueued)
  }

  /**
   * The group commit of a turn of the event loop. When another connection holds the file's write lock it tries again
   * a moment later, without holding the connection (reads go on meanwhile); past the busy timeout it waits in SQLite,
   * and fails as a plain BEGIN would.
   */
  function groupCommit(): void {
    scheduled = false
    if (queue.length === 0) return
    if (awaitedQueued || lock.busy()) {
      void lock.run(flushQueued)
      return
    }
    if (tryCommitWrites()) {
      busyTries = 0
      return
    }
    if (busyTries === 0) busySince = performance.now()
    else if (performance.now() - busySince > BUSY_TIMEOUT_MS) {
      busyTries = 0
      const { items } = take()
      try {
        statements.begin.run()
      } catch (error) {
        rejectAll(items, error)
        return
      }
      commitWritesBegun(items)
      return
    }
    scheduled = true
    void retryDelay(busyTries++).then(groupCommit)
  }

  function enqueue<T>(work: () => T | Promise<T>, awaited: boolean): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      queue.push({ work, awaited, resolve: resolve as (value: unknown) => void, reject })
      awaitedQueued ||= awaited
      if (!scheduled) {
        scheduled = true
        setImmediate(groupCommit)
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
