import { AGENTS, type BenchContext } from '../lib/context'
import { closedLoop, medianOf, type LoadResult } from '../lib/load'
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
 * baseline answering the same recorded lines, and against the durable baseline, which also stores each turn's lines
 * before it answers (bun:sqlite WAL, group commit: what any service that keeps its answers pays), in alternating
 * rounds. Target: at 32, at least 40% of the baseline.
 */
export async function protocolScenario(context: BenchContext, shape: { lines: number; bytes: number }): Promise<Row[]> {
  const { config } = context
  const rows: Row[] = []
  const label = `protocol turn (${shape.lines} lines, ${(shape.bytes / 1000).toFixed(0)} KB)`
  for (const concurrency of config.protocol.concurrency) {
    const loop = (url: () => string) => () =>
      closedLoop(concurrency, config.roundMs, (slot) => postTurn(url(), context.headers, protocolBody(context, slot)))
    const service = loop(() => context.chatUrl(AGENTS.protocol))
    const baseline = loop(() => `${context.baselineUrl}/turn/protocol`)
    const durableBaseline = loop(() => `${context.baselineUrl}/durable-turn/protocol`)
    // Warm every side up (JIT, connection pools, SQLite pages) before the measured rounds.
    await closedLoop(concurrency, config.roundMs / 2, (slot) =>
      postTurn(context.chatUrl(AGENTS.protocol), context.headers, protocolBody(context, slot)),
    )
    await baseline()
    await durableBaseline()
    // Alternating rounds: the service, then both baselines.
    const measured: LoadResult[] = []
    const raw: LoadResult[] = []
    const stored: LoadResult[] = []
    for (let round = 0; round < config.rounds; round++) {
      measured.push(await service())
      raw.push(await baseline())
      stored.push(await durableBaseline())
    }
    const value = medianOf(measured, (round) => round.perSecond)
    const base = medianOf(raw, (round) => round.perSecond)
    const durable = medianOf(stored, (round) => round.perSecond)
    const failures = measured.reduce((sum, round) => sum + round.failures, 0)
    context.figures[`protocol${concurrency}`] = value
    context.log(
      `  ${label} at ${concurrency}: ${value.toFixed(0)} turns/s, baseline ${base.toFixed(0)}, durable baseline ${durable.toFixed(0)}`,
    )
    const targeted = concurrency === 32
    const failureNote =
      failures > 0
        ? `${failures} failed turns: ${measured.flatMap((round) => round.failureSamples).join('; ')}`
        : undefined
    rows.push(
      {
        scenario: label,
        figure: `turns/s at concurrency ${concurrency}`,
        value,
        unit: '/s',
        baseline: base,
        ratio: value / base,
        ...(targeted && { target: '≥ 40% of baseline', met: failures === 0 && value >= 0.4 * base }),
        note: failureNote,
      },
      {
        scenario: label,
        figure: `turns/s at concurrency ${concurrency}, against the durable baseline (bun:sqlite WAL, group commit)`,
        value,
        unit: '/s',
        baseline: durable,
        ratio: value / durable,
      },
    )
  }
  return rows
}
