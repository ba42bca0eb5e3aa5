import { BENCH_KEY, NEIGHBOUR_DEPLOYMENT, NEIGHBOUR_KEY } from '../lib/bootstrap'
import type { BenchContext } from '../lib/context'
import type { Row } from '../lib/report'
import { median, percentile, round } from '../lib/stats'

/** A bystander's trivial question; `n` makes each one new, so neither cache answers it. */
const trivial = (n: number) => `SELECT MEASURE(products.count) FROM products WHERE products.price > ${-1 - n}`
/** A neighbour's heavy one: every line item grouped by city and category, new each time. */
const heavy = (n: number) =>
  `SELECT customers.city, products.category, MEASURE(line_items.total_revenue) FROM line_items WHERE line_items.quantity <> ${-1 - n} GROUP BY 1, 2`

/**
 * Noisy neighbour: the median of a bystander's trivial `/sql` query, idle and while another account keeps `heavy`
 * heavy queries running at once (a closed loop: each sends its next as soon as its last is answered). Both read the
 * demo data, so they share the SQLite query processes. Target: the bystander's median under load at most 3 times
 * its idle median.
 */
export async function noisyNeighbourScenario(ctx: BenchContext): Promise<Row[]> {
  const { samples, heavy: concurrent } = ctx.config.noisy
  let counter = 0
  const ask = async (key: string, deploymentId: number, query: string): Promise<number> => {
    const startedAt = performance.now()
    const response = await fetch(`${ctx.server.url}/api/v1/deployments/${deploymentId}/sql`, {
      method: 'POST',
      headers: { authorization: `Api-Key ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
    })
    await response.arrayBuffer()
    if (response.status !== 200 && response.status !== 429)
      throw new Error(`noisy neighbour: /sql answered ${response.status}`)
    return performance.now() - startedAt
  }
  const bystander = async (): Promise<number[]> => {
    const latencies: number[] = []
    for (let index = 0; index < samples; index++) latencies.push(await ask(BENCH_KEY, 1, trivial(counter++)))
    return latencies
  }

  await bystander() // Warm-up: the query processes are started and the demo data read once.
  const idle = await bystander()
  let loading = true
  let heavyDone = 0
  const neighbour = Array.from({ length: concurrent }, async () => {
    while (loading) {
      await ask(NEIGHBOUR_KEY, NEIGHBOUR_DEPLOYMENT, heavy(counter++))
      heavyDone++
    }
  })
  // Let the neighbour's queries fill the queue before the bystander asks.
  await Bun.sleep(200)
  const loaded = await bystander()
  loading = false
  await Promise.all(neighbour)

  const idleMedian = median(idle)
  const loadedMedian = median(loaded)
  ctx.log(
    `noisy neighbour: bystander median ${round(idleMedian)} ms idle, ${round(loadedMedian)} ms beside ${concurrent} heavy queries (p95 ${round(percentile(loaded, 95))} ms; ${heavyDone} heavy answered)`,
  )
  return [
    { scenario: 'noisy neighbour', figure: 'bystander median, idle', value: round(idleMedian), unit: 'ms' },
    {
      scenario: 'noisy neighbour',
      figure: `bystander median, ${concurrent} heavy queries of another account`,
      value: round(loadedMedian),
      unit: 'ms',
      baseline: round(idleMedian),
      ratio: round(loadedMedian / idleMedian, 2),
      target: '≤ 3× idle',
      met: loadedMedian <= 3 * idleMedian,
      note: `p95 ${round(percentile(loaded, 95))} ms`,
    },
  ]
}
