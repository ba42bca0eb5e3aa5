import { DataSourceUnavailableError } from '../errors'
import type { DataSource, DataSourceConfig } from './data-source'
import { mysqlDialect } from './dialects/mysql-dialect'
import { classifyServerError, serverSourceMethods, withDeadline } from './server-errors'
import { unconfiguredSource } from './unconfigured-source'

type Session = Awaited<ReturnType<Bun.SQL['reserve']>>

/** How long a new connection (its handshake and session set-up) may take before the database counts as silent. */
const CONNECT_TIMEOUT_MS = 5_000

/**
 * MySQL 8 and MariaDB through Bun's built-in client. MySQL has no start-up session settings, so this source keeps
 * its own pool of reserved connections, each set up once: read-only transactions, UTC, a server-side statement
 * limit (`max_statement_time` on MariaDB, `max_execution_time` on MySQL), the configured database, and decimal
 * division with 30 digits, so `1.0 * a / b` rounds like the other sources.
 */
export function createMysqlSource(config: DataSourceConfig, deploymentId?: number): DataSource {
  let client: Bun.SQL
  try {
    client = openMysqlClient(config)
  } catch (error) {
    return unconfiguredSource('mysql', mysqlDialect, deploymentId, error)
  }
  const idle: Session[] = []
  const waiting: Array<(session: Session) => void> = []
  let open = 0
  let closed = false

  const setUp = async (session: Session) => {
    const [[version]] = (await session.unsafe('SELECT VERSION()').values()) as string[][]
    const limit = /mariadb/i.test(version)
      ? `max_statement_time = ${config.queryTimeoutMs / 1000}`
      : `max_execution_time = ${config.queryTimeoutMs}`
    await session.unsafe(`SET SESSION ${limit}, time_zone = '+00:00', div_precision_increment = 30`)
    // LIKE's ESCAPE '\\' is written with a backslash escape; a server running with NO_BACKSLASH_ESCAPES reads it as two.
    await session.unsafe("SET SESSION sql_mode = REPLACE(@@SESSION.sql_mode, 'NO_BACKSLASH_ESCAPES', '')")
    await session.unsafe('SET SESSION TRANSACTION READ ONLY')
    if (config.schema) await session.unsafe(`USE ${mysqlDialect.quoteIdentifier(config.schema)}`)
  }

  const connect = async (): Promise<Session> => {
    const session = await client.reserve()
    try {
      await setUp(session)
    } catch (error) {
      session.release()
      throw error
    }
    return session
  }

  const acquire = async (): Promise<Session> => {
    const ready = idle.pop()
    if (ready) return ready
    if (open >= config.maxConnections) return new Promise((resolve) => waiting.push(resolve))
    open++
    const attempt = connect()
    let timer: ReturnType<typeof setTimeout> | undefined
    // Nothing else bounds this wait on a server that stopped answering: the driver's pool hands out no connection
    // while its others still wait on statements the server never answers (a /readyz check, say, whose session this
    // source gave up), and its connectionTimeout covers neither that nor the session set-up. Questions waited for as
    // long as the server slept (minutes), past every limit.
    const silent = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new DataSourceUnavailableError(
              deploymentId,
              `no reply to the connection within ${CONNECT_TIMEOUT_MS} ms`,
              'no answer',
            ),
          ),
        CONNECT_TIMEOUT_MS,
      )
    })
    try {
      return await Promise.race([attempt, silent])
    } catch (error) {
      open--
      // A connection that comes after all is let go.
      attempt.then(
        (session) => session.release(),
        () => {},
      )
      throw error
    } finally {
      clearTimeout(timer)
    }
  }

  const release = (session: Session, broken: boolean) => {
    if (broken || closed) {
      open--
      session.release()
      // A waiter gets a fresh connection instead (or the error of trying).
      const next = waiting.shift()
      if (next) acquire().then(next, () => waiting.unshift(next))
      return
    }
    const next = waiting.shift()
    if (next) next(session)
    else idle.push(session)
  }

  const run = async (sql: string, params: unknown[]): Promise<unknown[][]> => {
    let session: Session
    try {
      session = await acquire()
    } catch (error) {
      throw classifyServerError(error, deploymentId, config.queryTimeoutMs)
    }
    let broken = false
    try {
      return (await withDeadline(
        session.unsafe(sql, params).values() as Promise<unknown[][]>,
        config.queryTimeoutMs,
        () => (broken = true),
        deploymentId,
      )) as unknown[][]
    } catch (error) {
      const classified = classifyServerError(error, deploymentId, config.queryTimeoutMs)
      // Only an error the server answered leaves the connection usable.
      broken ||=
        (error as { code?: string }).code !== 'ERR_MYSQL_SERVER_ERROR' ||
        classified.name === 'DataSourceUnavailableError'
      throw classified
    } finally {
      release(session, broken)
    }
  }

  return {
    type: 'mysql',
    dialect: mysqlDialect,
    ...serverSourceMethods(run),
    async close() {
      closed = true
      for (const session of idle.splice(0)) session.release()
      await client.close({ timeout: 1 })
    },
  }
}

/** The client of a MySQL source, not connected yet; throws for a URL or setting the driver refuses, as Postgres's. */
export function openMysqlClient(config: DataSourceConfig): Bun.SQL {
  return new Bun.SQL(
    config.url as string,
    { max: config.maxConnections, connectionTimeout: 5, idleTimeout: 60 } as Bun.SQL.Options,
  )
}
