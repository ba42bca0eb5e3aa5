import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { resolveDataSources } from '../../../../../src/bootstrap/data-sources'
import { validateBootstrap } from '../../../../../src/bootstrap/load'
import { createSemanticService } from '../../../../../plugins/semantic/semantic-service'
import { serviceSqlApi } from '../../../../../plugins/semantic/tools'
import { createLogger } from '../../../../../lib/logger'
import { apiKey, createTestApp, type TestApp } from '../../../../helpers/app'
import { freePort, mariadbAvailable, postgresAvailable, warnSkipped } from '../../../../helpers/database-servers'
import { TEST_DEMO_DATA } from '../../../../helpers/demo-data'
import { mariadbDemoSource, postgresDemoSource, type DemoSource } from '../../../../helpers/demo-sources'
import { keys } from '../../../../helpers/fixtures'
import { WHOLE_MODEL } from '../../../../plugins/semantic/helpers'

const semanticWith = (dataSources: Map<number, DemoSource['config']>) =>
  createSemanticService({
    config: { dbPath: ':memory:', demoDataPath: TEST_DEMO_DATA },
    logger: createLogger('silent'),
    dataSources,
  })

const sql = (test: TestApp, deploymentId: number, query: string) =>
  test.request('POST', `/api/v1/deployments/${deploymentId}/sql`, { headers: apiKey(keys.admin), body: { query } })

// The source's server is not the run's Postgres (see postgresDemoSource): stopping it leaves the test app's own state
// up, also with TEST_STORAGE=postgres, so the 503 below is the source's outage and not the app's storage failing.
describe.skipIf(!postgresAvailable)('a Postgres source that goes down', () => {
  let source: DemoSource
  let test: TestApp
  beforeAll(async () => {
    source = await postgresDemoSource()
    test = createTestApp({ semantic: semanticWith(new Map([[1, source.config]])) })
  }, 120_000)
  afterAll(async () => {
    await source.server?.start().catch(() => {})
    await test.close()
  }, 60_000)

  it('answers 503 DATA_SOURCE_UNAVAILABLE without the URL while down, leaves other deployments alone, and recovers without a restart', async () => {
    const before = await sql(test, 1, 'SELECT MEASURE(orders.count) FROM orders')
    expect(before.status).toBe(200)
    expect((await before.json()).data).toEqual([['120000']])
    await source.server?.stop()
    const down = await sql(
      test,
      1,
      "SELECT orders.status, MEASURE(orders.count) FROM orders WHERE orders.status = 'shipped' GROUP BY 1",
    )
    expect(down.status).toBe(503)
    const text = await down.text()
    expect(JSON.parse(text)).toEqual({
      error: expect.stringContaining('deployment 1 is unavailable'),
      code: 'DATA_SOURCE_UNAVAILABLE',
    })
    const url = new URL(source.config.url as string)
    for (const secret of [url.host, url.port, url.username, 'postgres://']) expect(text).not.toContain(secret)
    // The analyst's tool hears { error } and the chat goes on; deployment 2 reads the built-in data meanwhile.
    const tool = await serviceSqlApi(
      { sqlQuery: 'SELECT MEASURE(products.count) FROM products' },
      {
        semantic: test.deps.semantic,
        deployment: { id: 1, model: 'demo', branches: ['main'], defaultBranch: 'main' },
        access: WHOLE_MODEL,
      },
    )
    expect(tool).toEqual({ error: expect.stringContaining('unavailable') })
    expect((await sql(test, 2, 'SELECT MEASURE(products.count) FROM products')).status).toBe(200)
    // /readyz lists the source as failing, without its URL, and the node stays ready.
    const ready = await test.request('GET', '/readyz')
    expect(ready.status).toBe(200)
    const readyText = await ready.text()
    expect(JSON.parse(readyText)).toMatchObject({
      status: 'ready',
      checks: { 'dataSource:1': { status: 'failing', required: false, deploymentId: 1, type: 'postgres' } },
    })
    for (const secret of [url.host, url.password, 'postgres://'].filter(Boolean))
      expect(readyText).not.toContain(secret)
    // The kind of failure, naming nothing of the source (the driver's own text goes to the log).
    expect(JSON.parse(readyText).checks['dataSource:1'].error).toBe('unreachable')
    await source.server?.start()
    const after = await sql(
      test,
      1,
      "SELECT orders.status, MEASURE(orders.count) FROM orders WHERE orders.status = 'returned' GROUP BY 1",
    )
    expect(after.status).toBe(200)
    expect((await after.json()).data[0][0]).toBe('returned')
    const readyAgain = (await (await test.request('GET', '/readyz')).json()) as {
      checks: Record<string, { status: string }>
    }
    expect(readyAgain.checks['dataSource:1'].status).toBe('ok')
  }, 60_000)
})

describe('a source that cannot be reached at start', () => {
  it('does not hold up the start, and answers 503 at once', async () => {
    const port = await freePort()
    const semantic = semanticWith(
      new Map([
        [
          1,
          {
            type: 'postgres',
            url: `postgres://reader:topsecret@127.0.0.1:${port}/shop`,
            maxConnections: 2,
            queryTimeoutMs: 5_000,
          },
        ],
      ]),
    )
    const startedAt = performance.now()
    semantic.prepare([{ id: 1, model: 'demo', branches: ['main'], defaultBranch: 'main' }])
    expect(performance.now() - startedAt).toBeLessThan(5_000)
    const outcome = await semantic
      .query(
        { deployment: { id: 1, model: 'demo', branches: ['main'], defaultBranch: 'main' }, access: WHOLE_MODEL },
        'SELECT COUNT(*) FROM orders',
      )
      .catch((error: Error) => error)
    expect(outcome).toMatchObject({ status: 503, code: 'DATA_SOURCE_UNAVAILABLE' })
    expect((outcome as Error).message).not.toContain('topsecret')
    semantic.close()
  })
})

// A URL of another kind, or with a port past 65535, stopped the whole server at start, for every account.
describe('a source whose URL no client can be made of', () => {
  it('answers 503 DATA_SOURCE_UNAVAILABLE and /readyz says invalid configuration, and the start goes on', async () => {
    const bootstrap = validateBootstrap(
      {
        accounts: [
          {
            name: 'acme',
            plan: 'enterprise',
            deployments: [
              { id: 1, name: 'a', model: 'demo', dataSource: { type: 'postgres', url: 'http://db.internal/shop' } },
              { id: 2, name: 'b', model: 'demo', dataSource: { type: 'mysql', url: 'mysql://u:hunter2@db:99999/x' } },
            ],
          },
        ],
      },
      'bootstrap.yaml',
    )
    const test = createTestApp({ semantic: semanticWith(resolveDataSources(bootstrap, {}, 'bootstrap.yaml')) })
    try {
      for (const deploymentId of [1, 2]) {
        const response = await sql(test, deploymentId, 'SELECT MEASURE(orders.count) FROM orders')
        const text = await response.text()
        expect({ deploymentId, status: response.status, body: JSON.parse(text) }).toEqual({
          deploymentId,
          status: 503,
          body: { error: expect.stringContaining(`deployment ${deploymentId}`), code: 'DATA_SOURCE_UNAVAILABLE' },
        })
        expect(text).not.toContain('hunter2')
      }
      const ready = await test.request('GET', '/readyz')
      expect(ready.status).toBe(200)
      const checks = (await ready.json()).checks
      for (const deploymentId of [1, 2])
        expect(checks[`dataSource:${deploymentId}`]).toMatchObject({
          status: 'failing',
          error: 'invalid configuration',
        })
    } finally {
      await test.close()
    }
  })
})

// A SQLite path that names a text file or a folder: the query was answered 400 "try a simpler form of it" and /readyz
// said "ok", though no query could ever run there.
describe('a SQLite source whose file is no database', () => {
  const folder = mkdtempSync(join(tmpdir(), 'not-a-database-'))
  afterAll(() => rmSync(folder, { recursive: true, force: true }))

  it('answers 503 DATA_SOURCE_UNAVAILABLE, and /readyz lists it as failing while the node stays ready', async () => {
    const text = join(folder, 'notes.db')
    writeFileSync(text, 'these are notes, not a database\n')
    const config = (path: string) => ({ type: 'sqlite' as const, path, maxConnections: 2, queryTimeoutMs: 5_000 })
    const test = createTestApp({
      semantic: semanticWith(
        new Map([
          [1, config(text)],
          [2, config(folder)],
        ]),
      ),
    })
    try {
      for (const deploymentId of [1, 2]) {
        const response = await sql(test, deploymentId, 'SELECT MEASURE(orders.count) FROM orders')
        expect({ deploymentId, status: response.status, body: await response.json() }).toEqual({
          deploymentId,
          status: 503,
          body: {
            error: expect.stringContaining(`deployment ${deploymentId} is unavailable`),
            code: 'DATA_SOURCE_UNAVAILABLE',
          },
        })
      }
      const ready = await test.request('GET', '/readyz')
      expect(ready.status).toBe(200)
      const checks = (await ready.json()).checks
      for (const deploymentId of [1, 2])
        expect(checks[`dataSource:${deploymentId}`]).toMatchObject({ status: 'failing', error: 'not a database file' })
    } finally {
      await test.close()
    }
  })
})

// A source configured wrong is the operator's problem, not the caller's query's: 503, naming neither user nor host.
for (const [name, make, available] of [
  ['postgres', postgresDemoSource, postgresAvailable],
  ['mariadb', mariadbDemoSource, mariadbAvailable],
] as const) {
  describe.skipIf(!available)(`a ${name} source whose login or database is refused`, () => {
    it('answers 503 DATA_SOURCE_UNAVAILABLE, naming neither the user nor the database', async () => {
      const source = await make()
      const url = new URL(source.config.url as string)
      // An unknown user: the test servers trust local logins, so a wrong password alone would pass.
      const wrongLogin = new URL(url)
      wrongLogin.username = 'nobody_here'
      wrongLogin.password = 'not-the-password'
      const noDatabase = new URL(url)
      noDatabase.pathname = '/no_such_database'
      const semantic = semanticWith(
        new Map([
          [1, { ...source.config, url: wrongLogin.href }],
          [2, { ...source.config, url: noDatabase.href }],
        ]),
      )
      try {
        for (const id of [1, 2]) {
          const outcome = await semantic
            .query(
              { deployment: { id, model: 'demo', branches: ['main'], defaultBranch: 'main' }, access: WHOLE_MODEL },
              'SELECT MEASURE(products.count) FROM products',
            )
            .catch((error: Error) => error)
          expect(outcome).toMatchObject({ status: 503, code: 'DATA_SOURCE_UNAVAILABLE' })
          for (const secret of ['nobody_here', url.username, 'no_such_database', url.host])
            expect((outcome as Error).message).not.toContain(secret)
        }
        // The health /readyz shows (to anyone) names the kind of failure, never the user or the database.
        const health = await semantic.sourceHealth()
        expect(health.map((source) => [source.deploymentId, 'error' in source ? source.error : 'ok'])).toEqual([
          [1, 'authentication failed'],
          [2, 'database not found'],
        ])
      } finally {
        semantic.close()
      }
    }, 60_000)
  })
}

// A model whose one cube takes seconds to read, on each server: the statement limit cancels it in the database.
const SLOW: Record<string, string> = {
  postgres: 'SELECT x FROM generate_series(1, 50000000) AS x',
  mariadb: 'SELECT SLEEP(3) AS x',
}

for (const [name, make, available] of [
  ['postgres', postgresDemoSource, postgresAvailable],
  ['mariadb', mariadbDemoSource, mariadbAvailable],
] as const) {
  describe.skipIf(!available)(`the statement limit on ${name}`, () => {
    it('answers 504 QUERY_TIMEOUT, and the next query runs', async () => {
      const folder = mkdtempSync(join(tmpdir(), 'slow-model-'))
      writeFileSync(
        join(folder, 'slow.yml'),
        `cubes:\n  - name: slow\n    sql: "${SLOW[name]}"\n    dimensions:\n      - name: x\n        type: number\n    measures:\n      - name: count\n        type: count\n`,
      )
      try {
        const source = await make()
        const semantic = semanticWith(new Map([[9, { ...source.config, queryTimeoutMs: 300 }]]))
        const deployment = { id: 9, model: folder, branches: ['main'], defaultBranch: 'main' }
        const outcome = await semantic
          .query({ deployment, access: WHOLE_MODEL }, 'SELECT MEASURE(slow.count) FROM slow')
          .catch((error: Error) => error)
        expect(outcome).toMatchObject({ status: 504, code: 'QUERY_TIMEOUT' })
        const next = await semantic
          .query({ deployment, access: WHOLE_MODEL }, 'SELECT MEASURE(slow.count) FROM slow WHERE slow.x = -1')
          .catch((error: Error) => error)
        expect(next).toMatchObject({ status: 504 })
        const quick = await semantic.query(
          { deployment: { ...deployment, model: 'demo' }, access: WHOLE_MODEL },
          'SELECT MEASURE(products.count) FROM products',
        )
        expect(quick.data).toEqual([['120']])
        semantic.close()
      } finally {
        rmSync(folder, { recursive: true, force: true })
      }
    }, 60_000)
  })
}

if (!postgresAvailable) warnSkipped('Postgres outage tests')
if (!mariadbAvailable) warnSkipped('MariaDB statement limit tests')

describe.skipIf(!mariadbAvailable)('a MariaDB source', () => {
  const demo = { id: 7, model: 'demo', branches: ['main'], defaultBranch: 'main' }
  const count = (semantic: ReturnType<typeof semanticWith>, query: string) =>
    semantic.query({ deployment: demo, access: WHOLE_MODEL }, query).then((result) => result.data[0][0])

  it('keeps LIKE working on a server that runs with NO_BACKSLASH_ESCAPES', async () => {
    const source = await mariadbDemoSource()
    const admin = new Bun.SQL(source.config.url as string)
    await admin.unsafe("SET GLOBAL sql_mode = CONCAT(@@GLOBAL.sql_mode, ',NO_BACKSLASH_ESCAPES')")
    const semantic = semanticWith(new Map([[7, source.config]]))
    try {
      expect(
        await count(semantic, "SELECT MEASURE(customers.count) FROM customers WHERE customers.name LIKE 'A%'"),
      ).toMatch(/^[1-9]\d*$/)
    } finally {
      semantic.close()
      await admin.unsafe("SET GLOBAL sql_mode = REPLACE(@@GLOBAL.sql_mode, 'NO_BACKSLASH_ESCAPES', '')")
      await admin.close()
    }
  }, 60_000)
})
