import { fileURLToPath } from 'node:url'
import type { Subprocess } from 'bun'
import { RateLimitedError, ShuttingDownError } from '../../../lib/errors'
import { QueryTimeoutError } from '../errors'
import { QueryExecutionError } from './data-source'
import { QUERY_WORKER_COMMAND } from './query-worker-command'

export interface WorkerRequest {
  id: number
  path: string
  sql: string
  params: Array<string | number | null>
  /** Rows sent back; the process still counts every row the query produces. */
  maxRows: number
}

export type WorkerReply =
  | { id: number; ok: true; rows: unknown[][]; totalRows: number }
  /** `unavailable`: the file is no database SQLite can read, whatever the query (the source is broken, not it). */
  | { id: number; ok: false; error: string; unavailable?: true }
  /** Sent once when the process has loaded, so its start-up is not counted against a query's time limit. */
  | { ready: true }

export interface QueryOutput {
  rows: unknown[][]
  totalRows: number
}

interface Job {
  request: Omit<WorkerRequest, 'id'>
  timeoutMs: number
  resolve(output: QueryOutput): void
  reject(error: Error): void
}

interface Slot {
  process: Subprocess | undefined
  ready: boolean
  job: (Job & { id: number; timer: ReturnType<typeof setTimeout> }) | undefined
}

const MAX_QUEUED = 200
/** How long a new process may take to load (on a busy machine) before its first query's own limit starts. */
const WORKER_START_MS = 15_000

export { QueryExecutionError }

/** The file a query was sent to is no database SQLite can read (not a database, corrupt, a folder, unreadable). */
export class UnreadableFileError extends Error {}

// From source the query process runs this folder's `query-worker.ts` with the same bun. The compiled binary runs
// itself with `QUERY_WORKER_COMMAND`, which `main.ts` turns into that same module. (The binary is told by its main
// script, embedded under `/$bunfs/`: this module's `import.meta.url` there still names the source file.)
const COMPILED = /\$bunfs|~BUN/.test(Bun.main)
const WORKER_COMMAND: string[] = COMPILED
  ? [process.execPath, QUERY_WORKER_COMMAND]
  : [process.execPath, fileURLToPath(new URL('./query-worker.ts', import.meta.url))]

/**
 * A few child processes that run SQLite queries, each with a time limit: a process whose query runs too long is
 * killed (which stops the statement at once) and replaced, and the caller gets `QueryTimeoutError`. Processes, not
 * Worker threads: bun:sqlite cannot interrupt a statement, and a terminated thread runs its statement to the end.
 * Jobs wait in a FIFO queue when every process is busy.
 */
export class QueryPool {
  private readonly slots: Slot[]
  private readonly queue: Job[] = []
  private nextId = 1
  private closed = false

  constructor(private readonly options: { size: number; timeoutMs: number }) {
    this.slots = Array.from({ length: Math.max(1, options.size) }, () => ({
      process: undefined,
      ready: false,
      job: undefined,
    }))
  }

  /** Runs one query; `timeoutMs` overrides the pool's limit for it. */
  run(request: Omit<WorkerRequest, 'id'>, timeoutMs = this.options.timeoutMs): Promise<QueryOutput> {
    if (this.closed) return Promise.reject(new ShuttingDownError())
    // A bounded queue: past it, callers hear "later" at once instead of waiting behind minutes of queries.
    if (this.queue.length >= MAX_QUEUED)
      return Promise.reject(new RateLimitedError('Too many queries are waiting; try again shortly'))
    return new Promise<QueryOutput>((resolve, reject) => {
      this.queue.push({ request, timeoutMs, resolve, reject })
      this.dispatch()
    })
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (slot.job || this.queue.length === 0) continue
      const job = this.queue.shift() as Job
      let child: Subprocess
      try {
        child = slot.process ?? this.spawn(slot)
      } catch (error) {
        job.reject(new QueryExecutionError(`Query worker failed to start: ${(error as Error).message}`))
        queueMicrotask(() => this.dispatch())
        continue
      }
      const id = this.nextId++
      // A process still loading gets extra time; its query's own limit starts once it is ready.
      const timer = setTimeout(() => this.timeout(slot), job.timeoutMs + (slot.ready ? 0 : WORKER_START_MS))
      slot.job = { ...job, id, timer }
      try {
        child.send({ ...job.request, id } satisfies WorkerRequest)
      } catch (error) {
        // The process went away between two queries: this query fails, the next one gets a new process.
        this.discard(slot)
        job.reject(new QueryExecutionError(`Query worker failed: ${(error as Error).message}`))
        queueMicrotask(() => this.dispatch())
      }
    }
  }

  private spawn(slot: Slot): Subprocess {
    const child = Bun.spawn(WORKER_COMMAND, {
      stdio: ['ignore', 'ignore', 'inherit'],
      // Rows keep their types (numbers, text, blobs) as with a Worker's postMessage.
      serialization: 'advanced',
      ipc: (message: WorkerReply, from) => {
        if (slot.process !== from) return
        const job = slot.job
        if ('ready' in message) {
          slot.ready = true
          if (job) {
            clearTimeout(job.timer)
            job.timer = setTimeout(() => this.timeout(slot), job.timeoutMs)
          }
          return
        }
        if (!job || job.id !== message.id) return
        this.finish(slot)
        if (message.ok) job.resolve({ rows: message.rows, totalRows: message.totalRows })
        else
          job.reject(
            message.unavailable
              ? new UnreadableFileError(message.error)
              : new QueryExecutionError(message.error, /^no such (table|column)\b/.test(message.error)),
          )
      },
      onExit: (from, exitCode, signalCode) => {
        // A process this pool killed is already out of its slot; any other exit is a crash (or an outside kill).
        if (slot.process !== from) return
        const job = slot.job
        this.discard(slot)
        job?.reject(new QueryExecutionError(`Query worker failed: it exited (${signalCode ?? `code ${exitCode}`})`))
        this.dispatch()
      },
    })
    // Idle processes must not keep a process (a test run, a CLI) alive.
    child.unref()
    slot.process = child
    return child
  }

  private finish(slot: Slot): void {
    if (slot.job) clearTimeout(slot.job.timer)
    slot.job = undefined
    queueMicrotask(() => this.dispatch())
  }

  /** Kills the slot's process (SIGKILL: a statement inside SQLite stops at once) and empties the slot. */
  private discard(slot: Slot): void {
    if (slot.job) clearTimeout(slot.job.timer)
    slot.job = undefined
    const child = slot.process
    slot.process = undefined
    slot.ready = false
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  }

  private timeout(slot: Slot): void {
    const job = slot.job
    this.discard(slot)
    if (job) job.reject(new QueryTimeoutError(job.timeoutMs))
    this.dispatch()
  }

  /** Stops every process; queued and running queries fail. */
  close(): void {
    this.closed = true
    for (const job of this.queue.splice(0)) job.reject(new ShuttingDownError())
    for (const slot of this.slots) {
      const job = slot.job
      this.discard(slot)
      job?.reject(new ShuttingDownError())
    }
  }
}
