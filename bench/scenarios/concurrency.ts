import type { BenchContext } from '../lib/context'
import type { Row } from '../lib/report'
import { holdOpenRuns } from './open-runs'

/**
 * Concurrency: 10,000 simultaneous runs of the scripted agent, each pausing 1 s between its lines for 30 s, on a
 * freshly started server. No errors, every stream complete; peak server RSS ≤ 400 MB.
 */
export async function concurrencyScenario(context: BenchContext): Promise<Row[]> {
  const { runs, rampMs, workers, lines, delayMs } = context.config.concurrency
  const held = await holdOpenRuns(context, { runs, lines, rampMs, workers })
  const scenario = `concurrency (${runs.toLocaleString('en')} runs, ${lines} lines ${delayMs} ms apart)`
  context.log(
    `  concurrency: ${held.completed}/${runs} complete, ${held.failures} failed, peak RSS ${held.peakRssMb.toFixed(0)} MB (idle ${held.idleRssMb.toFixed(0)} MB)`,
  )
  return [
    {
      scenario,
      figure: 'streams complete without error',
      value: (100 * held.completed) / runs,
      unit: '%',
      target: '100%, no errors',
      met: held.completed === runs && held.failures === 0,
      note: held.failureSamples.length ? held.failureSamples.join('; ') : undefined,
    },
    {
      scenario,
      figure: 'peak server RSS (baseline: idle RSS)',
      value: held.peakRssMb,
      unit: 'MB',
      baseline: held.idleRssMb,
      target: '≤ 400 MB',
      met: held.peakRssMb <= 400,
      note: `${held.kbPerRun.toFixed(1)} KB per run over idle`,
    },
  ]
}
