import { Database } from 'bun:sqlite'
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { drizzle, type BunSQLiteDatabase } from 'drizzle-orm/bun-sqlite'
import { migrate } from './migrate'
import * as schema from './schema'

export type Db = BunSQLiteDatabase<typeof schema>

/** The open database: drizzle for queries, the raw handle for transactions and hot-path prepared statements. */
export interface Storage {
  db: Db
  sqlite: Database
  path: string
  close(): void
}

/**
 * Opens (creating the folder if needed) and migrates the database: WAL, foreign keys on, a busy timeout so a
 * second connection waits instead of failing.
 */
export function openStorage(path: string): Storage {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
  const sqlite = new Database(path, { create: true, strict: true })
  sqlite.run('PRAGMA busy_timeout = 5000')
  if (path !== ':memory:') sqlite.run('PRAGMA journal_mode = WAL')
  sqlite.run('PRAGMA synchronous = NORMAL')
  sqlite.run('PRAGMA foreign_keys = ON')
  migrate(sqlite)
  const db = drizzle(sqlite, { schema })
  let closed = false
  return {
    db,
    sqlite,
    path,
    close() {
      if (closed) return
      closed = true
      sqlite.close()
    },
  }
}

const runners = new WeakMap<Database, ReturnType<Database['transaction']>>()

/** Runs `work` in one SQLite transaction (immediate, so writers queue instead of failing mid-way). */
export function transaction<T>(storage: Storage, work: () => T): T {
  // One wrapper per database, reused: wrapping anew on every call costs more than a small transaction itself.
  let runner = runners.get(storage.sqlite)
  if (!runner) {
    runner = storage.sqlite.transaction((inner: () => unknown) => inner())
    runners.set(storage.sqlite, runner)
  }
  return runner.immediate(work) as T
}
