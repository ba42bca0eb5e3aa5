import { AGENTS, type BenchContext } from '../lib/context'
import type { Row } from '../lib/report'
import { wallMs } from '../lib/stats'
import type { HoldResult } from '../lib/worker-jobs'
import { startWorker } from '../lib/workers'

/**
 * Concurrency: 10,000 simultaneous runs of the scripted agent, each pausing 1 s between its lines for 30 s, on a
 * freshly started server (so the memory figure is the runs', not earlier scenarios'). No errors, every stream
 * complete; peak server RSS ≤ 400 MB. The runs start evenly over a few seconds (a burst of 10,000 connects would
 * measure the kernel's listen backlog, not the service).
 */
export async function concurrencyScenario(context: BenchContext): Promise<Row[]> {
  const { runs, rampMs, workers: workerCount, lines, delayMs } = context.config.concurrency
  await context.restartServer()
  const workers = await Promise.all(Array.from({ length: workerCount }, () => startWorker()))
  // Idle: the fresh server after a moment to settle.
  await Bun.sleep(1000)
  const idleRss = context.server.rssMb()
  let peakRss = idleRss
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, context.server.rssMb())
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
  const completed = results.reduce((sum, result) => sum + result.completed, 0)
  const failures = results.reduce((sum, result) => sum + result.failures, 0)
  const samples = [...new Set(results.flatMap((result) => result.failureSamples))].slice(0, 3)
  const scenario = `concurrency (${runs.toLocaleString('en')} runs, ${lines} lines ${delayMs} ms apart)`
  context.log(
    `  concurrency: ${completed}/${runs} complete, ${failures} failed, peak RSS ${peakRss.toFixed(0)} MB (idle ${idleRss.toFixed(0)} MB)`,
  )
  return [
    {
      scenario,
      figure: 'streams complete without error',
      value: (100 * completed) / runs,
      unit: '%',
      target: '100%, no errors',
      met: completed === runs && failures === 0,
      note: samples.length ? samples.join('; ') : undefined,
    },
    {
      scenario,
      figure: 'peak server RSS (baseline: idle RSS)',
      value: peakRss,
      unit: 'MB',
      baseline: idleRss,
      target: '≤ 400 MB',
      met: peakRss <= 400,
      note: `${(((peakRss - idleRss) * 1024) / runs).toFixed(1)} KB per run over idle`,
    },
  ]
}
