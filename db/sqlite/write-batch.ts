import type { Database } from 'bun:sqlite'
import { BUSY_TIMEOUT_MS, createImmediateBegin, retryDelay } from './sqlite-begin'
import { createBatchCommit, type BatchItem } from './batch-commit'
import type { SqliteConnection } from './sqlite-connection'
import type { TransactionLock } from './transaction-lock'

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
  let queue: BatchItem[] = []
  let scheduled = false
  let awaitedQueued = false
  /** Tries in a row that found another connection holding the file's write lock, and since when. */
  let busyTries = 0
  let busySince = 0
  const immediate = createImmediateBegin(sqlite)
  const commit = createBatchCommit(sqlite)

  /** Takes what is queued: the items of the next commit. */
  function take(): { items: BatchItem[]; awaited: boolean } {
    const taken = { items: queue, awaited: awaitedQueued }
    queue = []
    awaitedQueued = false
    return taken
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
      commit.rejectAll(take().items, error)
      return true
    }
    if (begun) commit.writes(take().items)
    return begun
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
      commit.rejectAll(take().items, error)
      return
    }
    const { items, awaited } = take()
    if (awaited) await commit.transactions(items)
    else commit.writes(items)
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
      commitWaitingInSqlite()
      return
    }
    scheduled = true
    void retryDelay(busyTries++).then(groupCommit)
  }

  /** Past the busy timeout: begins waiting in SQLite's busy handler, which fails as a plain BEGIN would. */
  function commitWaitingInSqlite(): void {
    const { items } = take()
    try {
      commit.beginWaiting()
    } catch (error) {
      commit.rejectAll(items, error)
      return
    }
    commit.writes(items)
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
export function writeBatchOf(connection: SqliteConnection): WriteBatch {
  let batch = batches.get(connection.sqlite)
  if (!batch) {
    batch = createWriteBatch(connection.sqlite, connection.lock)
    batches.set(connection.sqlite, batch)
  }
  return batch
}
