import { AGENTS, type BenchContext } from '../lib/context'
import { closedLoop } from '../lib/load'
import { postTurn } from '../lib/ndjson-client'
import type { Row } from '../lib/report'
import { wallMs } from '../lib/stats'
import { protocolBody } from './protocol'

const SAMPLE_MS = 30_000
const MAX_IN_FLIGHT = 256

/**
 * Memory over time: measures the protocol turn's maximum at concurrency 32, then holds half of it (an open loop
 * that sends turns at a fixed rate) for `durationMs`, printing RSS every 30 s. After the warm-up (the first
 * minute, or the first fifth of a shorter soak) RSS must stay within 10% of its lowest sample.
 */
export async function soakScenario(context: BenchContext, durationMs: number): Promise<Row[]> {
  const url = context.chatUrl(AGENTS.protocol)
  const turn = (slot: number) => postTurn(url, context.headers, protocolBody(context, slot))
  const max = (await closedLoop(32, 10_000, turn)).perSecond
  const rate = max / 2
  context.log(
    `  soak: maximum ${max.toFixed(0)} turns/s; holding ${rate.toFixed(0)} turns/s for ${(durationMs / 1000).toFixed(0)} s`,
  )
  const samples: Array<{ atS: number; rssMb: number }> = []
  const startedAt = wallMs()
  const sample = () => {
    const point = { atS: Math.round((wallMs() - startedAt) / 1000), rssMb: context.server.rssMb() }
    samples.push(point)
    context.log(`  soak: ${point.atS} s, RSS ${point.rssMb.toFixed(1)} MB`)
  }
  sample()
  const sampler = setInterval(sample, SAMPLE_MS)
  let sent = 0
  let failures = 0
  let inFlight = 0
  let skipped = 0
  const pending = new Set<Promise<void>>()
  try {
    while (wallMs() - startedAt < durationMs) {
      const due = Math.floor(((wallMs() - startedAt) / 1000) * rate)
      while (sent < due) {
        sent++
        // A bounded loop: when the server falls behind, turns are skipped and counted rather than queued forever.
        if (inFlight >= MAX_IN_FLIGHT) {
          skipped++
          continue
        }
        inFlight++
        const promise: Promise<void> = turn(sent % 32).then((outcome) => {
          inFlight--
          if (!outcome.ok) failures++
          pending.delete(promise)
        })
        pending.add(promise)
      }
      await Bun.sleep(2)
    }
    await Promise.all(pending)
  } finally {
    clearInterval(sampler)
  }
  sample()
  const warmUpS = Math.min(60, durationMs / 5000)
  const settled = samples.filter((point) => point.atS >= warmUpS).map((point) => point.rssMb)
  const low = Math.min(...settled)
  const high = Math.max(...settled)
  const spread = (high - low) / low
  const scenario = `soak (${(durationMs / 60_000).toFixed(1)} min at ${rate.toFixed(0)} protocol turns/s, half the maximum)`
  return [
    { scenario, figure: 'RSS after warm-up, lowest', value: low, unit: 'MB' },
    { scenario, figure: 'RSS after warm-up, highest', value: high, unit: 'MB' },
    {
      scenario,
      figure: 'RSS spread after warm-up',
      value: spread * 100,
      unit: '%',
      target: '≤ 10%',
      met: spread <= 0.1 && failures === 0,
      note: `${sent - skipped} turns, ${failures} failed, ${skipped} skipped (server behind); samples every 30 s: ${samples.map((point) => point.rssMb.toFixed(0)).join(' ')}`,
    },
  ]
}

/** `10m`, `90s`, `1h`, or plain seconds. */
export function parseDuration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim())
  if (!match) throw new Error(`--soak: expected a duration like 10m, 90s or 1h, got ${JSON.stringify(text)}`)
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(match[2] ?? 's') as 'ms' | 's' | 'm' | 'h']
  return Number(match[1]) * unit
}
