import { redact, type DataSource, type DataSourceConfig } from './data-source'
import { createMysqlSource, openMysqlClient } from './mysql-source'
import { createPostgresSource, openPostgresClient } from './postgres-source'
import type { QueryPool } from './query-pool'
import { createSqliteSource } from './sqlite-source'
import { unconfiguredSource } from './unconfigured-source'
import type { Dialect } from './dialects/dialect'
import { postgresDialect } from './dialects/postgres-dialect'
import { mysqlDialect } from './dialects/mysql-dialect'
import { sqliteDialect } from './dialects/sqlite-dialect'
import { duckdbDialect } from './dialects/duckdb-dialect'

const DIALECTS: Record<DataSourceConfig['type'], Dialect> = {
  postgres: postgresDialect,
  mysql: mysqlDialect,
  sqlite: sqliteDialect,
  duckdb: duckdbDialect,
}

/**
 * The data source of one configuration. DuckDB's module (a native library) is loaded only here, when a DuckDB
 * source is configured, so a server without DuckDB sources never needs it.
 */
export function createDataSource(
  config: DataSourceConfig,
  options: { pool: QueryPool; deploymentId?: number },
): DataSource {
  // A URL no client can be made of: the deployment reports it, the start goes on.
  if (config.invalid !== undefined)
    return unconfiguredSource(
      config.type,
      DIALECTS[config.type],
      options.deploymentId,
      new Error(`dataSource.url: ${config.invalid}`),
    )
  switch (config.type) {
    case 'postgres':
      return createPostgresSource(config, options.deploymentId)
    case 'mysql':
      return createMysqlSource(config, options.deploymentId)
    case 'sqlite':
      return createSqliteSource({
        path: config.path as string,
        pool: options.pool,
        queryTimeoutMs: config.queryTimeoutMs,
        deploymentId: options.deploymentId,
      })
    case 'duckdb': {
      const { createDuckdbSource } = require('./duckdb-source') as typeof import('./duckdb-source')
      return createDuckdbSource(config, options.deploymentId)
    }
  }
}

/**
 * What the driver refuses in a configuration (`sslmode=bogus`, say), found by building its client as the server
 * builds it, without connecting; undefined when it takes it. Without URLs or passwords. Such a source does not stop
 * the start (its deployment reports it unavailable), so `check-config` is where an operator hears of it first.
 */
export async function configurationProblem(config: DataSourceConfig): Promise<string | undefined> {
  if (config.invalid !== undefined) return config.invalid
  const open = config.type === 'postgres' ? openPostgresClient : config.type === 'mysql' ? openMysqlClient : undefined
  if (!open) return undefined
  let client: Bun.SQL
  try {
    client = open(config)
  } catch (error) {
    return redact((error as Error)?.message ?? String(error))
  }
  await client.close({ timeout: 0 }).catch(() => {})
  return undefined
}
