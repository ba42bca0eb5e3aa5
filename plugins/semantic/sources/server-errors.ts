import { DataSourceUnavailableError, QueryTimeoutError, type SourceFailure } from '../errors'
import { QueryExecutionError, redact, type DataSource } from './data-source'
import type { Parameter } from './dialects/dialect'

interface DriverError {
  code?: string
  errno?: string | number
  message?: string
}

// Postgres SQLSTATEs that mean "the server is not there for you right now": class 08 (connection exception),
// admin shutdown / crash / cannot connect now (57P0x), too many connections (53300), and a source configured wrong:
// its login refused (class 28) or its database missing (3D000). None is the caller's query's fault.
const POSTGRES_UNAVAILABLE = /^(08|57P0|53300|28|3D000)/
// MySQL/MariaDB: too many connections, server gone / lost, server shutting down, unknown host; and the login or
// database refused: access denied (1044, 1045, 1698), host not allowed or blocked (1129, 1130), unknown database
// (1049), user connection limits (1203, 1226), an authentication method the client lacks (1251, 2059).
const MYSQL_UNAVAILABLE = new Set([
  1040, 1053, 1077, 2002, 2003, 2005, 2006, 2013, 1927, 1044, 1045, 1698, 1129, 1130, 1049, 1203, 1226, 1251, 2059,
])

/**
 * Turns a Bun.SQL error into the semantic layer's: a cancelled statement is a timeout, a connection problem
 * makes the source unavailable (the driver's message, URLs and passwords removed, is kept as its `reason` for the
 * log and `/readyz`; the caller gets the generic message, since it can name the host, port or user), and anything
 * else the database said about the SQL is an execution error with URLs and passwords removed.
 */
export function classifyServerError(error: unknown, deploymentId: number | undefined, timeoutMs: number): Error {
  if (error instanceof QueryTimeoutError || error instanceof DataSourceUnavailableError) return error
  const { code = '', errno, message = String(error) } = (error ?? {}) as DriverError
  if (code === 'ERR_POSTGRES_SERVER_ERROR') {
    const state = String(errno ?? '')
    if (state === '57014') return new QueryTimeoutError(timeoutMs)
    if (POSTGRES_UNAVAILABLE.test(state))
      return new DataSourceUnavailableError(deploymentId, redact(message), postgresFailure(state))
    // 42P01 undefined table, 42703 undefined column.
    return new QueryExecutionError(redact(message), state === '42P01' || state === '42703')
  }
  if (code === 'ERR_MYSQL_SERVER_ERROR') {
    const number = Number(errno)
    // 1969: max_statement_time exceeded (MariaDB); 3024: max_execution_time exceeded (MySQL).
    if (number === 1969 || number === 3024) return new QueryTimeoutError(timeoutMs)
    if (MYSQL_UNAVAILABLE.has(number))
      return new DataSourceUnavailableError(deploymentId, redact(message), mysqlFailure(number))
    // 1146 no such table, 1054 unknown column.
    return new QueryExecutionError(redact(message), number === 1146 || number === 1054)
  }
  if (/SYNTAX|INVALID_.*(PARAM|ARG)/i.test(code)) return new QueryExecutionError(redact(message))
  // The connection's handshake got no reply in time: a server that accepts connections but does not answer.
  if (/CONNECTION_TIMEOUT/i.test(code))
    return new DataSourceUnavailableError(deploymentId, redact(message), 'no answer')
  // Connection refused, closed, timed out, TLS or authentication problems: all "cannot reach the source".
  return new DataSourceUnavailableError(deploymentId, redact(message))
}

/** Rejects with a timeout when the database itself has not stopped the statement shortly after its limit. */
export function withDeadline<T>(
  work: Promise<T>,
  timeoutMs: number,
  onLate: () => void,
  deploymentId?: number,
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onLate()
      // The database's own limit would have stopped a slow statement by now and said so: it is not answering.
      reject(new QueryTimeoutError(timeoutMs, 'no answer', deploymentId))
    }, timeoutMs + 2_000)
  })
  return Promise.race([work, late]).finally(() => clearTimeout(timer))
}

/**
 * The `connect`, `query` and `health` of a server source (Postgres, MySQL) over its one way to run a statement:
 * every row is read so `totalRows` is exact, and at most `maxRows` go back.
 */
export function serverSourceMethods(
  run: (sql: string, params: Parameter[]) => Promise<unknown[][]>,
): Pick<DataSource, 'connect' | 'query' | 'health' | 'dataStamp'> {
  return {
    async connect() {
      await run('SELECT 1', [])
    },
    async query(sql, params, maxRows) {
      const rows = await run(sql, params)
      return { rows: rows.length > maxRows ? rows.slice(0, maxRows) : [...rows], totalRows: rows.length }
    },
    async health() {
      return run('SELECT 1', []).then(
        () => ({ ok: true as const }),
        // The kind of failure only: `/readyz` answers anyone, and the driver's text names users, databases and
        // hosts (it goes to the log with the failing query and at start).
        (error: Error) => ({ ok: false as const, error: failureOf(error) }),
      )
    },
    // Only the server knows when its tables change.
    dataStamp: () => undefined,
  }
}

/** The kind of a source's failure, for `/readyz`. */
export function failureOf(error: unknown): SourceFailure {
  return error instanceof DataSourceUnavailableError ? error.category : 'unreachable'
}

function postgresFailure(state: string): SourceFailure {
  if (state.startsWith('28')) return 'authentication failed'
  if (state === '3D000') return 'database not found'
  if (state.startsWith('57P0') || state === '53300') return 'not accepting connections'
  return 'unreachable'
}

function mysqlFailure(errno: number): SourceFailure {
  if ([1044, 1045, 1698, 1251, 2059].includes(errno)) return 'authentication failed'
  if (errno === 1049) return 'database not found'
  if ([1040, 1053, 1077, 1129, 1130, 1203, 1226].includes(errno)) return 'not accepting connections'
  return 'unreachable'
}
