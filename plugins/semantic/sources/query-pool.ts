import { RateLimitedError } from '../../../lib/errors'
import { QueryTimeoutError } from '../errors'
import { QueryExecutionError } from './data-source'

export interface WorkerRequest {
  id: number
  path: string
  sql: string
  params: Array<string | number | null>
  /** Rows sent back; the worker still counts every row the query produces. */
  maxRows: number
}

export type WorkerReply =
  | { id: number; ok: true; rows: unknown[][]; totalRows: number }
  | { id: number; ok: false; error: string }
  /** Sent once when the worker has loaded, so its start-up is not counted against a query's time limit. */
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
  worker: Worker | undefined
  ready: boolean
  job: (Job & { id: number; timer: ReturnType<typeof setTimeout> }) | undefined
}

const MAX_QUEUED = 200
/** How long a new worker may take to load (on a busy machine) before its first query's own limit starts. */
const WORKER_START_MS = 15_000

export { QueryExecutionError }

// In development the worker is the file beside this module. In the compiled binary (`npm run build` lists the
// worker as a second entry point) every module shares the binary's URL, and the worker is found by its path from
// the entry points' common root, the project folder.
const COMPILED = /\$bunfs|~BUN/.test(import.meta.url)
const WORKER_URL: string | URL = COMPILED
  ? './plugins/semantic/sources/query-worker.ts'
  : new URL('./query-worker.ts', import.meta.url)

/**
 * A few workers that run queries, each with a time limit: a worker whose query runs too long is terminated and
 * replaced, and the caller gets `QueryTimeoutError`. Jobs wait in a FIFO queue when every worker is busy.
 */
export class QueryPool {
  private readonly slots: Slot[]
  private readonly queue: Job[] = []
  private nextId = 1
  private closed = false

  constructor(private readonly options: { size: number; timeoutMs: number }) {
    this.slots = Array.from({ length: Math.max(1, options.size) }, () => ({
      worker: undefined,
      ready: false,
      job: undefined,
    }))
  }

  /** Runs one query; `timeoutMs` overrides the pool's limit for it. */
  run(request: Omit<WorkerRequest, 'id'>, timeoutMs = this.options.timeoutMs): Promise<QueryOutput> {
    if (this.closed) return Promise.reject(new QueryExecutionError('The query engine is shutting down'))
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
      const worker = slot.worker ?? this.spawn(slot)
      const id = this.nextId++
      // A worker still loading gets extra time; its query's own limit starts once it is ready.
      const timer = setTimeout(() => this.timeout(slot), job.timeoutMs + (slot.ready ? 0 : WORKER_START_MS))
      slot.job = { ...job, id, timer }
      worker.postMessage({ ...job.request, id } satisfies WorkerRequest)
    }
  }

  private spawn(slot: Slot): Worker {
    const worker = new Worker(WORKER_URL)
    worker.addEventListener('message', (event: MessageEvent<WorkerReply>) => {
      const job = slot.job
      if ('ready' in event.data) {
        slot.ready = true
        if (job) {
          clearTimeout(job.timer)
          job.timer = setTimeout(() => this.timeout(slot), job.timeoutMs)
        }
        return
      }
      if (!job || job.id !== event.data.id) return
      this.finish(slot)
      if (event.data.ok) job.resolve({ rows: event.data.rows, totalRows: event.data.totalRows })
      else job.reject(new QueryExecutionError(event.data.error))
    })
    worker.addEventListener('error', (event) => {
      const job = slot.job
      this.discard(slot)
      job?.reject(new QueryExecutionError(`Query worker failed: ${(event as ErrorEvent).message ?? 'unknown error'}`))
      this.dispatch()
    })
    // Idle workers must not keep a process (a test run, a CLI) alive.
    ;(worker as Worker & { unref(): void }).unref()
    slot.worker = worker
    return worker
  }

  private finish(slot: Slot): void {
    if (slot.job) clearTimeout(slot.job.timer)
    slot.job = undefined
    queueMicrotask(() => this.dispatch())
  }

  private discard(slot: Slot): void {
    if (slot.job) clearTimeout(slot.job.timer)
    slot.job = undefined
    slot.worker?.terminate()
    slot.worker = undefined
    slot.ready = false
  }

  private timeout(slot: Slot): void {
    const job = slot.job
    this.discard(slot)
    if (job) job.reject(new QueryTimeoutError(job.timeoutMs))
    this.dispatch()
  }

  /** Stops every worker; queued and running queries fail. */
  close(): void {
    this.closed = true
    for (const job of this.queue.splice(0)) job.reject(new QueryExecutionError('The query engine is shutting down'))
    for (const slot of this.slots) {
      const job = slot.job
      this.discard(slot)
      job?.reject(new QueryExecutionError('The query engine is shutting down'))
    }
  }
}
