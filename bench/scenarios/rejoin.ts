import { AGENTS, type BenchContext } from '../lib/context'
import { lineRecorder } from '../lib/ndjson-client'
import type { Row } from '../lib/report'
import { percentile, wallMs } from '../lib/stats'
import type { JoinerResult } from '../lib/worker-jobs'
import { startWorker } from '../lib/workers'

export interface Trial {
  joiners: number
  complete: number
  lags: number[]
  /** Time between the original's consecutive lines after its `__cutoff__`: the run's pace as its own client saw it. */
  intervals: number[]
  failures: string[]
}

/** The original client: every line's arrival time, the chat id, and a digest of all after `__cutoff__`. */
async function original(
  url: string,
  headers: Record<string, string>,
  body: string,
  onChatId: (chatId: string) => void,
) {
  const response = await fetch(url, { method: 'POST', headers, body })
  if (!response.ok || !response.body) throw new Error(`rejoin: the original request got HTTP ${response.status}`)
  const recorder = lineRecorder((cutoff) =>
    onChatId((JSON.parse(cutoff) as { state: { chatId: string } }).state.chatId),
  )
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) recorder.chunk(chunk, wallMs())
  return { times: recorder.times, digest: recorder.digest() }
}

/**
 * One run and its joiners. The original client reads from `originalUrl`, the joiners from `joinUrl`: the same
 * server, or another node of a deployment (the lag then includes the way through Redis).
 */
export async function rejoinTrial(
  context: BenchContext,
  originalUrl = context.chatUrl(AGENTS.rejoin),
  joinUrl = originalUrl,
): Promise<Trial> {
  const { rejoin } = context.config
  const workers = await Promise.all(Array.from({ length: rejoin.workers }, () => startWorker()))
  try {
    const messageId = context.messageId()
    const sessionSettings = { externalId: 'bench-rejoin' }
    const runMs = rejoin.tokens * rejoin.delayMs
    let joined: Promise<JoinerResult[][]> | undefined
    const first = await original(
      originalUrl,
      context.headers,
      JSON.stringify({ input: 'Stream 200 tokens', messageId, sessionSettings }),
      (chatId) => {
        // Joiners arrive evenly over the first 80% of the run, each worker taking its share.
        const body = JSON.stringify({ chatId, messageId, sessionSettings })
        const startAt = wallMs() + 20
        const perWorker = Math.ceil(rejoin.joiners / workers.length)
        joined = Promise.all(
          workers.map((worker, index) =>
            worker.run<JoinerResult[]>({
              kind: 'join',
              url: joinUrl,
              headers: context.headers,
              body,
              count: Math.min(perWorker, rejoin.joiners - index * perWorker),
              startAt: startAt + (index * runMs * 0.8) / rejoin.joiners,
              spreadMs: runMs * 0.8,
            }),
          ),
        )
      },
    )
    const joiners = (await joined!).flat()
    const lags: number[] = []
    const failures: string[] = []
    let complete = 0
    for (const joiner of joiners) {
      if (!joiner.ok) {
        failures.push(joiner.failure ?? 'failed')
        continue
      }
      // The joiner's own __cutoff__ then exactly the original's lines after its __cutoff__: every line, in order.
      if (joiner.digest === first.digest && joiner.times.length === first.times.length) complete++
      else failures.push(`joiner got ${joiner.times.length} lines (original ${first.times.length}) or other bytes`)
      // A live line is one the original received after this joiner had its replay: lag = joiner's time - original's.
      const attachedAt = joiner.times[0] ?? Number.POSITIVE_INFINITY
      for (let line = 1; line < Math.min(joiner.times.length, first.times.length); line++)
        if (first.times[line] >= attachedAt) lags.push(Math.max(0, joiner.times[line] - first.times[line]))
    }
    const intervals = first.times.slice(2).map((time, index) => time - first.times[index + 1])
    return { joiners: joiners.length, complete, lags, intervals, failures }
  } finally {
    for (const worker of workers) worker.kill()
  }
}

/**
 * Rejoin fan-out: one run streaming 200 tokens 10 ms apart, 1,000 joiners (same `messageId`) arriving during it.
 * Every joiner must receive every line in order; p99 lag of a live line behind the original client ≤ 25 ms.
 */
export async function rejoinScenario(context: BenchContext): Promise<Row[]> {
  const { rejoin } = context.config
  const trials: Trial[] = []
  for (let index = 0; index < rejoin.trials; index++) trials.push(await rejoinTrial(context))
  const scenario = `rejoin fan-out (${rejoin.tokens} tokens at ${rejoin.delayMs} ms, ${rejoin.joiners} joiners${rejoin.trials > 1 ? `, ${rejoin.trials} runs` : ''})`
  return rejoinRows(context, scenario, trials)
}

/**
 * The figures of rejoin trials: joiners complete (target 100%), p50 and p99 lag (target ≤ 25 ms), and the run's pace
 * as the original client saw it. The lag is measured behind the original: on the node that runs the agent, a line's
 * writes to a thousand readers that take longer than the agent's pause (`delayMs`) delay its next line and the
 * original with it, so the run slows down instead of the joiners falling behind; on another node they do fall
 * behind. The pace tells the two apart.
 */
export function rejoinRows(context: BenchContext, scenario: string, trials: Trial[]): Row[] {
  const joiners = trials.reduce((sum, each) => sum + each.joiners, 0)
  const complete = trials.reduce((sum, each) => sum + each.complete, 0)
  const lags = trials.flatMap((each) => each.lags)
  const failures = [...new Set(trials.flatMap((each) => each.failures))].slice(0, 3)
  const p99 = percentile(lags, 99)
  context.log(`  ${scenario.split(' (')[0]}: ${complete}/${joiners} joiners complete, p99 lag ${p99.toFixed(1)} ms`)
  return [
    {
      scenario,
      figure: 'joiners with every line, in order',
      value: (100 * complete) / joiners,
      unit: '%',
      target: '100%',
      met: complete === joiners,
      note: failures.length ? failures.join('; ') : undefined,
    },
    { scenario, figure: 'p50 live-line lag behind the original', value: percentile(lags, 50), unit: 'ms' },
    {
      scenario,
      figure: 'p99 live-line lag behind the original',
      value: p99,
      unit: 'ms',
      target: '≤ 25 ms',
      met: p99 <= 25,
    },
    {
      scenario,
      figure: `median time between the original's lines (the agent waits ${context.config.rejoin.delayMs} ms)`,
      value: percentile(
        trials.flatMap((each) => each.intervals),
        50,
      ),
      unit: 'ms',
    },
  ]
}
