import type { Storage } from '../../db/client'
import { openStorage } from '../../db/sqlite/sqlite-storage'
import { openPostgresStorage } from '../../db/postgres/postgres-storage'
import { throwawayPostgresDatabase } from './postgres-databases'

/**
 * A fresh, migrated, empty storage of one dialect, and how to throw it away. A contract over the service's own state
 * runs on `sqliteKind` in the fast tier and on `postgresKind` in a twin file under test/e2e/.
 */
export interface StorageKind {
  name: 'SQLite' | 'Postgres'
  open(): Promise<{ storage: Storage; dispose(): Promise<void> }>
}

export const sqliteKind: StorageKind = {
  name: 'SQLite',
  async open() {
    const storage = openStorage(':memory:')
    return { storage, dispose: () => storage.close() }
  },
}

/** A database of its own on the run's Postgres server, dropped on dispose. */
export const postgresKind: StorageKind = {
  name: 'Postgres',
  async open() {
    const database = await throwawayPostgresDatabase()
    const storage = await openPostgresStorage(database.url, { poolSize: 4 }).catch(async (error) => {
      await database.drop()
      throw error
    })
    return {
      storage,
      async dispose() {
        await storage.close()
        await database.drop()
      },
    }
  },
}
