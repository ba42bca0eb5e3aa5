import type { DataSource, DataSourceConfig } from './data-source'
import { createMysqlSource } from './mysql-source'
import { createPostgresSource } from './postgres-source'
import type { QueryPool } from './query-pool'
import { createSqliteSource } from './sqlite-source'

/**
 * The data source of one configuration. DuckDB's module (a native library) is loaded only here, when a DuckDB
 * source is configured, so a server without DuckDB sources never needs it.
 */
export function createDataSource(
  config: DataSourceConfig,
  options: { pool: QueryPool; deploymentId?: number },
): DataSource {
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
