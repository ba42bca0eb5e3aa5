import type { Repositories } from './repositories'
import type { Db, Tables } from './query-builder'
import type { TextRules } from './text-rules'

export { first, type Db, type Tables } from './query-builder'

/** The backend's name, for logs and `/readyz`. */
export type Dialect = 'sqlite' | 'postgres'

export interface TransactionOptions {
  /**
   * Runs alone: one exclusive transaction at a time, across every node on the database (on SQLite every transaction
   * already does). For start-up work that reads before it writes, such as applying a bootstrap, where two nodes
   * interleaving would each decide to insert the same rows.
   */
  exclusive?: boolean
}

/** A SQLite file's write-ahead log, which the server checkpoints off the event loop. */
export interface WriteAheadLog {
  /** The database file, which a checkpointing connection of its own opens. */
  path: string
  /** Pages the log may grow to before the storage's own connection checkpoints it inside a commit. */
  checkpointAfter(pages: number): void
}

/**
 * The service's own state: accounts, keys, users, sessions, threads, messages, runs, management resources. Every
 * member is honoured by both backends (SQLite and Postgres); what one backend does differently is chosen by the
 * storage when it opens (its repositories, its text rules), so no caller asks which backend it has.
 */
export interface Storage {
  /** The backend's name, for logs and `/readyz`: never a reason to do anything differently. */
  dialect: Dialect
  db: Db
  tables: Tables
  /**
   * Runs `work` in one transaction: everything it writes is committed together or not at all. Every write goes
   * through a transaction or a repository's group commit, never a bare `db.insert/update/delete`: on SQLite the
   * connection is shared, so a bare write made while another transaction is open would be rolled back with it.
   */
  transaction<T>(work: (tx: Db) => Promise<T>, options?: TransactionOptions): Promise<T>
  /**
   * Runs `work`'s reads outside any transaction, seeing only committed rows (on SQLite after the open transaction of
   * the one connection, whose uncommitted writes it would see; on Postgres from the pool). Its statements are
   * separate: a read-modify-write belongs in `transaction`.
   */
  readCommitted<T>(work: (db: Db) => Promise<T>): Promise<T>
  /** How text is searched and sorted ignoring case. */
  text: TextRules
  /** The hot paths, each written for this backend. */
  repositories: Repositories
  /** The SQLite file's write-ahead log; absent for an in-memory database and for Postgres (which checkpoints itself). */
  writeAheadLog?: WriteAheadLog
  /** The SQLite file (`:memory:` in tests), or the Postgres URL without its password. */
  path: string
  /** Readiness checks of the backend itself, by name, beyond a query through the storage (`/readyz`). */
  readinessChecks?: Record<string, () => Promise<void>>
  close(): Promise<void>
}
