import { SQL } from 'bun'
import { drizzle } from 'drizzle-orm/bun-sql'
import type { Db, Storage, Tables } from './client'
import { migratePostgres } from './migrate-postgres'
import * as schema from './schema-pg'

export interface PostgresStorageOptions {
  /** Connections in the pool (`DATABASE_POOL_SIZE`). */
  poolSize?: number
}

/**
 * Opens a pool on the Postgres database at `url` and migrates it (under an advisory lock, so nodes starting
 * together are safe). The service's own state then lives there instead of in the SQLite file.
 */
export async function openPostgresStorage(url: string, options: PostgresStorageOptions = {}): Promise<Storage> {
  const client = new SQL(url, { max: options.poolSize ?? 10 })
  try {
    await migratePostgres(client)
  } catch (error) {
    await client.close()
    throw error
  }
  return postgresStorage(client, url)
}

/** A Storage over an open (and migrated) pool; `url` names it in logs and `/readyz`. */
export function postgresStorage(client: SQL, url: string): Storage {
  const db = drizzle({ client, schema })
  let closing: Promise<void> | undefined
  const storage = {
    dialect: 'postgres' as const,
    // The Postgres database and tables mirror the SQLite ones property for property and value for value; their
    // query builders differ only in the SQLite-only methods (`.get()`, `.all()`, `.run()`), which no shared code uses.
    db: db as unknown as Db,
    tables: schema as unknown as Tables,
    path: withoutPassword(url),
    transaction<T>(work: (tx: Db) => Promise<T>): Promise<T> {
      return db.transaction((tx) => work(tx as unknown as Db))
    },
    close(): Promise<void> {
      closing ??= client.close()
      return closing
    },
  }
  for (const name of ['sqlite', 'lock'] as const)
    Object.defineProperty(storage, name, {
      enumerable: false,
      get() {
        throw new Error(`storage.${name} exists only on SQLite; this storage is Postgres (${storage.path})`)
      },
    })
  return storage as Storage
}

/** The URL as it may be shown: no password. */
export function withoutPassword(url: string): string {
  if (!URL.canParse(url)) return url.replace(/:[^:@/]*@/, '@')
  const parsed = new URL(url)
  parsed.password = ''
  return parsed.toString()
}
