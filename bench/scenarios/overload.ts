import { AGENTS, type BenchContext } from '../lib/context'
import { postTurn } from '../lib/ndjson-client'
import type { Row } from '../lib/report'
import { median, percentile, wallMs } from '../lib/stats'
import type { BurstTurn } from '../lib/worker-jobs'
import { startWorker } from '../lib/workers'
import { QUESTIONS } from './analyst'

/** Turns of one more user, one after another, while the burst runs: what everybody else sees of the overload. */
const BYSTANDER_TURNS = 5
const BYSTANDER_DELAY_MS = 1000

/**
 * Overload: 2,000 analyst turns sent at once by 20 users (100 each, one API key) to a server with its default run
 * limits (restarted for it). Reports how many were admitted (200), refused (429 TOO_MANY_RUNS) and completed, the
 * p50/p99 completion time of the admitted ones, peak RSS, and the time of another user's turns meanwhile. Target:
 * every admitted turn completes, none fails otherwise. The bench turns the request rate limits off, so every 429
 * here is the run admission's.
 */
export async function overloadScenario(context: BenchContext): Promise<Row[]> {
  const { turns, users, workers: workerCount } = context.config.overload
  await context.restartServer({ runLimits: 'default' })
  const workers = await Promise.all(Array.from({ length: workerCount }, () => startWorker()))
  const url = context.chatUrl(AGENTS.analyst)
  const bodies = Array.from({ length: turns }, (_, index) =>
    JSON.stringify({
      input: QUESTIONS[index % QUESTIONS.length],
      messageId: context.messageId(),
      sessionSettings: { externalId: `bench-overload-${index % users}` },
    }),
  )
  const idleRss = context.server.rssMb()
  let peakRss = idleRss
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, context.server.rssMb())
  }, 200)
  const startAt = wallMs() + 200
  const perWorker = Math.ceil(turns / workerCount)
  let results: BurstTurn[]
  const bystander: number[] = []
  let bystanderFailures = 0
  try {
    const burst = Promise.all(
      workers.map((worker, index) =>
        worker.run<BurstTurn[]>({
          kind: 'burst',
          url,
          headers: context.headers,
          bodies: bodies.slice(index * perWorker, (index + 1) * perWorker),
          startAt,
        }),
      ),
    )
    // Another user asks once the burst is in the server (its 2,000 connections take a moment to arrive).
    await Bun.sleep(Math.max(0, startAt + BYSTANDER_DELAY_MS - wallMs()))
    for (let turn = 0; turn < BYSTANDER_TURNS; turn++) {
      const body = JSON.stringify({
        input: QUESTIONS[turn],
        messageId: context.messageId(),
        sessionSettings: { externalId: 'bench-overload-bystander' },
      })
      const outcome = await postTurn(url, context.headers, body)
      if (outcome.ok) bystander.push(outcome.totalMs)
      else bystanderFailures++
    }
    results = (await burst).flat()
  } finally {
    clearInterval(sampler)
    for (const worker of workers) worker.kill()
  }
  const admitted = results.filter((turn) => turn.status === 200)
  const refused = results.filter((turn) => turn.status === 429)
  const completed = admitted.filter((turn) => turn.ok)
  const otherFailures = results.filter((turn) => turn.status !== 200 && turn.status !== 429)
  const failed = admitted.length - completed.length + otherFailures.length
  const samples = [
    ...new Set(
      results.filter((turn) => !turn.ok && turn.status !== 429).map((turn) => turn.failure ?? `HTTP ${turn.status}`),
    ),
  ].slice(0, 3)
  const times = admitted.map((turn) => turn.ms)
  const refusedTimes = refused.map((turn) => turn.ms)
  const scenario = `overload (${turns.toLocaleString('en')} analyst turns at once, ${users} users)`
  context.log(
    `  overload: ${admitted.length} admitted, ${refused.length} refused (429), ${completed.length} completed, ${failed} failed; ` +
      `p50 ${percentile(times, 50).toFixed(0)} ms, p99 ${percentile(times, 99).toFixed(0)} ms; peak RSS ${peakRss.toFixed(0)} MB`,
  )
  return [
    { scenario, figure: 'turns admitted (200)', value: admitted.length, unit: '' },
    {
      scenario,
      figure: 'turns refused (429 TOO_MANY_RUNS)',
      value: refused.length,
      unit: '',
      note: refused.length ? `p50 answer ${percentile(refusedTimes, 50).toFixed(0)} ms` : undefined,
    },
    {
      scenario,
      figure: 'admitted turns completed',
      value: completed.length,
      unit: '',
      target: 'every admitted turn, no other failures',
      met: failed === 0 && completed.length === admitted.length,
      note: samples.length ? `${failed} failed: ${samples.join('; ')}` : undefined,
    },
    { scenario, figure: 'p50 completion time of admitted turns', value: percentile(times, 50), unit: 'ms' },
    { scenario, figure: 'p99 completion time of admitted turns', value: percentile(times, 99), unit: 'ms' },
    {
      scenario,
      figure: `another user's turn meanwhile (median of ${BYSTANDER_TURNS})`,
      value: median(bystander),
      unit: 'ms',
      note: bystanderFailures ? `${bystanderFailures} of its turns failed` : undefined,
    },
    { scenario, figure: 'peak server RSS (baseline: idle RSS)', value: peakRss, unit: 'MB', baseline: idleRss },
  ]
}
