import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs'
import { DataSourceUnavailableError } from '../errors'
import type { DataSource } from './data-source'
import { sqliteDialect } from './dialects/sqlite-dialect'
import { UnreadableFileError, type QueryPool } from './query-pool'

const HEADER = 'SQLite format 3\0'

/**
 * Whether the file can be a SQLite database, read here without the query processes (so `/readyz` never waits
 * behind queries): an empty file (SQLite takes it as an empty database) or one that starts with SQLite's header.
 */
function readable(path: string): boolean {
  let fd: number | undefined
  try {
    fd = openSync(path, 'r')
    const header = Buffer.alloc(HEADER.length)
    const read = readSync(fd, header, 0, header.length, 0)
    return read === 0 || header.toString('latin1') === HEADER
  } catch {
    // A folder, a file this user may not read, ...
    return false
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

/**
 * The size and modification time of a file and of its write-ahead log: a writer's commit changes one of them (the
 * log while it is in WAL mode, the file itself otherwise or at a checkpoint).
 */
function fileStamp(path: string): string {
  const of = (file: string) => {
    try {
      const stat = statSync(file, { throwIfNoEntry: false })
      return stat ? `${stat.size}@${stat.mtimeMs}` : '-'
    } catch {
      // Not there for this user: the query will say so.
      return '?'
    }
  }
  return `${of(path)}/${of(`${path}-wal`)}`
}

/**
 * A SQLite file, read through the shared pool of query workers: read-only connections (`query_only`, statements
 * checked read-only), and a query past its limit is stopped by terminating its worker (bun:sqlite has no
 * statement timeout or interrupt). A missing file, or one that is no database, makes the source unavailable (503
 * and `/readyz`), not the query invalid.
 */
export function createSqliteSource(options: {
  path: string
  pool: QueryPool
  queryTimeoutMs: number
  deploymentId?: number
}): DataSource {
  const { path, pool } = options
  const ensure = () => {
    // A missing file is an unreachable source, not an empty database: opening it read-only would fail anyway.
    if (!existsSync(path))
      throw new DataSourceUnavailableError(options.deploymentId, `${path} not found`, 'database file not found')
  }
  const unreadable = (reason: string) =>
    new DataSourceUnavailableError(options.deploymentId, `${path}: ${reason}`, 'not a database file')
  return {
    type: 'sqlite',
    dialect: sqliteDialect,
    async connect() {
      ensure()
      if (!readable(path)) throw unreadable('not a SQLite database, or not readable')
    },
    async query(sql, params, maxRows) {
      ensure()
      return pool
        .run(
          { path, sql, params: params.map((value) => (typeof value === 'boolean' ? Number(value) : value)), maxRows },
          options.queryTimeoutMs,
        )
        .catch((error: unknown) => {
          // "file is not a database", "disk I/O error": the source is broken, whatever the query.
          throw error instanceof UnreadableFileError ? unreadable(error.message) : error
        })
    },
    async health() {
      if (!existsSync(path)) return { ok: false, error: 'database file not found' }
      return readable(path) ? { ok: true } : { ok: false, error: 'not a database file' }
    },
    dataStamp: () => fileStamp(path),
    async close() {},
  }
}
