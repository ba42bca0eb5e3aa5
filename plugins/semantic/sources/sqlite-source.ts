import { existsSync } from 'node:fs'
import { DataSourceUnavailableError } from '../errors'
import type { DataSource } from './data-source'
import { sqliteDialect } from './dialects/sqlite-dialect'
import type { QueryPool } from './query-pool'

/**
 * A SQLite file, read through the shared pool of query workers: read-only connections (`query_only`, statements
 * checked read-only), and a query past its limit is stopped by terminating its worker (bun:sqlite has no
 * statement timeout or interrupt).
 */
export function createSqliteSource(options: {
  path: string
  pool: QueryPool
  queryTimeoutMs: number
  deploymentId?: number
}): DataSource {
  const { path, pool } = options
  const ensure = () => {
    // A missing file is an unreachable source, not an empty database: opening it read-only would fail anyway.
    if (!existsSync(path))
      throw new DataSourceUnavailableError(options.deploymentId, `${path} not found`, 'database file not found')
  }
  return {
    type: 'sqlite',
    dialect: sqliteDialect,
    async connect() {
      ensure()
    },
    async query(sql, params, maxRows) {
      ensure()
      return pool.run(
        { path, sql, params: params.map((value) => (typeof value === 'boolean' ? Number(value) : value)), maxRows },
        options.queryTimeoutMs,
      )
    },
    async health() {
      return existsSync(path) ? { ok: true } : { ok: false, error: 'database file not found' }
    },
    async close() {},
  }
}
