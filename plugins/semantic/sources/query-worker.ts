/**
 * Runs compiled queries on read-only connections to SQLite files, in a child process of the server started by
 * `QueryPool`, so a query past its time limit is stopped by killing the process. Nothing less stops it: bun:sqlite
 * has no statement timeout, interrupt or progress handler, and terminating a Worker thread does not stop a
 * statement inside SQLite (the thread kept a core busy until the statement ended, minutes later).
 * From source this file is the child's script; the compiled binary runs it through `main.ts`.
 */
import { Database } from 'bun:sqlite'
import { dlopen } from 'bun:ffi'
import type { WorkerReply, WorkerRequest } from './query-pool'
import { UNICODE_LOWER, UNICODE_LOWER_OPTIONS, unicodeLower } from '../../../lib/unicode-lower'

/**
 * How long a read waits on another connection's lock: long enough for a writer's checkpoint, short enough that a
 * file a program keeps locked is an error rather than a query stopped (and its process restarted) at its limit.
 */
const BUSY_TIMEOUT_MS = 5_000

const connections = new Map<string, Database>()

// The file itself is the problem, not the query: not a database, corrupt, unreadable (a folder, say) or not openable.
const FILE_FAILURE = /^SQLITE_(NOTADB|CORRUPT|CANTOPEN|IOERR|PERM|AUTH)/

function connection(path: string): Database {
  let database = connections.get(path)
  if (!database) {
    database = new Database(path, { readonly: true })
    // A file another program writes in WAL mode is locked for moments (its writer checkpointing as it closes, a
    // recovery): wait them out instead of answering "database is locked". The query's own time limit still holds.
    database.run(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`)
    // Belt and braces on top of the read-only open: this connection can never write, attach or load anything.
    database.run('PRAGMA query_only = ON')
    // SQLite's lower() lowers ASCII only: 'ZÜRICH' ILIKE 'zü%' was false here and true on every other source.
    database.function(UNICODE_LOWER, UNICODE_LOWER_OPTIONS, unicodeLower)
    connections.set(path, database)
  }
  return database
}

function run(request: WorkerRequest): Exclude<WorkerReply, { ready: true }> {
  try {
    const statement = connection(request.path).query(request.sql)
    if (!statement.readonly) return { id: request.id, ok: false, error: 'Refused a statement that is not read-only' }
    const rows: unknown[][] = []
    let totalRows = 0
    for (const row of statement.iterate(...(request.params as Array<string | number | null>))) {
      totalRows++
      if (rows.length < request.maxRows) rows.push(Object.values(row as Record<string, unknown>))
    }
    return { id: request.id, ok: true, rows, totalRows }
  } catch (error) {
    const { code, message } = error as { code?: string; message: string }
    if (typeof code === 'string' && FILE_FAILURE.test(code)) {
      // Opened again at the next query, so a file mended meanwhile is read afresh.
      connections.get(request.path)?.close()
      connections.delete(request.path)
      return { id: request.id, ok: false, error: message, unavailable: true }
    }
    return { id: request.id, ok: false, error: message }
  }
}

/**
 * On Linux, asks the kernel to kill this process when the server dies, even in the middle of a statement (when
 * nothing here runs to notice). Elsewhere, or without glibc, the closed channel below is the only signal.
 */
function dieWithServer(): void {
  if (process.platform !== 'linux') return
  try {
    const PR_SET_PDEATHSIG = 1
    const SIGKILL = 9
    const libc = dlopen('libc.so.6', { prctl: { args: ['i32', 'u64', 'u64', 'u64', 'u64'], returns: 'i32' } })
    libc.symbols.prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0)
    libc.close()
  } catch {
    // No glibc (musl, say): the closed channel still ends an idle process.
  }
}

dieWithServer()
process.on('message', (request: WorkerRequest) => {
  process.send?.(run(request))
})
// The server closed the channel or went away: there is nobody left to answer.
process.on('disconnect', () => process.exit(0))
process.send?.({ ready: true } satisfies WorkerReply)
