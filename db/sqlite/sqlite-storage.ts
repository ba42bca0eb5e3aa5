import { Database } from 'bun:sqlite'
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { drizzle } from 'drizzle-orm/bun-sqlite'
import { UNICODE_LOWER, UNICODE_LOWER_OPTIONS, unicodeLower } from '../../lib/unicode-lower'
import type { Db, Storage } from '../client'
import { migrate } from './migrate'
import { sqliteRepositories } from '../repositories/sqlite'
import * as schema from '../schema'
import { BUSY_TIMEOUT_MS } from './sqlite-begin'
import type { SqliteConnection } from './sqlite-connection'
import { SQLITE_TEXT } from '../text-rules'
import { createTransactionLock } from './transaction-lock'
import { writeBatchOf } from './write-batch'

/** The storage over one SQLite connection: the port, and the connection its SQLite-only code (in `db/`) uses. */
export interface SqliteStorage extends Storage, SqliteConnection {
  dialect: 'sqlite'
}

/** Whether `storage` is on SQLite, for code in `db/` and tests that reach the file itself. */
export function isSqliteStorage(storage: Storage): storage is SqliteStorage {
  return storage.dialect === 'sqlite'
}

/**
 * Opens (creating the folder if needed) and migrates the SQLite database: WAL, foreign keys on, a busy timeout so a
 * second connection waits instead of failing.
 */
export function openStorage(path: string): SqliteStorage {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
  return sqliteStorage(new Database(path, { create: true, strict: true }), path)
}

/**
 * The Storage over an open SQLite database (a file, or an in-memory one loaded from an image), set up and migrated
 * as `openStorage` does. `path` names it (`:memory:` for one that is in memory).
 */
export function sqliteStorage(sqlite: Database, path: string): SqliteStorage {
  sqlite.run(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`)
  sqlite.function(UNICODE_LOWER, UNICODE_LOWER_OPTIONS, unicodeLower)
  const inMemory = path === ':memory:' || path.startsWith('file::memory:')
  if (path !== ':memory:') sqlite.run('PRAGMA journal_mode = WAL')
  sqlite.run('PRAGMA synchronous = NORMAL')
  sqlite.run('PRAGMA foreign_keys = ON')
  // The group commit gives every write its own savepoint, and SQLite copies each page a savepoint changes to a
  // sub-journal, which past 64 KB went to a temporary file: two pwrite calls a page, about a tenth of a turn's writes.
  sqlite.run('PRAGMA temp_store = MEMORY')
  migrate(sqlite)
  const db = drizzle(sqlite, { schema })
  const connection: SqliteConnection = { sqlite, lock: createTransactionLock() }
  const { lock } = connection
  const batch = writeBatchOf(connection)
  let closed = false
  return {
    dialect: 'sqlite',
    db,
    tables: schema,
    ...connection,
    path,
    text: SQLITE_TEXT,
    repositories: sqliteRepositories(connection),
    writeAheadLog: inMemory
      ? undefined
      : { path, checkpointAfter: (pages) => sqlite.run(`PRAGMA wal_autocheckpoint = ${Math.trunc(pages)}`) },
    transaction<T>(work: (tx: Db) => Promise<T>): Promise<T> {
      // One connection: a transaction holds it from its first statement to its last, across its awaits. Transactions
      // arriving together share one commit, each in its own savepoint (see `createWriteBatch`); another process's
      // hold on the file's write lock is waited for on timers, not in SQLite's busy handler.
      return batch.transaction(() => work(db))
    },
    readCommitted<T>(work: (db: Db) => Promise<T>): Promise<T> {
      // After the connection's open transaction, whose uncommitted writes it would otherwise see; without a write lock
      // (BEGIN IMMEDIATE takes one even for a transaction that only reads: another process on the file would wait).
      return lock.run(() => work(db))
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
}
