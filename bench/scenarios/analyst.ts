import { AGENTS, type BenchContext } from '../lib/context'
import { alternate, closedLoop, medianOf } from '../lib/load'
import { postTurn, type TurnOutcome } from '../lib/ndjson-client'
import type { Row } from '../lib/report'
import { percentile } from '../lib/stats'

/** A mix of 10 questions the offline analyst maps to the demo model (each one tool call and one answer). */
export const QUESTIONS = [
  'How many orders were placed in 2024?',
  'What was the revenue by region?',
  'Top 5 products by revenue',
  'Units sold by category',
  'Number of orders by status in 2023',
  'Monthly revenue in 2024',
  'Average price of products by category',
  'How many VIP customers are there?',
  'Top 3 cities by number of orders',
  'Revenue for Corporate customers in North America',
] as const

const REGIONS = ['Europe', 'Asia', 'North America']

/** Slot 0, 4, 8, ... see every row; the others only their region's (the access policy of the demo model). */
export function analystSettings(slot: number) {
  const externalId = `bench-analyst-${slot}`
  return slot % 4 === 0
    ? { externalId }
    : { externalId, userAttributes: [{ name: 'region', value: REGIONS[slot % REGIONS.length] }] }
}

export const analystBody = (context: BenchContext, slot: number, question: number) =>
  JSON.stringify({ input: QUESTIONS[question], messageId: context.messageId(), sessionSettings: analystSettings(slot) })

/**
 * The analyst turn: the offline analyst (no delay) over the demo data, a mix of 10 questions, at concurrency 32.
 * Targets: p99 time to `__cutoff__` ≤ 10 ms; turns/s ≥ 15% of the protocol turn's.
 */
export async function analystScenario(context: BenchContext): Promise<Row[]> {
  const { config } = context
  const concurrency = config.analyst.concurrency
  let next = 0
  const timed: TurnOutcome[] = []
  const service = async () => {
    const result = await closedLoop(concurrency, config.roundMs, (slot) =>
      postTurn(
        context.chatUrl(AGENTS.analyst),
        context.headers,
        analystBody(context, slot, next++ % QUESTIONS.length),
        true,
      ),
    )
    timed.push(...result.outcomes.filter((outcome) => outcome.ok))
    return result
  }
  const baseline = () =>
    closedLoop(concurrency, config.roundMs, (slot) => {
      const question = next++ % QUESTIONS.length
      return postTurn(
        `${context.baselineUrl}/turn/analyst-${question}`,
        context.headers,
        analystBody(context, slot, question),
        true,
      )
    })
  await closedLoop(concurrency, config.roundMs / 2, (slot) =>
    postTurn(
      context.chatUrl(AGENTS.analyst),
      context.headers,
      analystBody(context, slot, next++ % QUESTIONS.length),
      true,
    ),
  )
  await baseline()
  const result = await alternate(config.rounds, service, baseline)
  const value = medianOf(result.a, (round) => round.perSecond)
  const base = medianOf(result.b, (round) => round.perSecond)
  const failures = result.a.reduce((sum, round) => sum + round.failures, 0)
  const protocol = context.figures.protocol32
  context.log(`  analyst turn at ${concurrency}: ${value.toFixed(0)} turns/s, baseline ${base.toFixed(0)}`)
  const scenario = `analyst turn (10 questions, concurrency ${concurrency})`
  const times = (pick: (outcome: TurnOutcome) => number | undefined) =>
    timed.map(pick).filter((ms): ms is number => ms !== undefined)
  const cutoff = times((outcome) => outcome.cutoffMs)
  const delta = times((outcome) => outcome.firstDeltaMs)
  const state = times((outcome) => outcome.stateMs)
  return [
    {
      scenario,
      figure: 'turns/s',
      value,
      unit: '/s',
      baseline: base,
      ratio: value / base,
      ...(protocol !== undefined && {
        target: `≥ 15% of protocol turn (${(0.15 * protocol).toFixed(0)}/s)`,
        met: failures === 0 && value >= 0.15 * protocol,
      }),
      note:
        failures > 0
          ? `${failures} failed turns: ${result.a.flatMap((round) => round.failureSamples).join('; ')}`
          : undefined,
    },
    { scenario, figure: 'p50 time to __cutoff__', value: percentile(cutoff, 50), unit: 'ms' },
    {
      scenario,
      figure: 'p99 time to __cutoff__',
      value: percentile(cutoff, 99),
      unit: 'ms',
      target: '≤ 10 ms',
      met: percentile(cutoff, 99) <= 10,
    },
    { scenario, figure: 'p50 time to first delta', value: percentile(delta, 50), unit: 'ms' },
    { scenario, figure: 'p99 time to first delta', value: percentile(delta, 99), unit: 'ms' },
    { scenario, figure: 'p50 time to __state__', value: percentile(state, 50), unit: 'ms' },
    { scenario, figure: 'p99 time to __state__', value: percentile(state, 99), unit: 'ms' },
  ]
}
