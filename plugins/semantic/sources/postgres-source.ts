import type { DataSource, DataSourceConfig } from './data-source'
import { postgresDialect } from './dialects/postgres-dialect'
import { classifyServerError, serverSourceMethods, withDeadline } from './server-errors'
import { unconfiguredSource } from './unconfigured-source'

/**
 * Postgres through Bun's built-in client. Session settings travel in the connection's start-up message, so every
 * pooled connection (and every reconnection) is read-only, in UTC, with a statement timeout the server enforces,
 * and resolves unqualified names in the configured schema.
 */
export function createPostgresSource(config: DataSourceConfig, deploymentId?: number): DataSource {
  let client: Bun.SQL
  try {
    client = openPostgresClient(config)
  } catch (error) {
    return unconfiguredSource('postgres', postgresDialect, deploymentId, error)
  }
  const run = async (sql: string, params: unknown[]) => {
    try {
      return await withDeadline(
        client.unsafe(sql, params).values() as Promise<unknown[][]>,
        config.queryTimeoutMs,
        () => {},
        deploymentId,
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

/**
 * The pooled client of a Postgres source, not connected yet. Throws (a `TypeError` from the driver) for a URL or
 * setting it refuses, such as `sslmode=bogus`: `check-config` builds it the same way to find those.
 */
export function openPostgresClient(config: DataSourceConfig): Bun.SQL {
  const connection: Record<string, string> = {
    default_transaction_read_only: 'on',
    statement_timeout: String(config.queryTimeoutMs),
    TimeZone: 'UTC',
    application_name: 'analytics-chat-service',
  }
  // One schema, quoted as an identifier: unquoted, Postgres would fold `Sales` to `sales` and refuse `Sales Data`.
  if (config.schema) connection.search_path = `"${config.schema.replace(/"/g, '""')}"`
  return new Bun.SQL(
    config.url as string,
    {
      max: config.maxConnections,
      // Fail fast while the database is down: the caller hears 503 instead of waiting on a connection.
      connectionTimeout: 5,
      idleTimeout: 60,
      connection,
    } as Bun.SQL.Options,
  )
}
