import type { Database } from 'bun:sqlite'
import type { TransactionLock } from './transaction-lock'

/**
 * The one SQLite connection of a storage and the turns taken on it: what the SQLite repositories and the write batch
 * need, seen only inside `db/`.
 */
export interface SqliteConnection {
  /** The raw handle, for the hot paths' prepared statements. */
  sqlite: Database
  /** Transactions and group commits take turns on the one connection. */
  lock: TransactionLock
}
