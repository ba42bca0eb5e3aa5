import { startServerUnderTest, type BenchContext } from '../lib/context'
import type { Row } from '../lib/report'
import type { ServerCommand } from '../lib/server'
import { median } from '../lib/stats'

/**
 * Start-up: the binary from spawn to the first `/healthz` 200 on the existing database of this run (migrated,
 * bootstrapped, with its demo data), and its RSS a second later. Targets ≤ 150 ms and ≤ 120 MB (medians).
 */
export async function startupScenario(context: BenchContext, binary: ServerCommand | undefined): Promise<Row[]> {
  const scenario = 'start-up (binary, existing database)'
  if (!binary)
    return [
      {
        scenario,
        figure: 'spawn to first /healthz 200',
        value: Number.NaN,
        unit: 'ms',
        target: '≤ 150 ms',
        met: false,
        note: 'no binary: the build failed',
      },
    ]
  await context.server.stop()
  const ready: number[] = []
  const rss: number[] = []
  for (let sample = 0; sample < context.config.startup.samples; sample++) {
    const server = await startServerUnderTest(binary, context.dir)
    context.pids.push(server.pid)
    ready.push(server.readyMs)
    await Bun.sleep(1000)
    rss.push(server.rssMb())
    await server.stop()
  }
  context.log(`  start-up: ${median(ready).toFixed(0)} ms, idle RSS ${median(rss).toFixed(0)} MB`)
  return [
    {
      scenario,
      figure: 'spawn to first /healthz 200 (median)',
      value: median(ready),
      unit: 'ms',
      target: '≤ 150 ms',
      met: median(ready) <= 150,
      note: `${binary.note}; samples ${ready.map((ms) => ms.toFixed(0)).join(', ')}`,
    },
    {
      scenario,
      figure: 'idle RSS (median)',
      value: median(rss),
      unit: 'MB',
      target: '≤ 120 MB',
      met: median(rss) <= 120,
    },
  ]
}
