import type { Storage } from '../../db/client'
import { createPostgresThreadStore } from './postgres-thread-store'
import { createSqliteThreadStore } from './sqlite-thread-store'
import type { ThreadStore } from './thread-store'

/** The thread store of the storage's dialect. */
export function createThreadStore(storage: Storage, clock: () => number): ThreadStore {
  return storage.dialect === 'postgres'
    ? createPostgresThreadStore(storage, clock)
    : createSqliteThreadStore(storage, clock)
}
