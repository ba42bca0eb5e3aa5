import { SQL } from 'bun'
import { sql } from 'drizzle-orm'
import { drizzle } from 'drizzle-orm/bun-sql'
import type { Db, Storage, Tables, TransactionOptions } from './client'
import { migratePostgres } from './migrate-postgres'
import { withDeadline } from './postgres-deadline'
import { connectPostgres, withoutPassword } from './postgres-connect'
import * as schema from './schema-pg'

export { connectPostgres, DatabaseUnreachableError, withoutPassword } from './postgres-connect'

export interface PostgresStorageOptions {
  /** Connections in the pool (`DATABASE_POOL_SIZE`). */
  poolSize?: number
  /** How long a statement or transaction may go unanswered before it fails as 503 (`DATABASE_TIMEOUT_MS`). */
  timeoutMs?: number
}

/** A statement or transaction of the service's own state unanswered this long: the server is taken as gone. */
export const DEFAULT_DATABASE_TIMEOUT_MS = 5000

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
  return postgresStorage(client, url, options.timeoutMs ?? DEFAULT_DATABASE_TIMEOUT_MS)
}

/** The advisory lock of exclusive transactions (a constant of its own, apart from the migrations' one). */
const EXCLUSIVE_LOCK_KEY = 7_301_946_125_114

/**
 * A Storage over an open (and migrated) pool; `url` names it in logs and `/readyz`. With `timeoutMs`, statements and
 * transactions unanswered that long fail as 503 (`withDeadline`), but for exclusive transactions: they wait on purpose
 * (nodes starting together apply the bootstrap one after the other).
 */
export function postgresStorage(pool: SQL, url: string, timeoutMs?: number): Storage {
  const client = timeoutMs === undefined ? pool : withDeadline(pool, timeoutMs)
  const db = drizzle({ client, schema })
  const patient = timeoutMs === undefined ? db : drizzle({ client: pool, schema })
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
      return (options.exclusive ? patient : db).transaction(async (tx) => {
        // Held until this transaction ends; every exclusive transaction of every node waits for the same key.
        if (options.exclusive) await tx.execute(sql`SELECT pg_advisory_xact_lock(${EXCLUSIVE_LOCK_KEY})`)
        return work(tx as unknown as Db)
      })
    },
    close(): Promise<void> {
      closing ??= pool.close()
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
