import type { BunSQLiteDatabase } from 'drizzle-orm/bun-sqlite'
import type * as schema from './schema'

/**
 * The query builder every domain module uses, on either backend. Its type is drizzle's SQLite one; on Postgres the
 * object is drizzle's Postgres database over the Postgres tables, which mirror the SQLite ones column for column
 * (same names, same JavaScript values), so one query text serves both (see `db/postgres/postgres-storage.ts`, the one place
 * that says so to the compiler). Queries are always awaited: `.get()`, `.all()` and `.run()` exist only on SQLite.
 */
export type Db = BunSQLiteDatabase<typeof schema>

/** The table objects of the storage's backend; build queries from these, never from a direct `db/schema` import. */
export type Tables = typeof schema

/** The first row of a query, or undefined (the awaited form of SQLite's `.get()`; add `.limit(1)` where not unique). */
export async function first<T>(query: PromiseLike<T[]>): Promise<T | undefined> {
  return (await query)[0]
}
