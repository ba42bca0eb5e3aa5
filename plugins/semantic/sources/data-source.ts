import type { Dialect, Parameter } from './dialects/dialect'

export type DataSourceType = 'sqlite' | 'postgres' | 'mysql' | 'duckdb'

/** A deployment's data source with `${NAME}` references already read from the environment. */
export interface DataSourceConfig {
  type: DataSourceType
  /** `postgres://` or `mysql://` (server sources). */
  url?: string
  /** A database file (sqlite, duckdb). */
  path?: string
  /** The schema (Postgres, DuckDB) or database (MySQL) unqualified table names resolve in. */
  schema?: string
  maxConnections: number
  queryTimeoutMs: number
  /**
   * Why no client can be built from it (a URL of another kind, one that does not parse): the start goes on, and its
   * deployment answers 503 `DATA_SOURCE_UNAVAILABLE` with `/readyz` saying `invalid configuration`.
   */
  invalid?: string
}

export const DEFAULT_MAX_CONNECTIONS = 10
export const DEFAULT_QUERY_TIMEOUT_MS = 30_000

export interface QueryOutput {
  /** At most `maxRows` rows, each value as the driver returned it (normalised by `formatValue`). */
  rows: unknown[][]
  /** Every row the query produced. */
  totalRows: number
}

export type SourceHealth = { ok: true } | { ok: false; error: string }

/**
 * One database the semantic layer reads. Implementations pool their connections, open them read-only where the
 * database allows it, stop a statement past `queryTimeoutMs` in the database, and throw only
 * `DataSourceUnavailableError` (cannot connect; retried at the next query), `QueryTimeoutError` or
 * `QueryExecutionError` (the database refused the SQL), with messages that never carry a URL or password.
 */
export interface DataSource {
  readonly type: DataSourceType
  readonly dialect: Dialect
  /** Opens the pool (idempotent); rejects while the database cannot be reached. */
  connect(): Promise<void>
  /** Runs one compiled, read-only `SELECT` with bound parameters. */
  query(sql: string, params: Parameter[], maxRows: number): Promise<QueryOutput>
  /** Whether a trivial query answers now. Never throws. */
  health(): Promise<SourceHealth>
  /**
   * A stamp of the data, read without asking the database (a file's size and time), that changes whenever a query
   * could answer differently; undefined when the source cannot tell (a database server, or the files a DuckDB query
   * reads), so answers from it are kept only briefly. Never throws.
   */
  dataStamp(): string | undefined
  /** Closes every connection; later queries fail. */
  close(): Promise<void>
}

/** A failure inside the database (a model with broken SQL, say): a server-side problem, not the caller's. */
export class QueryExecutionError extends Error {
  constructor(
    message: string,
    /** The database has no table or column of that name: the model and its database disagree. */
    readonly missingObject = false,
  ) {
    super(message)
  }
}

/** Removes anything shaped like a connection URL or a password setting from a driver's message. */
export function redact(message: string): string {
  return (
    message
      .replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s'"]+/gi, '<url>')
      // A value ends at a space, a quote or a closing bracket. MySQL's "(using password: YES)" tells no secret and
      // stays whole: cutting it left "(using password=" without its bracket.
      .replace(/(password|passwd|pwd)\s*[=:]\s*(?!(?:YES|NO)\))[^\s'")\]},;]+/gi, '$1=<hidden>')
  )
}
