import { Database } from 'bun:sqlite'
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { drizzle, type BunSQLiteDatabase } from 'drizzle-orm/bun-sqlite'
import { UNICODE_LOWER, UNICODE_LOWER_OPTIONS, unicodeLower } from '../lib/unicode-lower'
import { migrate } from './migrate'
import * as schema from './schema'
import { BUSY_TIMEOUT_MS } from './sqlite-begin'
import { createTransactionLock, type TransactionLock } from './transaction-lock'
import { writeBatchOf } from './write-batch'

/**
 * The query builder every domain module uses. Its type is the SQLite one; on Postgres the object is drizzle's Postgres
 * database over the Postgres tables, which mirror the SQLite ones column for column (same names, same JavaScript
 * values), so one query text serves both. Queries are always awaited: `.get()`, `.all()` and `.run()` exist only on
 * SQLite.
 */
export type Db = BunSQLiteDatabase<typeof schema>

/** The table objects of the storage's dialect; build queries from these, never from a direct `db/schema` import. */
export type Tables = typeof schema

export type Dialect = 'sqlite' | 'postgres'

export interface TransactionOptions {
  /**
   * Runs alone: one exclusive transaction at a time, across every node on the database (on SQLite every transaction
   * already does). For start-up work that reads before it writes, such as applying a bootstrap, where two nodes
   * interleaving would each decide to insert the same rows.
   */
  exclusive?: boolean
}

/** The service's own state: accounts, keys, users, sessions, threads, messages, runs, management resources. */
export interface Storage {
  dialect: Dialect
  db: Db
  tables: Tables
  /**
   * Runs `work` in one transaction: everything it writes is committed together or not at all. Every write goes
   * through a transaction or the write batch (`db/write-batch.ts`), never a bare `db.insert/update/delete`: on SQLite
   * the connection is shared, so a bare write made while another transaction is open would be rolled back with it.
   */
  transaction<T>(work: (tx: Db) => Promise<T>, options?: TransactionOptions): Promise<T>
  /** SQLite only: the raw handle, for the hot-path prepared statements of SQLite repositories. */
  sqlite: Database
  /** SQLite only: transactions and group commits take turns on the one connection. */
  lock: TransactionLock
  /** The SQLite file (`:memory:` in tests), or the Postgres URL without its password. */
  path: string
  /** Readiness checks of the backend itself, by name, beyond a query through the storage (`/readyz`). */
  readinessChecks?: Record<string, () => Promise<void>>
  close(): Promise<void>
}

/**
 * Opens (creating the folder if needed) and migrates the SQLite database: WAL, foreign keys on, a busy timeout so a
 * second connection waits instead of failing.
 */
export function openStorage(path: string): Storage {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
  return sqliteStorage(new Database(path, { create: true, strict: true }), path)
}

/**
 * The Storage over an open SQLite database (a file, or an in-memory one loaded from an image), set up and migrated
 * as `openStorage` does. `path` names it (`:memory:` for one that is in memory).
 */
export function sqliteStorage(sqlite: Database, path: string): Storage {
  sqlite.run(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`)
  sqlite.function(UNICODE_LOWER, UNICODE_LOWER_OPTIONS, unicodeLower)
  if (path !== ':memory:') sqlite.run('PRAGMA journal_mode = WAL')
  sqlite.run('PRAGMA synchronous = NORMAL')
  sqlite.run('PRAGMA foreign_keys = ON')
  // The group commit gives every write its own savepoint, and SQLite copies each page a savepoint changes to a
  // sub-journal, which past 64 KB went to a temporary file: two pwrite calls a page, about a tenth of a turn's writes.
  sqlite.run('PRAGMA temp_store = MEMORY')
  migrate(sqlite)
  const db = drizzle(sqlite, { schema })
  const lock = createTransactionLock()
  const storage: Storage = {
    dialect: 'sqlite',
    db,
    tables: schema,
    sqlite,
    lock,
    path,
    transaction<T>(work: (tx: Db) => Promise<T>): Promise<T> {
      // One connection: a transaction holds it from its first statement to its last, across its awaits. Transactions
      // arriving together share one commit, each in its own savepoint (see `createWriteBatch`); another process's
      // hold on the file's write lock is waited for on timers, not in SQLite's busy handler.
      return batch.transaction(() => work(db))
    },
    async close() {
      if (closed) return
      closed = true
      // Closed at once when nothing is open, so a caller that does not await still finds the file closed.
      if (batch.pending() || lock.busy()) {
        await batch.flush()
        await lock.idle()
      }
      sqlite.close()
    },
  }
  const batch = writeBatchOf(storage)
  let closed = false
  return storage
}

/**
 * Runs `work`'s reads outside any transaction, seeing only committed rows. On SQLite it waits for the connection's
 * turn (on the one connection an open transaction's uncommitted writes would be visible) and takes no write lock
 * (BEGIN IMMEDIATE does, even for a transaction that only reads: another process on the file would wait for it). On
 * Postgres it reads from the pool. Its statements are separate: a read-modify-write belongs in `transaction`.
 */
export function readCommitted<T>(storage: Storage, work: (db: Db) => Promise<T>): Promise<T> {
  return storage.dialect === 'sqlite' ? storage.lock.run(() => work(storage.db)) : work(storage.db)
}

/** The first row of a query, or undefined (the awaited form of SQLite's `.get()`; add `.limit(1)` where not unique). */
export async function first<T>(query: PromiseLike<T[]>): Promise<T | undefined> {
  return (await query)[0]
}

const runners = new WeakMap<Database, ReturnType<Database['transaction']>>()

/**
 * Runs synchronous bun:sqlite `work` in one SQLite transaction (immediate, so writers queue instead of failing
 * mid-way). Only for SQLite-specific code that cannot await; the rest uses `storage.transaction`.
 */
export function transaction<T>(storage: Storage, work: () => T): T {
  if (storage.lock.busy()) throw new Error('A synchronous transaction cannot start while an asynchronous one is open')
  // One wrapper per database, reused: wrapping anew on every call costs more than a small transaction itself.
  let runner = runners.get(storage.sqlite)
  if (!runner) {
    runner = storage.sqlite.transaction((inner: () => unknown) => inner())
    runners.set(storage.sqlite, runner)
  }
  return runner.immediate(work) as T
}
