import { AGENTS, type BenchContext } from '../lib/context'
import { cpuMsOfTrees } from '../lib/cpu'
import { closedLoop, type LoadResult } from '../lib/load'
import { postTurn } from '../lib/ndjson-client'
import type { Row } from '../lib/report'
import { percentile } from '../lib/stats'
import { holdOpenRuns } from './open-runs'
import { protocolBody } from './protocol'

interface Point {
  load: LoadResult
  cpuMsPerTurn: number
  p99Ms: number
}

/** One closed-loop round at `concurrency`, with the CPU the process tree of `pid` spent on it. */
async function measure(pid: number, concurrency: number, durationMs: number, url: string, context: BenchContext) {
  const turn = (slot: number) => postTurn(url, context.headers, protocolBody(context, slot))
  // Warm up at this concurrency (connections, JIT, pages) before the measured window.
  await closedLoop(concurrency, durationMs / 4, turn)
  const cpuBefore = cpuMsOfTrees([pid])
  const load = await closedLoop(concurrency, durationMs, turn)
  const cpuMs = cpuMsOfTrees([pid]) - cpuBefore
  return {
    load,
    cpuMsPerTurn: load.turns > 0 ? cpuMs / load.turns : Number.NaN,
    p99Ms: percentile(
      load.outcomes.filter((outcome) => outcome.ok).map((outcome) => outcome.totalMs),
      99,
    ),
  } satisfies Point
}

/**
 * How cost grows: the protocol turn at rising concurrency (turns/s, server CPU per turn, p99 turn time; the raw
 * baseline's CPU per turn beside it), then memory per open run at rising numbers of open runs. A regression in
 * scaling shows as one number: CPU per turn at the highest concurrency over that at 1.
 */
export async function sweepScenario(context: BenchContext): Promise<Row[]> {
  const { concurrency: levels, openRuns, roundMs } = context.config.sweep
  const rows: Row[] = []
  const scenario = 'sweep: protocol turn'
  const points = new Map<number, Point>()
  for (const concurrency of levels) {
    const service = await measure(context.server.pid, concurrency, roundMs, context.chatUrl(AGENTS.protocol), context)
    const baseline = context.baselinePid
      ? await measure(context.baselinePid, concurrency, roundMs, `${context.baselineUrl}/turn/protocol`, context)
      : undefined
    points.set(concurrency, service)
    const failures = service.load.failures
    context.log(
      `  sweep at ${concurrency}: ${service.load.perSecond.toFixed(0)} turns/s, ${service.cpuMsPerTurn.toFixed(3)} ms CPU/turn (baseline ${baseline?.cpuMsPerTurn.toFixed(3) ?? 'n/a'}), p99 ${service.p99Ms.toFixed(1)} ms${failures ? `, ${failures} failed` : ''}`,
    )
    const note = failures
      ? `${failures} failed turns: ${service.load.failureSamples.join('; ')}`
      : `${service.load.perSecond.toFixed(0)} turns/s (baseline ${baseline?.load.perSecond.toFixed(0) ?? 'n/a'}), p99 ${service.p99Ms.toFixed(1)} ms (baseline ${baseline?.p99Ms.toFixed(1) ?? 'n/a'})`
    rows.push({
      scenario,
      figure: `server CPU per turn at concurrency ${concurrency}`,
      value: service.cpuMsPerTurn,
      unit: 'ms',
      baseline: baseline?.cpuMsPerTurn,
      ratio: baseline ? service.cpuMsPerTurn / baseline.cpuMsPerTurn : undefined,
      ...(concurrency === 32 && { target: '≤ 0.25 ms', met: failures === 0 && service.cpuMsPerTurn <= 0.25 }),
      note,
    })
  }
  const lowest = points.get(levels[0])
  const highest = points.get(levels.at(-1)!)
  if (lowest && highest && lowest.cpuMsPerTurn > 0 && Number.isFinite(highest.cpuMsPerTurn))
    rows.push({
      scenario,
      figure: `CPU per turn at ${levels.at(-1)} over at ${levels[0]} (scaling)`,
      value: highest.cpuMsPerTurn / lowest.cpuMsPerTurn,
      unit: '×',
      note: 'about 1 when cost per turn does not grow with load',
    })

  for (const runs of openRuns) {
    const { lines, rampMs, workers } = context.config.concurrency
    const held = await holdOpenRuns(context, { runs, lines, rampMs: Math.min(rampMs, runs / 2), workers })
    context.log(
      `  sweep open runs ${runs}: ${held.completed}/${runs} complete, ${held.kbPerRun.toFixed(1)} KB per run, peak ${held.peakRssMb.toFixed(0)} MB`,
    )
    rows.push({
      scenario: 'sweep: open runs',
      figure: `KB per open run at ${runs.toLocaleString('en')} runs`,
      value: held.kbPerRun,
      unit: 'KB',
      note:
        held.failures || held.completed < runs
          ? `${held.completed}/${runs} complete: ${held.failureSamples.join('; ')}`
          : `peak RSS ${held.peakRssMb.toFixed(0)} MB over idle ${held.idleRssMb.toFixed(0)} MB`,
    })
  }
  return rows
}
