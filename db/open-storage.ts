import type { Storage } from './client'
import { openStorage } from './sqlite/sqlite-storage'

export interface StorageTarget {
  /** The SQLite file, used when no `databaseUrl` is given. */
  dbPath: string
  /** `postgres://...`: the service's state lives in Postgres instead. */
  databaseUrl?: string
  databasePoolSize?: number
  databaseTimeoutMs?: number
}

/** Opens and migrates the configured storage: Postgres when a database URL is set, else the SQLite file. */
export async function openConfiguredStorage(target: StorageTarget): Promise<Storage> {
  if (target.databaseUrl) {
    // Loaded only here: a node on SQLite never evaluates the Postgres schema and query builder (start-up time).
    const { openPostgresStorage } = await import('./postgres/postgres-storage')
    return openPostgresStorage(target.databaseUrl, {
      poolSize: target.databasePoolSize,
      timeoutMs: target.databaseTimeoutMs,
    })
  }
  return openStorage(target.dbPath)
}
