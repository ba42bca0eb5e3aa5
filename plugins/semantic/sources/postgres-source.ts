import type { DataSource, DataSourceConfig } from './data-source'
import { postgresDialect } from './dialects/postgres-dialect'
import { classifyServerError, serverSourceMethods, withDeadline } from './server-errors'

/**
 * Postgres through Bun's built-in client. Session settings travel in the connection's start-up message, so every
 * pooled connection (and every reconnection) is read-only, in UTC, with a statement timeout the server enforces,
 * and resolves unqualified names in the configured schema.
 */
export function createPostgresSource(config: DataSourceConfig, deploymentId?: number): DataSource {
  const connection: Record<string, string> = {
    default_transaction_read_only: 'on',
    statement_timeout: String(config.queryTimeoutMs),
    TimeZone: 'UTC',
    application_name: 'analytics-chat-service',
  }
  if (config.schema) connection.search_path = config.schema
  const client = new Bun.SQL(
    config.url as string,
    {
      max: config.maxConnections,
      // Fail fast while the database is down: the caller hears 503 instead of waiting on a connection.
      connectionTimeout: 5,
      idleTimeout: 60,
      connection,
    } as Bun.SQL.Options,
  )
  const run = async (sql: string, params: unknown[]) => {
    try {
      return await withDeadline(
        client.unsafe(sql, params).values() as Promise<unknown[][]>,
        config.queryTimeoutMs,
        () => {},
      )
    } catch (error) {
      throw classifyServerError(error, deploymentId, config.queryTimeoutMs)
    }
  }
  return {
    type: 'postgres',
    dialect: postgresDialect,
    ...serverSourceMethods(run),
    async close() {
      await client.close({ timeout: 1 })
    },
  }
}
