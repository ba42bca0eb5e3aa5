import type { SQL } from 'bun'
import type { Db, Tables } from '../query-builder'
import type { Repositories } from '.'
import { postgresCatalogStatements, postgresSessionStatements, postgresUserStatements } from './embed/postgres'
import { postgresThreadPolicies } from './thread-policies/postgres'
import { createPostgresThreadStore } from './threads/postgres'

/**
 * The repositories of a Postgres storage: the thread store on Bun's SQL client `client` (the pool, with the storage's
 * deadline), the rest as drizzle queries over the storage's query builder `db` and `tables`.
 */
export function postgresRepositories(client: SQL, db: Db, tables: Tables): Repositories {
  return {
    threads: (clock) => createPostgresThreadStore(client, clock),
    threadPolicies: () => postgresThreadPolicies(db, tables),
    embedSessions: () => postgresSessionStatements(tables),
    embedCatalog: () => postgresCatalogStatements(tables),
    embedUsers: () => postgresUserStatements(tables),
  }
}
