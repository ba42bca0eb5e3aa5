/**
 * Data source overhead: the analyst benchmark's questions as `/sql` queries on a Postgres source, against the same
 * compiled SQL sent straight through Bun's Postgres client, at concurrency 16. Reports the overhead ratio (target:
 * the service adds at most 20%) and pool reuse (the service's Postgres connections before and after the load).
 *
 *   bun run bench/scenarios/data-sources.ts [--seconds 10] [--concurrency 16]
 *
 * Uses BENCH_POSTGRES_URL when set (its database gets the demo tables), else a throwaway Postgres cluster.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { compileQuery } from '../../plugins/semantic/compile/query-compiler'
import { accessView } from '../../plugins/semantic/semantic-model/access-policy'
import { loadDemoModel } from '../../plugins/semantic/demo/demo-model'
import { parseQuery } from '../../plugins/semantic/query/query-parser'
import { planQuery } from '../../plugins/semantic/query/query-planner'
import { postgresDialect } from '../../plugins/semantic/sources/dialects/postgres-dialect'
import { runCli } from '../../src/cli/index'
import { freePort, postgresServer, stopDatabaseServers } from '../../test/helpers/database-servers'
import { percentile, round } from '../lib/stats'

// The analyst scenario's ten questions, as the queries the analyst sends for them. `{n}` is a per-request value
// (an always-true filter) so neither side answers from a cache: both run every query in the database.
const QUERIES = [
  "SELECT MEASURE(orders.count) FROM orders WHERE orders.created_at >= '2024-01-01' AND orders.created_at < '2025-01-01' AND orders.amount > {n}",
  'SELECT customers.region, MEASURE(orders.total_amount) FROM orders WHERE orders.amount > {n} GROUP BY 1 ORDER BY 2 DESC',
  'SELECT products.name, MEASURE(line_items.total_revenue) FROM line_items WHERE line_items.amount > {n} GROUP BY 1 ORDER BY 2 DESC LIMIT 5',
  'SELECT products.category, MEASURE(line_items.total_quantity) FROM line_items WHERE line_items.amount > {n} GROUP BY 1 ORDER BY 2 DESC',
  "SELECT orders.status, MEASURE(orders.count) FROM orders WHERE orders.created_at >= '2023-01-01' AND orders.created_at < '2024-01-01' AND orders.amount > {n} GROUP BY 1",
  "SELECT DATE_TRUNC('month', orders.created_at), MEASURE(orders.total_amount) FROM orders WHERE orders.created_at >= '2024-01-01' AND orders.created_at < '2025-01-01' AND orders.amount > {n} GROUP BY 1 ORDER BY 1",
  'SELECT products.category, MEASURE(products.average_price) FROM products WHERE products.price > {n} GROUP BY 1 ORDER BY 2 DESC',
  'SELECT MEASURE(customers.vip_count) FROM customers WHERE customers.id > {n}',
  'SELECT customers.city, MEASURE(orders.count) FROM orders WHERE orders.amount > {n} GROUP BY 1 ORDER BY 2 DESC LIMIT 3',
  "SELECT MEASURE(orders.total_amount) FROM orders WHERE customers.segment = 'Corporate' AND customers.region = 'North America' AND orders.amount > {n}",
]

const { values } = parseArgs({
  options: { seconds: { type: 'string', default: '10' }, concurrency: { type: 'string', default: '16' } },
})
const seconds = Number(values.seconds)
const concurrency = Number(values.concurrency)
const folder = mkdtempSync(join(tmpdir(), 'bench-sources-'))
let server: ReturnType<typeof Bun.spawn> | undefined

/** A closed loop: `concurrency` workers send one request after another until the time is up (bounded). */
async function closedLoop(run: (index: number) => Promise<void>): Promise<{ count: number; latencies: number[] }> {
  const latencies: number[] = []
  const deadline = performance.now() + seconds * 1000
  let next = 0
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const startedAt = performance.now()
        await run(next++)
        latencies.push(performance.now() - startedAt)
      }
    }),
  )
  return { count: latencies.length, latencies }
}

try {
  const url = process.env.BENCH_POSTGRES_URL ?? (await postgresServer()).url
  const quiet = { out: () => {}, err: () => {}, env: process.env }
  process.env.DEMO_DATA_PATH ??= join(folder, 'demo-data.db')
  if ((await runCli(['demo-data', '--into', url], quiet)) !== 0) throw new Error('demo-data failed')
  const port = await freePort()
  const key = 'ak_bench_sources_0123456789'
  writeFileSync(
    join(folder, 'bootstrap.json'),
    JSON.stringify({
      accounts: [
        {
          name: 'bench',
          plan: 'enterprise',
          apiKeys: [{ name: 'admin', key, admin: true }],
          deployments: [
            { id: 1, name: 'Shop', model: 'demo', dataSource: { type: 'postgres', url: '${BENCH_SOURCE_URL}' } },
          ],
        },
      ],
    }),
  )
  server = Bun.spawn([process.execPath, 'run', 'src/main.ts'], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DB_PATH: join(folder, 'service.db'),
      BOOTSTRAP_FILE: join(folder, 'bootstrap.json'),
      BENCH_SOURCE_URL: url,
      LOG_LEVEL: 'warn',
    },
    stdout: 'ignore',
    stderr: 'inherit',
  })
  for (let attempt = 0; attempt < 200; attempt++) {
    if (
      await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (response) => response.ok,
        () => false,
      )
    )
      break
    await Bun.sleep(100)
  }
  const model = loadDemoModel('main')
  const view = accessView(model, null)
  const compiled = (index: number) => {
    const sql = QUERIES[index % QUERIES.length].replace('{n}', String(-1 - index))
    return { sql, compiled: compileQuery(model, view, planQuery(model, view, parseQuery(sql)), postgresDialect) }
  }
  const viaService = (index: number) =>
    fetch(`http://127.0.0.1:${port}/api/v1/deployments/1/sql`, {
      method: 'POST',
      headers: { authorization: `Api-Key ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: compiled(index).sql }),
    }).then(async (response) => {
      if (!response.ok) throw new Error(`/sql answered ${response.status}: ${await response.text()}`)
      await response.arrayBuffer()
    })
  const direct = new Bun.SQL(url, {
    max: 10,
    connection: { default_transaction_read_only: 'on', TimeZone: 'UTC' },
  } as Bun.SQL.Options)
  const viaDriver = async (index: number) => {
    const { compiled: query } = compiled(index)
    await direct.unsafe(query.sql, query.params).values()
  }
  const admin = new Bun.SQL(url, { max: 1 })
  const serviceConnections = async () =>
    (await admin.unsafe(
      "SELECT pid, backend_start FROM pg_stat_activity WHERE application_name = 'analytics-chat-service'",
    )) as Array<{ pid: number; backend_start: Date }>
  // Warm both sides (connections, plans), then measure each in turn.
  await closedLoop.call(null, async (index) => void (await Promise.all([viaService(index), viaDriver(index)])))
  const before = await serviceConnections()
  const loopStart = new Date()
  const service = await closedLoop(viaService)
  const after = await serviceConnections()
  const driver = await closedLoop(viaDriver)
  const rate = (run: { count: number }) => run.count / seconds
  const overhead = rate(driver) / rate(service) - 1
  const opened = after.filter((connection) => connection.backend_start > loopStart).length
  console.log(`data sources: /sql on Postgres vs the driver at concurrency ${concurrency}, ${seconds} s each`)
  console.log(
    `  /sql:   ${round(rate(service))} queries/s, p50 ${round(percentile(service.latencies, 50))} ms, p99 ${round(percentile(service.latencies, 99))} ms`,
  )
  console.log(
    `  driver: ${round(rate(driver))} queries/s, p50 ${round(percentile(driver.latencies, 50))} ms, p99 ${round(percentile(driver.latencies, 99))} ms`,
  )
  console.log(`  overhead: ${round(overhead * 100)}% (target ≤ 20%) ${overhead <= 0.2 ? 'met' : 'NOT met'}`)
  console.log(
    `  pool: ${before.length} service connections before, ${after.length} after ${service.count} queries, ${opened} opened during the load (target: 0)`,
  )
  await direct.close()
  await admin.close()
} finally {
  server?.kill()
  await server?.exited
  stopDatabaseServers()
  rmSync(folder, { recursive: true, force: true })
}
