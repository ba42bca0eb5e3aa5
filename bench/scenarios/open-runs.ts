import { AGENTS, type BenchContext } from '../lib/context'
import { wallMs } from '../lib/stats'
import type { HoldResult } from '../lib/worker-jobs'
import { startWorker } from '../lib/workers'

export interface OpenRunsResult {
  runs: number
  completed: number
  failures: number
  failureSamples: string[]
  idleRssMb: number
  peakRssMb: number
  /** Peak RSS over idle, per open run. */
  kbPerRun: number
}

/**
 * Holds `runs` scripted-agent runs open at once on a freshly started server (so the memory figure is the runs', not
 * earlier scenarios'), each pausing `delayMs` between its `lines` lines, and samples the server's RSS meanwhile. The
 * runs start evenly over `rampMs` (a burst of 10,000 connects would measure the kernel's listen backlog).
 */
export async function holdOpenRuns(
  context: BenchContext,
  shape: { runs: number; lines: number; rampMs: number; workers: number },
): Promise<OpenRunsResult> {
  const { runs, rampMs, workers: workerCount } = shape
  await context.restartServer()
  const workers = await Promise.all(Array.from({ length: workerCount }, () => startWorker()))
  // Idle: the fresh server after a moment to settle.
  await Bun.sleep(1000)
  const idleRssMb = context.server.rssMb()
  let peakRssMb = idleRssMb
  const sampler = setInterval(() => {
    peakRssMb = Math.max(peakRssMb, context.server.rssMb())
  }, 200)
  const startAt = wallMs() + 100
  const perWorker = Math.ceil(runs / workerCount)
  const messageIdBase = context.messageId().replace('-message', '')
  let results: HoldResult[]
  try {
    results = await Promise.all(
      workers.map((worker, index) =>
        worker.run<HoldResult>({
          kind: 'hold',
          url: context.chatUrl(AGENTS.concurrency),
          headers: context.headers,
          offset: index * perWorker,
          count: Math.max(0, Math.min(perWorker, runs - index * perWorker)),
          total: runs,
          startAt,
          rampMs,
          users: 100,
          userPrefix: 'bench-hold-',
          messageIdBase,
        }),
      ),
    )
  } finally {
    clearInterval(sampler)
    for (const worker of workers) worker.kill()
  }
  return {
    runs,
    completed: results.reduce((sum, result) => sum + result.completed, 0),
    failures: results.reduce((sum, result) => sum + result.failures, 0),
    failureSamples: [...new Set(results.flatMap((result) => result.failureSamples))].slice(0, 3),
    idleRssMb,
    peakRssMb,
    kbPerRun: ((peakRssMb - idleRssMb) * 1024) / runs,
  }
}
