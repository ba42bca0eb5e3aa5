import type { Storage } from '../db/client'
import type { Logger } from '../lib/logger'

export type CheckpointerMessage = { type: 'start'; path: string; intervalMs: number } | { type: 'stop' }
type WorkerReply = { type: 'started' | 'stopped' } | { type: 'error'; message: string }

/** Pages the main connection lets the log grow to before it checkpoints itself: a backstop if the worker stalls. */
const BACKSTOP_PAGES = 20_000

// In development the worker is the file beside this module; in the compiled binary (`npm run build` lists it as
// an entry point) it is found by its path from the entry points' common root, the project folder. The binary is told
// by its main script, embedded under `/$bunfs/`: with `--bytecode` this module's `import.meta.url` still names the
// source file, which exists only where the binary was built.
const COMPILED = /\$bunfs|~BUN/.test(Bun.main)
const WORKER_URL: string | URL = COMPILED
  ? './wal-checkpoint-worker.ts'
  : new URL('./wal-checkpoint-worker.ts', import.meta.url)

export interface WalCheckpointer {
  stop(): Promise<void>
}

/**
 * Takes WAL checkpoints off the event loop. SQLite's automatic checkpoint runs inside whichever commit crosses
 * 1,000 pages of log, with two fsyncs, so under load every few dozen chat turns one request stalled the whole
 * process for it (the bench measured a third more turns per second without it). A worker thread now checkpoints
 * every `intervalMs` on its own connection; the main connection keeps a far larger automatic checkpoint only as a
 * backstop. A storage without a write-ahead log gets no worker: an in-memory database, or Postgres (the server
 * checkpoints by itself).
 */
export function startWalCheckpointer(storage: Storage, logger: Logger, intervalMs = 200): WalCheckpointer {
  const log = storage.writeAheadLog
  if (!log) return { stop: async () => {} }
  const worker = new Worker(WORKER_URL)
  let stopped: (() => void) | undefined
  worker.addEventListener('message', (event: MessageEvent<WorkerReply>) => {
    const reply = event.data
    if (reply.type === 'error') logger.warn('WAL checkpoint failed', { error: reply.message })
    if (reply.type === 'stopped') stopped?.()
  })
  worker.addEventListener('error', (event) => {
    // Without the worker the main connection checkpoints as SQLite does by default.
    logger.error('WAL checkpoint worker failed; checkpoints are back on the main thread', { error: event.message })
    log.checkpointAfter(1000)
  })
  // A worker does not keep the process alive (Bun's Worker has unref, the DOM type it is declared with does not).
  const thread = worker as Worker & { unref(): void }
  thread.unref()
  log.checkpointAfter(BACKSTOP_PAGES)
  worker.postMessage({ type: 'start', path: log.path, intervalMs } satisfies CheckpointerMessage)
  return {
    async stop() {
      const done = new Promise<void>((resolve) => {
        stopped = resolve
        setTimeout(resolve, 2000).unref()
      })
      worker.postMessage({ type: 'stop' } satisfies CheckpointerMessage)
      await done
      worker.terminate()
    },
  }
}
