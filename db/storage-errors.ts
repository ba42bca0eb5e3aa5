import { StorageUnavailableError } from '../lib/errors'

/*
 * Which storage errors mean "the database is not there" rather than anything about the statement, for every backend:
 * the routes and the chat turn ask this module, never a backend's own. SQLite is a file in the process and has no such
 * errors; a Postgres server can be stopped, restarted or unreachable.
 */

/*
 * What Bun.SQL throws when the server is not there: the connection is refused, closed (a server stopped with
 * `-m immediate`, a dropped network) or fails or times out before it is established. Errors about the SQL itself
 * are ERR_POSTGRES_SERVER_ERROR with their SQLSTATE, of which only those below mean the same thing.
 */
const UNREACHABLE_CODES = new Set([
  'ERR_POSTGRES_CONNECTION_REFUSED',
  'ERR_POSTGRES_CONNECTION_CLOSED',
  'ERR_POSTGRES_CONNECTION_FAILED',
  'ERR_POSTGRES_CONNECTION_TIMEOUT',
])
// Connection exceptions (class 08); admin shutdown (`pg_ctl stop -m fast`, a terminated backend), crash shutdown and
// "cannot connect now" while the server starts or stops (57P01-57P03); too many connections (53300).
const UNREACHABLE_STATES = /^(08|57P0[123]$|53300$)/

/**
 * A `StorageUnavailableError` when `error` says the Postgres server could not be reached or dropped the connection,
 * rather than anything about the statement (constraint violations, serialization failures and SQL errors stay as
 * they are: undefined). Looks through the `cause` of the query builder's wrapper, which holds the driver's error.
 */
export function asStorageUnavailable(error: unknown): StorageUnavailableError | undefined {
  if (error instanceof StorageUnavailableError) return error
  for (let current = error, depth = 0; current && typeof current === 'object' && depth < 5; depth++) {
    // A statement past its deadline (`postgres-deadline.ts`), wrapped by the query builder.
    if (current instanceof StorageUnavailableError) return current
    const { code, errno, message, cause } = current as DriverError
    const reason = () => `${String(message)} (${errno ? `${code} ${String(errno)}` : code})`
    if (typeof code === 'string' && UNREACHABLE_CODES.has(code)) return new StorageUnavailableError(reason())
    if (code === 'ERR_POSTGRES_SERVER_ERROR')
      return UNREACHABLE_STATES.test(String(errno ?? '')) ? new StorageUnavailableError(reason()) : undefined
    current = cause
  }
  return undefined
}

interface DriverError {
  code?: unknown
  errno?: unknown
  message?: unknown
  cause?: unknown
}
