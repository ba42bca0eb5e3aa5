import { AGENTS, type BenchContext } from '../lib/context'
import { alternate, closedLoop, medianOf } from '../lib/load'
import { postTurn } from '../lib/ndjson-client'
import type { Row } from '../lib/report'

export const protocolBody = (context: BenchContext, slot: number) =>
  JSON.stringify({
    input: 'Protocol turn',
    messageId: context.messageId(),
    sessionSettings: { externalId: `bench-protocol-${slot}` },
  })

/**
 * The protocol turn: the scripted agent's 50 lines (no model, no tools) at concurrency 1 and 32, against the
 * baseline answering the same recorded lines. Target: at 32, at least 40% of the baseline.
 */
export async function protocolScenario(context: BenchContext, shape: { lines: number; bytes: number }): Promise<Row[]> {
  const { config } = context
  const rows: Row[] = []
  const label = `protocol turn (${shape.lines} lines, ${(shape.bytes / 1000).toFixed(0)} KB)`
  for (const concurrency of config.protocol.concurrency) {
    const service = () =>
      closedLoop(concurrency, config.roundMs, (slot) =>
        postTurn(context.chatUrl(AGENTS.protocol), context.headers, protocolBody(context, slot)),
      )
    const baseline = () =>
      closedLoop(concurrency, config.roundMs, (slot) =>
        postTurn(`${context.baselineUrl}/turn/protocol`, context.headers, protocolBody(context, slot)),
      )
    // Warm both sides up (JIT, connection pools, SQLite pages) before the measured rounds.
    await closedLoop(concurrency, config.roundMs / 2, (slot) =>
      postTurn(context.chatUrl(AGENTS.protocol), context.headers, protocolBody(context, slot)),
    )
    await baseline()
    const result = await alternate(config.rounds, service, baseline)
    const value = medianOf(result.a, (round) => round.perSecond)
    const base = medianOf(result.b, (round) => round.perSecond)
    const failures = result.a.reduce((sum, round) => sum + round.failures, 0)
    context.figures[`protocol${concurrency}`] = value
    context.log(`  ${label} at ${concurrency}: ${value.toFixed(0)} turns/s, baseline ${base.toFixed(0)}`)
    const targeted = concurrency === 32
    rows.push({
      scenario: label,
      figure: `turns/s at concurrency ${concurrency}`,
      value,
      unit: '/s',
      baseline: base,
      ratio: value / base,
      ...(targeted && { target: '≥ 40% of baseline', met: failures === 0 && value >= 0.4 * base }),
      note:
        failures > 0
          ? `${failures} failed turns: ${result.a.flatMap((round) => round.failureSamples).join('; ')}`
          : undefined,
    })
  }
  return rows
}
