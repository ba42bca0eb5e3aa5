import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api'
import { existsSync } from 'node:fs'
import { DataSourceUnavailableError, QueryTimeoutError } from '../errors'
import { QueryExecutionError, redact, type DataSource, type DataSourceConfig } from './data-source'
import { duckdbDialect } from './dialects/duckdb-dialect'
import { duckdb } from './duckdb-module'
import { failureOf } from './server-errors'

/**
 * A DuckDB file (models may read Parquet and CSV files from their `sql`), opened in read-only access mode. DuckDB
 * runs in this process: a pool of connections on one database instance, and a query past its limit is interrupted
 * (`connection.interrupt()`), which stops it inside DuckDB. Loaded only when a DuckDB source is configured.
 */
export function createDuckdbSource(config: DataSourceConfig, deploymentId?: number): DataSource {
  const path = config.path as string
  let instance: Promise<DuckDBInstance> | undefined
  const idle: DuckDBConnection[] = []
  const waiting: Array<(connection: DuckDBConnection) => void> = []
  let open = 0

  const database = () => {
    instance ??= (async () => {
      if (!existsSync(path))
        throw new DataSourceUnavailableError(deploymentId, `${path} not found`, 'database file not found')
      return duckdb().DuckDBInstance.create(path, { access_mode: 'READ_ONLY' })
    })().catch((error: unknown) => {
      // Retried at the next query (the file may appear, or its writer may let go of it).
      instance = undefined
      throw error instanceof DataSourceUnavailableError
        ? error
        : new DataSourceUnavailableError(deploymentId, redact((error as Error).message))
    })
    return instance
  }

  const acquire = async (): Promise<DuckDBConnection> => {
    const ready = idle.pop()
    if (ready) return ready
    if (open >= config.maxConnections) return new Promise((resolve) => waiting.push(resolve))
    open++
    try {
      const connection = await (await database()).connect()
      try {
        // Integer division as SQLite and Postgres divide integers; the schema unqualified names resolve in.
        await connection.run('SET integer_division = true')
        // Times with a zone (`timestamptz`) read, and truncate, in UTC as on every source, whatever the machine's zone.
        await connection.run("SET TimeZone = 'UTC'").catch(() => {})
        if (config.schema)
          await connection.run(`SET schema = '${config.schema.replace(/'/g, "''")}'`).catch((error: Error) => {
            throw new DataSourceUnavailableError(deploymentId, redact(error.message), 'schema not found')
          })
        return connection
      } catch (error) {
        // A connection set up wrong is no connection of the pool: the source is configured wrong, not the query.
        connection.closeSync()
        throw error instanceof DataSourceUnavailableError
          ? error
          : new DataSourceUnavailableError(deploymentId, redact((error as Error).message))
      }
    } catch (error) {
      open--
      throw error
    }
  }

  const release = (connection: DuckDBConnection) => {
    const next = waiting.shift()
    if (next) next(connection)
    else idle.push(connection)
  }

  const run = async (sql: string, params: Array<string | number | boolean | null>): Promise<unknown[][]> => {
    const connection = await acquire()
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      connection.interrupt()
    }, config.queryTimeoutMs)
    try {
      const reader = await connection.runAndReadAll(
        sql,
        params.length > 0 ? params.map((value) => value ?? null) : undefined,
      )
      // JSON-ready values: decimals and big integers as text, timestamps as `YYYY-MM-DD HH:MM:SS`.
      return reader.getRowsJson() as unknown[][]
    } catch (error) {
      if (timedOut || /INTERRUPT/i.test((error as Error).message)) throw new QueryTimeoutError(config.queryTimeoutMs)
      const message = (error as Error).message
      throw new QueryExecutionError(
        redact(message),
        /^(Catalog Error: Table with name .* does not exist|Binder Error: Referenced column .* not found)/.test(
          message,
        ),
      )
    } finally {
      clearTimeout(timer)
      release(connection)
    }
  }

  return {
    type: 'duckdb',
    dialect: duckdbDialect,
    async connect() {
      await run('SELECT 1', [])
    },
    async query(sql, params, maxRows) {
      const rows = await run(sql, params)
      return { rows: rows.length > maxRows ? rows.slice(0, maxRows) : rows, totalRows: rows.length }
    },
    async health() {
      return run('SELECT 1', []).then(
        () => ({ ok: true as const }),
        // The kind of failure only: `/readyz` answers anyone, and a driver's text may name the file.
        (error: Error) => ({ ok: false as const, error: failureOf(error) }),
      )
    },
    // The database file is held read-only, but a model's `sql` may read Parquet or CSV files that change.
    dataStamp: () => undefined,
    async close() {
      for (const connection of idle.splice(0)) connection.closeSync()
      const opened = instance
      instance = undefined
      if (opened) (await opened.catch(() => undefined))?.closeSync()
    },
  }
}
