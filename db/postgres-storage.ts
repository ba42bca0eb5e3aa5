import { SQL } from 'bun'
import { sql } from 'drizzle-orm'
import { drizzle } from 'drizzle-orm/bun-sql'
import type { Db, Storage, Tables, TransactionOptions } from './client'
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
  const client = await connectPostgres(url, options.poolSize ?? 10)
  try {
    await migratePostgres(client)
  } catch (error) {
    await client.close()
    throw error
  }
  return postgresStorage(client, url)
}

/** The Postgres server of a database URL cannot be reached or refuses the login: the operator's to fix. */
export class DatabaseUnreachableError extends Error {}

/**
 * A pool on `url` that has answered once: a server that is down, a wrong password or a missing database stop the
 * start with one line naming the database (without its password), rather than with the driver's stack.
 */
export async function connectPostgres(url: string, max: number): Promise<SQL> {
  const client = new SQL(url, { max })
  try {
    await client.unsafe('SELECT 1')
    return client
  } catch (error) {
    await client.close().catch(() => undefined)
    const { message, code } = error as { message?: string; code?: string }
    throw new DatabaseUnreachableError(
      `Cannot use the Postgres database ${withoutPassword(url)} (DATABASE_URL): ${message ?? String(error)}${code ? ` (${code})` : ''}`,
    )
  }
}

/** The advisory lock of exclusive transactions (a constant of its own, apart from the migrations' one). */
const EXCLUSIVE_LOCK_KEY = 7_301_946_125_114

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
    readinessChecks: {
      // After a failover the old primary may come back as a read-only standby: it answers, but every write fails.
      async postgres() {
        const [row]: Array<{ standby: boolean }> = await client.unsafe('SELECT pg_is_in_recovery() AS standby')
        if (row?.standby) throw new Error('the Postgres server is a read-only standby')
      },
    },
    transaction<T>(work: (tx: Db) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
      return db.transaction(async (tx) => {
        // Held until this transaction ends; every exclusive transaction of every node waits for the same key.
        if (options.exclusive) await tx.execute(sql`SELECT pg_advisory_xact_lock(${EXCLUSIVE_LOCK_KEY})`)
        return work(tx as unknown as Db)
      })
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
  return storage as unknown as Storage
}

/** The URL as it may be shown: no password. */
export function withoutPassword(url: string): string {
  if (!URL.canParse(url)) return url.replace(/:[^:@/]*@/, '@')
  const parsed = new URL(url)
  parsed.password = ''
  return parsed.toString()
}
