import { SQL } from 'bun'
import { sql } from 'drizzle-orm'
import { drizzle, type BunSQLQueryResultHKT } from 'drizzle-orm/bun-sql'
import type { PgDatabase } from 'drizzle-orm/pg-core'
import type { Db, Storage, Tables, TransactionOptions } from '../client'
import { migratePostgres } from './migrate-postgres'
import { withDeadline } from './postgres-deadline'
import { connectPostgres, withoutPassword } from './postgres-connect'
import { postgresRepositories } from '../repositories/postgres'
import * as schema from '../schema-pg'
import { POSTGRES_TEXT } from '../text-rules'

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
 * The one place the Postgres query builder is handed out as the shared one (`Db`, `Tables`, typed from SQLite's). The
 * rule that makes it sound: the Postgres tables (`db/schema-pg`) mirror the SQLite ones (`db/schema`) property for
 * property, column for column, with the same JavaScript values (checked by `test/db/schema-parity.test.ts`); shared
 * code always awaits its queries and never calls the SQLite-only `.get()`, `.all()` or `.run()`, the one place the two
 * builders' types differ. Anything Postgres alone can say is written in `db/` against the Postgres types.
 */
const mirrored = {
  builder: (postgres: PgDatabase<BunSQLQueryResultHKT, typeof schema>) => postgres as unknown as Db,
  tables: schema as unknown as Tables,
}

/**
 * A Storage over an open (and migrated) pool; `url` names it in logs and `/readyz`. With `timeoutMs`, statements and
 * transactions unanswered that long fail as 503 (`withDeadline`), but for exclusive transactions: they wait on purpose
 * (nodes starting together apply the bootstrap one after the other).
 */
export function postgresStorage(pool: SQL, url: string, timeoutMs?: number): Storage {
  const client = timeoutMs === undefined ? pool : withDeadline(pool, timeoutMs)
  const postgres = drizzle({ client, schema })
  const patient = timeoutMs === undefined ? postgres : drizzle({ client: pool, schema })
  const db = mirrored.builder(postgres)
  let closing: Promise<void> | undefined
  return {
    dialect: 'postgres',
    db,
    tables: mirrored.tables,
    path: withoutPassword(url),
    text: POSTGRES_TEXT,
    repositories: postgresRepositories(client, db, mirrored.tables),
    readinessChecks: {
      // After a failover the old primary may come back as a read-only standby: it answers, but every write fails.
      async postgres() {
        const [row]: Array<{ standby: boolean }> = await client.unsafe('SELECT pg_is_in_recovery() AS standby')
        if (row?.standby) throw new Error('the Postgres server is a read-only standby')
      },
    },
    transaction<T>(work: (tx: Db) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
      return (options.exclusive ? patient : postgres).transaction(async (tx) => {
        // Held until this transaction ends; every exclusive transaction of every node waits for the same key.
        if (options.exclusive) await tx.execute(sql`SELECT pg_advisory_xact_lock(${EXCLUSIVE_LOCK_KEY})`)
        return work(mirrored.builder(tx))
      })
    },
    // Each statement takes a connection of the pool, which sees only committed rows.
    readCommitted: (work) => work(db),
    close(): Promise<void> {
      closing ??= pool.close()
      return closing
    },
  }
}
