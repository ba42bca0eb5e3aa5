import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { and, eq } from 'drizzle-orm'
import { first } from '../../../db/client'
import { apiKey, createTestApp, type TestApp } from '../../helpers/app'
import { keys } from '../../helpers/fixtures'
import { rawRows } from './helpers'

let test: TestApp
let dataPath: string
const admin = apiKey(keys.admin)

beforeAll(() => {
  test = createTestApp()
  dataPath = test.deps.semantic.demoData().path
})
afterAll(() => test.close())

async function call(method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const response = await test.request(method, path, { headers, body })
  return { status: response.status, body: (await response.json()) as Record<string, any> }
}

const sql = (headers: Record<string, string>, body: Record<string, unknown>) =>
  call('POST', '/api/v1/deployments/1/sql', headers, body)
const meta = (headers: Record<string, string>, query = '') => call('GET', `/api/v1/deployments/1/meta${query}`, headers)

/** An embed token for an external user of deployment 1, minted through generate-session. */
async function embedToken(externalId: string, extra: Record<string, unknown>): Promise<Record<string, string>> {
  const session = await call('POST', '/api/v1/embed/generate-session', admin, { deploymentId: 1, externalId, ...extra })
  expect(session.status).toBe(200)
  const exchanged = await call('POST', '/api/v1/embed/session/token', {}, { sessionId: session.body.sessionId })
  return { authorization: `Embed-Token ${exchanged.body.token}` }
}

const BY_REGION =
  'SELECT customers.region, MEASURE(orders.count), MEASURE(line_items.count) FROM line_items GROUP BY 1 ORDER BY 1'
const EXPECTED_BY_REGION = () =>
  rawRows(
    dataPath,
    `SELECT r.name, count(DISTINCT o.id), count(*) FROM line_items li JOIN orders o ON o.id = li.order_id JOIN customers c ON c.id = o.customer_id
       JOIN regions r ON r.id = c.region_id GROUP BY 1 ORDER BY 1`,
  ).map((row) => row.map(String))

describe('POST /api/v1/deployments/:deploymentId/sql', () => {
  it('reads the whole model with an API key alone', async () => {
    const response = await sql(admin, { query: BY_REGION })
    expect(response.status).toBe(200)
    expect(response.body.data).toEqual(EXPECTED_BY_REGION())
    expect(response.body.data).toHaveLength(6)
  })

  it('gives each user of sessionSettings only the rows of their region, and provisions them', async () => {
    const expected = EXPECTED_BY_REGION()
    for (const region of ['Europe', 'Asia']) {
      const response = await sql(admin, {
        query: BY_REGION,
        sessionSettings: {
          externalId: `buyer-${region.toLowerCase()}`,
          userAttributes: [{ name: 'region', value: region }],
        },
      })
      expect(response.status).toBe(200)
      expect(response.body.data).toEqual(expected.filter((row) => row[0] === region))
      const { users, userAttributeValues: values, userAttributeDefinitions: definitions } = test.storage.tables
      const stored = await first(
        test.storage.db
          .select({ value: values.value })
          .from(users)
          .innerJoin(values, eq(values.userId, users.id))
          .innerJoin(definitions, eq(definitions.id, values.attributeId))
          .where(and(eq(users.identity, `buyer-${region.toLowerCase()}`), eq(definitions.name, 'region'))),
      )
      expect(stored?.value ?? null).toBe(region)
    }
  })

  it('gives each embed token only the rows of its region; a user without the attribute sees all', async () => {
    const expected = EXPECTED_BY_REGION()
    const europe = await sql(await embedToken('eu-viewer', { userAttributes: [{ name: 'region', value: 'Europe' }] }), {
      query: BY_REGION,
    })
    const oceania = await sql(
      await embedToken('oc-viewer', { userAttributes: [{ name: 'region', value: 'Oceania' }] }),
      { query: BY_REGION },
    )
    const everyone = await sql(await embedToken('no-region', {}), { query: BY_REGION })
    expect(europe.body.data).toEqual(expected.filter((row) => row[0] === 'Europe'))
    expect(oceania.body.data).toEqual(expected.filter((row) => row[0] === 'Oceania'))
    expect(everyone.body.data).toEqual(expected)
  })

  it('refuses a member hidden by policy, and serves it to the group that may see it', async () => {
    const query = 'SELECT customers.email FROM customers ORDER BY 1 LIMIT 1'
    const viewer = await sql(await embedToken('viewer', { userAttributes: [{ name: 'region', value: 'Asia' }] }), {
      query,
    })
    expect(viewer.status).toBe(400)
    expect(viewer.body).toEqual({
      error: expect.stringContaining('Unknown member customers.email'),
      code: 'INVALID_QUERY',
    })
    const seller = await sql(
      await embedToken('seller', { userAttributes: [{ name: 'region', value: 'Asia' }], groups: ['sales'] }),
      { query },
    )
    expect(seller.status).toBe(200)
    const [expected] = rawRows(
      dataPath,
      `SELECT c.email FROM customers c JOIN regions r ON r.id = c.region_id WHERE r.name = 'Asia' ORDER BY 1 LIMIT 1`,
    )
    expect(seller.body.data).toEqual([[expected[0]]])
  })

  it('caps rows at 100 unless an explicit limit asks for more, and counts them all', async () => {
    const query = "SELECT orders.id FROM orders WHERE orders.created_at < '2021-03-01' ORDER BY 1"
    const [[total]] = rawRows(dataPath, "SELECT count(*) FROM orders WHERE created_at < '2021-03-01'")
    const capped = await sql(admin, { query })
    const more = await sql(admin, { query, limit: 1000 })
    expect(capped.body.data).toHaveLength(100)
    expect(more.body.data).toHaveLength(Math.min(1000, Number(total)))
    expect(capped.body.totalRows).toBe(Number(total))
    expect(more.body.totalRows).toBe(Number(total))
    expect((await sql(admin, { query, limit: 10_001 })).status).toBe(400)
  })

  it('answers 400 INVALID_QUERY for a bad query and 400 for an unknown branch', async () => {
    expect(await sql(admin, { query: 'SELECT orders.statuz FROM orders' })).toEqual({
      status: 400,
      body: { error: expect.stringContaining('Did you mean orders.status'), code: 'INVALID_QUERY' },
    })
    expect(await sql(admin, { query: 'SELECT orders.status FROM orders', branchName: 'feature-x' })).toEqual({
      status: 400,
      body: {
        error: 'Branch feature-x not found in deployment 1; its branches are main, dev',
        code: 'BRANCH_NOT_FOUND',
      },
    })
  })

  it('reads the dev branch model when asked', async () => {
    const response = await sql(admin, {
      query: 'SELECT MEASURE(orders.cancelled_count) FROM orders',
      branchName: 'dev',
    })
    const [[cancelled]] = rawRows(dataPath, "SELECT count(*) FROM orders WHERE status = 'cancelled'")
    expect(response.body.data).toEqual([[String(cancelled)]])
  })

  it('refuses sessionSettings with an embed token', async () => {
    const response = await sql(await embedToken('mixed', {}), {
      query: BY_REGION,
      sessionSettings: { externalId: 'someone-else' },
    })
    expect(response).toEqual({ status: 400, body: { error: expect.any(String), code: 'SESSION_SETTINGS_NOT_ALLOWED' } })
  })

  it('answers 401 without credentials, 403 outside the key scope and 404 for an unknown deployment', async () => {
    expect((await sql({}, { query: BY_REGION })).status).toBe(401)
    expect((await sql(apiKey(keys.scoped), { query: BY_REGION })).body.code).toBe('DEPLOYMENT_OUT_OF_SCOPE')
    expect((await call('POST', '/api/v1/deployments/99/sql', admin, { query: BY_REGION })).status).toBe(404)
  })
})

describe('GET /api/v1/deployments/:deploymentId/meta', () => {
  const members = (body: Record<string, any>, cube: string) => {
    const entry = (body.cubes as any[]).find((item) => item.name === cube)
    return entry ? [...entry.dimensions, ...entry.measures].map((member: { name: string }) => member.name) : []
  }

  it('lists the whole model for an API key, the caller-visible part for an embed token', async () => {
    const whole = await meta(admin)
    expect(whole.status).toBe(200)
    expect((whole.body.cubes as any[]).map((cube) => cube.name)).toEqual([
      'orders',
      'line_items',
      'customers',
      'products',
      'order_overview',
    ])
    expect(members(whole.body, 'customers')).toContain('customers.email')
    const viewer = await meta(
      await embedToken('meta-viewer', { userAttributes: [{ name: 'region', value: 'Europe' }] }),
    )
    expect(members(viewer.body, 'customers')).not.toContain('customers.email')
    expect(members(viewer.body, 'customers')).toContain('customers.region')
    const seller = await meta(await embedToken('meta-seller', { groups: ['sales'] }))
    expect(members(seller.body, 'customers')).toContain('customers.email')
  })

  it('filters by searchQuery and shows the dev branch measure only on dev', async () => {
    const found = await meta(admin, '?searchQuery=revenue')
    expect(
      (found.body.cubes as any[]).flatMap((cube) => cube.measures.map((member: { name: string }) => member.name)),
    ).toEqual(['orders.total_amount', 'line_items.total_revenue', 'order_overview.total_amount'])
    expect(members((await meta(admin, '?branchName=dev')).body, 'orders')).toContain('orders.cancellation_rate')
    expect(members((await meta(admin)).body, 'orders')).not.toContain('orders.cancellation_rate')
    expect((await meta(admin, '?branchName=nope')).body.code).toBe('BRANCH_NOT_FOUND')
  })
})
