import type { SqliteConnection } from '../sqlite/sqlite-connection'
import type { Repositories } from '.'
import { sqliteCatalogStatements, sqliteSessionStatements, sqliteUserStatements } from './embed/sqlite'
import { sqliteThreadPolicies } from './thread-policies/sqlite'
import { createSqliteThreadStore } from './threads/sqlite'

/** The repositories of a SQLite storage: bun:sqlite statements on its one connection. */
export function sqliteRepositories(connection: SqliteConnection): Repositories {
  const { sqlite } = connection
  return {
    threads: (clock) => createSqliteThreadStore(connection, clock),
    threadPolicies: () => sqliteThreadPolicies(sqlite),
    embedSessions: () => sqliteSessionStatements(sqlite),
    embedCatalog: () => sqliteCatalogStatements(sqlite),
    embedUsers: () => sqliteUserStatements(sqlite),
  }
}
