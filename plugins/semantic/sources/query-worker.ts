/**
 * Runs compiled queries on read-only connections to data files, off the main thread, so a query past its time
 * limit can be stopped by terminating the worker (bun:sqlite has no statement timeout or interrupt).
 * Listed as an entry point of `npm run build`, so the compiled binary carries it.
 */
import { Database } from 'bun:sqlite'
import type { WorkerReply, WorkerRequest } from './query-pool'

const connections = new Map<string, Database>()

function connection(path: string): Database {
  let database = connections.get(path)
  if (!database) {
    database = new Database(path, { readonly: true })
    // Belt and braces on top of the read-only open: this connection can never write, attach or load anything.
    database.run('PRAGMA query_only = ON')
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
    return { id: request.id, ok: false, error: (error as Error).message }
  }
}

self.addEventListener('message', (event: MessageEvent<WorkerRequest>) => {
  self.postMessage(run(event.data))
})
self.postMessage({ ready: true } satisfies WorkerReply)
