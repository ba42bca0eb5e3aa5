import { afterAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createLogger } from '../../../lib/logger'
import { QueryPool } from '../../../plugins/semantic/sources/query-pool'
import { serviceSqlApi } from '../../../plugins/semantic/tools'
import { apiKey, createTestApp } from '../../helpers/app'
import { keys, testBootstrap } from '../../helpers/fixtures'
import { demoDeployment, demoService, WHOLE_MODEL } from './helpers'

// A test-only model whose one cube never ends: a recursive CTE without a stop.
const folder = mkdtempSync(join(tmpdir(), 'semantic-slow-'))
writeFileSync(
  join(folder, 'slow.yml'),
  `cubes:
  - name: endless
    sql: "WITH RECURSIVE numbers(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM numbers) SELECT x FROM numbers"
    dimensions:
      - name: x
        type: number
    measures:
      - name: count
        type: count
`,
)
const semantic = demoService({ queryTimeoutMs: 300, workers: 1 })
afterAll(() => {
  semantic.close()
  rmSync(folder, { recursive: true, force: true })
})

describe('the query time limit', () => {
  it('stops a query past the limit with { error }, and the next query runs on a fresh worker', async () => {
    const slow = {
      semantic,
      deployment: { id: 9, model: folder, branches: ['main'], defaultBranch: 'main' },
      access: WHOLE_MODEL,
    }
    const stopped = await serviceSqlApi({ sqlQuery: 'SELECT MEASURE(endless.count) FROM endless' }, slow)
    expect(stopped).toEqual({ error: expect.stringContaining('300 ms time limit') })
    const next = await serviceSqlApi(
      { sqlQuery: 'SELECT MEASURE(products.count) FROM products' },
      { semantic, deployment: demoDeployment, access: WHOLE_MODEL },
    )
    expect(next).toEqual({ schema: [{ name: 'products.count', column_type: 'number' }], data: [['120']], totalRows: 1 })
  })

  it('answers 504 QUERY_TIMEOUT through the service', async () => {
    const deployment = { id: 9, model: folder, branches: ['main'], defaultBranch: 'main' }
    await expect(
      semantic.query({ deployment, access: WHOLE_MODEL }, 'SELECT endless.x FROM endless LIMIT 5'),
    ).rejects.toMatchObject({
      status: 504,
      code: 'QUERY_TIMEOUT',
    })
  })
})

describe('POST /api/v1/deployments/:id/sql past the time limit', () => {
  it('logs the 504 a caller caused as a warning without a stack, never as an error', async () => {
    const lines: Array<Record<string, unknown>> = []
    const logger = createLogger('debug', {}, (line) => lines.push(JSON.parse(line)))
    const bootstrap = testBootstrap()
    bootstrap.accounts[0].deployments![0].model = folder
    const test = createTestApp({ bootstrap, logger, semantic: demoService({ queryTimeoutMs: 300, workers: 1 }) })
    try {
      const response = await test.request('POST', '/api/v1/deployments/1/sql', {
        headers: apiKey(keys.admin),
        body: { query: 'SELECT MEASURE(endless.count) FROM endless' },
      })
      expect(response.status).toBe(504)
      expect((await response.json()).code).toBe('QUERY_TIMEOUT')
      expect(lines.filter((line) => line.level === 'error')).toEqual([])
      const warning = lines.find((line) => line.msg === 'request stopped at its time limit')
      expect(warning).toMatchObject({ level: 'warn', code: 'QUERY_TIMEOUT', path: '/api/v1/deployments/1/sql' })
      expect(JSON.stringify(lines)).not.toContain('stack')
    } finally {
      await test.close()
    }
  })
})

describe('QueryPool', () => {
  it('answers 429 at once when too many queries are already waiting', async () => {
    const pool = new QueryPool({ size: 1, timeoutMs: 200 })
    const endless = {
      path: semantic.demoData().path,
      sql: 'WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT count(*) FROM n',
      params: [],
      maxRows: 1,
    }
    const waiting = Array.from({ length: 201 }, () => pool.run(endless).catch((error: Error) => error))
    const refused = await pool.run(endless).catch((error: Error) => error)
    expect(refused).toMatchObject({ status: 429, code: 'RATE_LIMITED' })
    pool.close()
    const settled = await Promise.all(waiting)
    expect(settled.every((outcome) => outcome instanceof Error)).toBe(true)
  })
})
