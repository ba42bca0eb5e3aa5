import type { Subprocess } from 'bun'
import type { Metrics, MetricsJson } from '../lib/metrics'

/**
 * `/metrics` of workers that share one port. A scrape reaches whichever worker the kernel gives the connection, so
 * each worker answering with its own series would hand Prometheus a different process at every scrape (counters
 * going back and forth, read as resets). The scraped worker asks its supervisor instead, which asks every worker for
 * its series and hands them back; the scraped worker adds them up. Messages go over the workers' IPC channel.
 */

/** Worker to supervisor: a scrape wants every worker's series. */
interface MetricsRequest {
  type: 'metrics-request'
  id: number
}
/** Supervisor to each worker: send your series. */
interface MetricsCollect {
  type: 'metrics-collect'
  id: number
}
/** Worker to supervisor: its series. */
interface MetricsReport {
  type: 'metrics-report'
  id: number
  metrics: MetricsJson
}
/** Supervisor to the scraped worker: the series of every worker that answered in time. */
interface MetricsReply {
  type: 'metrics-reply'
  id: number
  workers: MetricsJson[]
}
export type WorkerMetricsMessage = MetricsRequest | MetricsCollect | MetricsReport | MetricsReply

/** How long the supervisor waits for the workers' series; one that does not answer in time is left out. */
const COLLECT_TIMEOUT_MS = 1_000
/** How long a scraped worker waits for the supervisor's answer before answering with its own series alone. */
const REQUEST_TIMEOUT_MS = 2_000

function isMetricsMessage(message: unknown): message is WorkerMetricsMessage {
  const type = (message as { type?: unknown } | null)?.type
  return typeof type === 'string' && type.startsWith('metrics-')
}

/**
 * In a worker: answers the supervisor's collections with this process's series, and makes `metrics.render()` ask
 * for every worker's. `send` is the worker's IPC channel (`process.send`).
 */
export function shareWorkerMetrics(metrics: Metrics, send: (message: WorkerMetricsMessage) => void): void {
  let lastId = 0
  const waiting = new Map<number, (workers: MetricsJson[] | undefined) => void>()
  process.on('message', (message: unknown) => {
    if (!isMetricsMessage(message)) return
    if (message.type === 'metrics-collect')
      void metrics.json().then((series) => send({ type: 'metrics-report', id: message.id, metrics: series }))
    else if (message.type === 'metrics-reply') waiting.get(message.id)?.(message.workers)
  })
  metrics.gatherFrom(
    () =>
      new Promise((resolve) => {
        const id = ++lastId
        const timer = setTimeout(() => done(undefined), REQUEST_TIMEOUT_MS)
        const done = (workers: MetricsJson[] | undefined) => {
          clearTimeout(timer)
          waiting.delete(id)
          resolve(workers)
        }
        waiting.set(id, done)
        send({ type: 'metrics-request', id })
      }),
  )
}

/**
 * In the supervisor: answers a worker's `metrics-request` with the series of every worker listening (`workers()`),
 * those that answer within a second.
 */
export function createMetricsRelay(workers: () => Iterable<Subprocess>) {
  let lastId = 0
  const collections = new Map<number, { received: MetricsJson[]; expected: number; finish(): void }>()
  return {
    /** Handles a worker's message (`from`); anything else a worker sends is left alone. */
    receive(from: Subprocess, message: unknown): void {
      if (!isMetricsMessage(message)) return
      if (message.type === 'metrics-report') {
        const collection = collections.get(message.id)
        if (collection) {
          collection.received.push(message.metrics)
          if (collection.received.length === collection.expected) collection.finish()
        }
      } else if (message.type === 'metrics-request') {
        const id = ++lastId
        const targets = [...workers()]
        const received: MetricsJson[] = []
        const finish = () => {
          clearTimeout(timer)
          collections.delete(id)
          try {
            from.send({ type: 'metrics-reply', id: message.id, workers: received } satisfies MetricsReply)
          } catch {
            // The worker that asked is gone: nobody waits for the answer.
          }
        }
        const timer = setTimeout(finish, COLLECT_TIMEOUT_MS)
        collections.set(id, { received, expected: targets.length, finish })
        for (const target of targets)
          try {
            target.send({ type: 'metrics-collect', id } satisfies MetricsCollect)
          } catch {
            // A worker exiting right now: the others still answer.
          }
      }
    },
  }
}
