import type { DataSource, DataSourceConfig } from './data-source'
import { postgresDialect } from './dialects/postgres-dialect'
import { DataSourceUnavailableError } from '../errors'
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
      const classified = classifyServerError(error, deploymentId, config.queryTimeoutMs)
      // Postgres takes a search_path naming no schema without a word, and then finds no table: the source is
      // configured wrong (as a missing database is), not the caller's query.
      if (undefinedTable(error) && (await schemaMissing())) throw schemaNotFound()
      throw classified
    }
  }
  // `current_schema()` is null when no schema of the search_path exists.
  const schemaMissing = async () =>
    config.schema !== undefined &&
    (await client
      .unsafe('SELECT current_schema() IS NULL')
      .values()
      .then((rows: unknown[][]) => rows[0]?.[0] === true)
      .catch(() => false))
  const schemaNotFound = () =>
    new DataSourceUnavailableError(deploymentId, `schema ${config.schema} not found`, 'schema not found')
  const methods = serverSourceMethods(run)
  return {
    type: 'postgres',
    dialect: postgresDialect,
    ...methods,
    async connect() {
      await methods.connect()
      if (await schemaMissing()) throw schemaNotFound()
    },
    async health() {
      const health = await methods.health()
      return health.ok && (await schemaMissing()) ? { ok: false, error: 'schema not found' } : health
    },
    async close() {
      await client.close({ timeout: 1 })
    },
  }
}

/** Postgres's "relation does not exist" (SQLSTATE 42P01). */
function undefinedTable(error: unknown): boolean {
  const { code, errno } = (error ?? {}) as { code?: string; errno?: string }
  return code === 'ERR_POSTGRES_SERVER_ERROR' && String(errno) === '42P01'
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
  // The schema quoted as an identifier: unquoted, Postgres would fold `Sales` to `sales` and refuse `Sales Data`.
  // Then its name in lower case, as an unquoted `CREATE SCHEMA Sales` made it, which the name as written once found.
  if (config.schema) {
    const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`
    const lower = config.schema.toLowerCase()
    connection.search_path = lower === config.schema ? quoted(lower) : `${quoted(config.schema)}, ${quoted(lower)}`
  }
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
