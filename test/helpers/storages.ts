import { openStorage, type Storage } from '../../db/client'
import { openPostgresStorage } from '../../db/postgres-storage'
import { postgresAvailable } from './database-servers'
import { throwawayPostgresDatabase } from './postgres-databases'

/** A fresh, migrated, empty storage of one dialect, and how to throw it away. */
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

/** The dialects a test about the service's own state runs on: SQLite always, Postgres where it is installed. */
export const storageKinds: StorageKind[] = postgresAvailable ? [sqliteKind, postgresKind] : [sqliteKind]
