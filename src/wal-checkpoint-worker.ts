/**
 * Checkpoints the service database's write-ahead log on its own connection, off the main thread: copying the log
 * into the database file (and the fsyncs around it) then never stalls the event loop. Listed as an entry point of
 * `npm run build`, so the compiled binary carries it. Started by `wal-checkpointer.ts`.
 */
import { Database } from 'bun:sqlite'
import type { CheckpointerMessage } from './wal-checkpointer'

let database: Database | undefined
let timer: ReturnType<typeof setInterval> | undefined

function checkpoint(mode: 'PASSIVE' | 'TRUNCATE'): void {
  try {
    // PASSIVE never waits for the main connection: what it cannot copy now is copied next time.
    database?.run(`PRAGMA wal_checkpoint(${mode})`)
  } catch (error) {
    self.postMessage({ type: 'error', message: (error as Error).message })
  }
}

self.addEventListener('message', (event: MessageEvent<CheckpointerMessage>) => {
  const message = event.data
  if (message.type === 'start') {
    database = new Database(message.path)
    database.run('PRAGMA busy_timeout = 1000')
    timer = setInterval(() => checkpoint('PASSIVE'), message.intervalMs)
    self.postMessage({ type: 'started' })
  } else {
    clearInterval(timer)
    checkpoint('PASSIVE')
    database?.close()
    database = undefined
    self.postMessage({ type: 'stopped' })
  }
})
