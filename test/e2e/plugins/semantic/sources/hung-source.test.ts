import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createLogger } from '../../../../../lib/logger'
import { createSemanticService } from '../../../../../plugins/semantic/semantic-service'
import { runCli } from '../../../../../src/cli/index'
import { apiKey, createTestApp, type TestApp } from '../../../../helpers/app'
import { mariadbDemoSource } from '../../../../helpers/demo-sources'
import {
  mariadbAvailable,
  ownPostgresServer,
  postgresAvailable,
  type DatabaseServer,
} from '../../../../helpers/database-servers'
import { TEST_DEMO_DATA } from '../../../../helpers/demo-data'
import { keys } from '../../../../helpers/fixtures'

const QUERY_TIMEOUT_MS = 1_500
const COOL_DOWN_MS = 3_000

/**
 * A Postgres source whose server hangs with its connections open (every process of it stopped with SIGSTOP), as a
 * hung database or a network that drops packets looks to the service.
 */
describe.skipIf(!postgresAvailable)('a Postgres source that hangs', () => {
  let server: DatabaseServer
  let test: TestApp
  beforeAll(async () => {
    server = await ownPostgresServer()
    const errors: string[] = []
    const code = await runCli(['demo-data', '--into', server.url], {
      out: () => {},
      err: (text) => void errors.push(text),
      env: { ...process.env, DEMO_DATA_PATH: TEST_DEMO_DATA },
    })
    if (code !== 0) throw new Error(errors.join(''))
    const semantic = createSemanticService({
      config: { dbPath: ':memory:', demoDataPath: TEST_DEMO_DATA },
      logger: createLogger('silent'),
      dataSources: new Map([
        [1, { type: 'postgres', url: server.url, maxConnections: 4, queryTimeoutMs: QUERY_TIMEOUT_MS }],
      ]),
      breaker: { failures: 2, coolDownMs: COOL_DOWN_MS },
    })
    // Deployment 2 reads the built-in demo data (SQLite): the source beside the hung one in /readyz.
    semantic.prepare([1, 2].map((id) => ({ id, model: 'demo', branches: ['main'], defaultBranch: 'main' })))
    test = createTestApp({ semantic })
  }, 120_000)
  afterAll(async () => {
    // Always let the server go on, whatever failed.
    server?.thaw?.()
    await test?.close()
    await server?.stop()
  }, 60_000)

  const sql = async (deploymentId: number, query: string) => {
    const startedAt = performance.now()
    const response = await test.request('POST', `/api/v1/deployments/${deploymentId}/sql`, {
      headers: apiKey(keys.admin),
      body: { query },
    })
    return {
      status: response.status,
      retryAfter: response.headers.get('retry-after'),
      body: (await response.json()) as Record<string, unknown> & { cached?: { computedAt: string } },
      ms: performance.now() - startedAt,
    }
  }

  it('says what it serves from the cache, tells a silent database from a slow query, opens its circuit, and reports itself in /readyz without delaying the others', async () => {
    const counted = 'SELECT MEASURE(orders.count) FROM orders'
    const fresh = await sql(1, counted)
    expect(fresh.body).toEqual({
      schema: [{ name: 'orders.count', column_type: 'number' }],
      data: [['120000']],
      totalRows: 1,
    })
    server.freeze?.()

    // The cached answer still comes, saying it is one and when it was computed.
    const cached = await sql(1, counted)
    expect(cached.status).toBe(200)
    expect(cached.body.data).toEqual([['120000']])
    expect(Date.parse(cached.body.cached?.computedAt ?? '')).toBeLessThanOrEqual(Date.now())

    // /readyz checks every source side by side: the hung one is named, within about a second, and the node is ready.
    const readyStarted = performance.now()
    const ready = await test.request('GET', '/readyz')
    const readyMs = performance.now() - readyStarted
    expect(ready.status).toBe(200)
    const checks = (await ready.json()).checks
    expect(checks['dataSource:1']).toMatchObject({ status: 'failing', error: 'no answer', deploymentId: 1 })
    expect(checks['dataSource:2']).toMatchObject({ status: 'ok', deploymentId: 2 })
    expect(checks['dataSource:2'].ms).toBeLessThan(500)
    expect(readyMs).toBeLessThan(1_500)

    // A question the cache does not hold waits for the time limit, and hears that the database did not answer.
    const silent = await sql(1, "SELECT MEASURE(orders.count) FROM orders WHERE orders.status = 'shipped'")
    expect(silent.status).toBe(504)
    expect(silent.body).toEqual({ error: expect.stringContaining('did not answer'), code: 'QUERY_TIMEOUT' })
    expect(String(silent.body.error)).not.toContain('narrow it down')
    const again = await sql(1, "SELECT MEASURE(orders.count) FROM orders WHERE orders.status = 'returned'")
    expect([again.status, again.body.code]).toEqual([504, 'QUERY_TIMEOUT'])

    // Two in a row: the circuit is open, and the next question is refused at once, with when to try again.
    const refused = await sql(1, "SELECT MEASURE(orders.count) FROM orders WHERE orders.status = 'completed'")
    expect(refused.status).toBe(503)
    expect(refused.body.code).toBe('DATA_SOURCE_UNAVAILABLE')
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1)
    expect(refused.ms).toBeLessThan(500)
    // Another deployment's questions go on meanwhile.
    const other = await sql(2, 'SELECT MEASURE(products.count) FROM products')
    expect([other.status, other.body.data]).toEqual([200, [['120']]])

    // Back: after the cool-down one probe goes through, and its answer closes the circuit.
    server.thaw?.()
    await Bun.sleep(COOL_DOWN_MS)
    const probe = await sql(1, "SELECT MEASURE(orders.count) FROM orders WHERE orders.status = 'completed'")
    expect(probe.status).toBe(200)
    expect(probe.body.cached).toBeUndefined()
    expect((await sql(1, "SELECT MEASURE(orders.count) FROM orders WHERE orders.status = 'cancelled'")).status).toBe(
      200,
    )
  }, 90_000)
})

/**
 * A MariaDB source whose server hangs before the service holds a connection to it: the connection's handshake gets
 * no reply. The question waited for as long as the server slept (minutes), past every limit.
 */
describe.skipIf(!mariadbAvailable)('a MariaDB source that hangs', () => {
  let server: DatabaseServer
  let test: TestApp
  beforeAll(async () => {
    // The run's MariaDB, with the demo tables loaded once for every test that reads them.
    const source = await mariadbDemoSource()
    server = source.server as DatabaseServer
    const semantic = createSemanticService({
      config: { dbPath: ':memory:', demoDataPath: TEST_DEMO_DATA },
      logger: createLogger('silent'),
      dataSources: new Map([[1, { ...source.config, maxConnections: 4, queryTimeoutMs: 1_000 }]]),
      breaker: { failures: 2, coolDownMs: COOL_DOWN_MS },
    })
    test = createTestApp({ semantic })
  }, 120_000)
  afterAll(async () => {
    server?.thaw?.()
    await test?.close()
  }, 60_000)

  it('answers that the database did not answer within its limit, then opens its circuit', async () => {
    const ask = async (query: string) => {
      const startedAt = performance.now()
      const response = await test.request('POST', '/api/v1/deployments/1/sql', {
        headers: apiKey(keys.admin),
        body: { query },
      })
      return { status: response.status, body: await response.json(), ms: performance.now() - startedAt }
    }
    expect((await ask('SELECT MEASURE(orders.count) FROM orders')).status).toBe(200)
    server.freeze?.()
    // /readyz asks it too, and gives up on it after a second.
    for (let index = 0; index < 3; index++) expect((await test.request('GET', '/readyz')).status).toBe(200)
    const first = await ask("SELECT MEASURE(orders.count) FROM orders WHERE orders.status = 'shipped'")
    expect(first.status).toBe(503)
    expect(first.body).toEqual({ error: expect.stringContaining('did not answer'), code: 'DATA_SOURCE_UNAVAILABLE' })
    expect(first.ms).toBeLessThan(8_000)
    await ask("SELECT MEASURE(orders.count) FROM orders WHERE orders.status = 'returned'")
    const refused = await ask("SELECT MEASURE(orders.count) FROM orders WHERE orders.status = 'completed'")
    expect([refused.status, refused.body.code]).toEqual([503, 'DATA_SOURCE_UNAVAILABLE'])
    expect(refused.ms).toBeLessThan(500)
    server.thaw?.()
    await Bun.sleep(COOL_DOWN_MS)
    expect((await ask("SELECT MEASURE(orders.count) FROM orders WHERE orders.status = 'cancelled'")).status).toBe(200)
  }, 60_000)
})
