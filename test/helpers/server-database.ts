import { join } from 'node:path'
import type { Storage } from '../../db/client'
import { openStorage } from '../../db/sqlite/sqlite-storage'
import { openPostgresStorage } from '../../db/postgres/postgres-storage'
import { testStorage } from './bootstrapped-postgres'
import { throwawayPostgresDatabase } from './postgres-databases'

/** Where a server process started by a test keeps its state, kept across its restarts. */
export interface ServerDatabase {
  /** The server's environment for it: `DB_PATH`, or `DATABASE_URL` with `TEST_STORAGE=postgres`. */
  env: Record<string, string>
  /** Whether it is a SQLite file, whose bytes and integrity a test may check itself. */
  dialect: 'sqlite' | 'postgres'
  /** A storage on the same database, as another process next to the server would open it; the caller closes it. */
  open(): Promise<Storage>
  /** Drops the Postgres database (a SQLite file goes with the test's folder). */
  drop(): Promise<void>
}

/**
 * A new, empty database for a server process, of the run's kind: the file `name`.db in `folder`, or a Postgres
 * database of its own on the run's server. The server migrates and bootstraps it when it starts, as in production.
 */
export async function serverDatabase(folder: string, name = 'service'): Promise<ServerDatabase> {
  const path = join(folder, `${name}.db`)
  if (testStorage !== 'postgres')
    return {
      env: { DB_PATH: path },
      dialect: 'sqlite',
      open: async () => openStorage(path),
      drop: async () => undefined,
    }
  const database = await throwawayPostgresDatabase()
  return {
    // DB_PATH as well, so a server that wrongly fell back to SQLite would not write into the working folder.
    env: { DATABASE_URL: database.url, DB_PATH: path },
    dialect: 'postgres',
    open: () => openPostgresStorage(database.url, { poolSize: 2 }),
    drop: () => database.drop(),
  }
}
