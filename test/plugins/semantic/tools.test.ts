import { afterAll, describe, expect, it } from 'bun:test'
import { bindSemanticTools, serviceMeta, serviceSqlApi, type ToolContext } from '../../../plugins/semantic/tools'
import { demoDeployment, demoService, user, WHOLE_MODEL } from './helpers'

const semantic = demoService()
afterAll(() => semantic.close())
const admin: ToolContext = { semantic, deployment: demoDeployment, access: WHOLE_MODEL }
const european: ToolContext = { ...admin, access: user({ region: 'Europe' }) }

const ESCAPES: Array<[string, string, RegExp]> = [
  ['stacked statements', 'SELECT MEASURE(orders.count) FROM orders; DROP TABLE orders', /exactly one SELECT/],
  [
    'a stacked statement after a comment',
    'SELECT MEASURE(orders.count) FROM orders -- comment\n; DELETE FROM orders',
    /exactly one SELECT/,
  ],
  ['a statement hidden after a block comment', '/* SELECT */ DELETE FROM orders', /Only SELECT is allowed, got DELETE/],
  ['ATTACH', "ATTACH DATABASE '/tmp/x.db' AS x", /Only SELECT is allowed, got ATTACH/],
  ['PRAGMA', 'PRAGMA table_info(orders)', /Only SELECT is allowed, got PRAGMA/],
  ['the schema table', 'SELECT name FROM sqlite_master', /Unknown cube sqlite_master/],
  ['a raw table that is not a cube', 'SELECT name FROM regions', /Unknown cube regions/],
  [
    'a subquery on a raw table in FROM',
    'SELECT t.email FROM (SELECT email FROM customers) t',
    /subqueries and table functions are not supported/,
  ],
  [
    'a subquery on a raw table in WHERE',
    'SELECT MEASURE(orders.count) FROM orders WHERE orders.id IN (SELECT id FROM customers)',
    /IN takes literal values/,
  ],
  ['a scalar subquery', 'SELECT (SELECT sql FROM sqlite_master) FROM orders', /Unsupported SQL: subqueries/],
  [
    'a join on a raw table',
    'SELECT orders.status FROM orders JOIN sqlite_master ON 1 = 1',
    /members of other cubes are joined automatically/,
  ],
  ['a schema-qualified table', 'SELECT status FROM main.orders', /without a schema/],
  ['a table function', "SELECT value FROM json_each('[1,2]')", /subqueries and table functions are not supported/],
  [
    'UNION',
    'SELECT orders.status FROM orders UNION SELECT name FROM sqlite_master',
    /UNION, INTERSECT and EXCEPT are not supported/,
  ],
  ['WITH', 'WITH x AS (SELECT * FROM customers) SELECT email FROM x', /WITH is not supported/],
  ['a dangerous function', "SELECT load_extension('evil') FROM orders", /Unsupported function LOAD_EXTENSION/],
  ['a raw column of a cube table', 'SELECT orders.customer_email FROM orders', /Unknown member orders.customer_email/],
  ['a member hidden by policy', 'SELECT customers.email FROM customers', /Unknown member customers.email/],
  ['SELECT *', 'SELECT * FROM orders', /\* is not a member/],
  ['writes', "UPDATE orders SET status = 'x'", /Only SELECT is allowed, got UPDATE/],
]

describe('serviceSqlApi', () => {
  for (const [name, sqlQuery, message] of ESCAPES)
    it(`refuses ${name} with { error }`, async () => {
      const result = await serviceSqlApi({ sqlQuery }, european)
      expect(result).toEqual({ error: expect.stringMatching(message) })
    })

  it('treats a quote in a value as data, never as SQL', async () => {
    const result = await serviceSqlApi(
      { sqlQuery: "SELECT MEASURE(orders.count) FROM orders WHERE orders.status = 'x'' OR ''1''=''1'" },
      admin,
    )
    expect(result).toEqual({ schema: [{ name: 'orders.count', column_type: 'number' }], data: [['0']], totalRows: 1 })
  })

  it('refuses a sum that a one-to-many join would inflate, and explains why', async () => {
    const result = await serviceSqlApi(
      { sqlQuery: 'SELECT products.category, MEASURE(orders.total_amount) FROM orders GROUP BY 1' },
      admin,
    )
    expect(result).toEqual({ error: expect.stringContaining('the sum would be inflated') })
  })

  it('accepts a bare measure and an aggregate matching the measure type as the measure', async () => {
    const measured = await serviceSqlApi(
      { sqlQuery: 'SELECT MEASURE(orders.count), MEASURE(orders.total_amount), SUM(orders.amount) FROM orders' },
      admin,
    )
    const lenient = await serviceSqlApi(
      { sqlQuery: 'SELECT orders.count, SUM(orders.total_amount), SUM(orders.amount) FROM orders' },
      admin,
    )
    expect((lenient as { data: string[][] }).data).toEqual((measured as { data: string[][] }).data)
    expect((measured as { data: string[][] }).data[0][1]).toBe((measured as { data: string[][] }).data[0][2])
    expect(await serviceSqlApi({ sqlQuery: 'SELECT AVG(orders.total_amount) FROM orders' }, admin)).toEqual({
      error: expect.stringContaining('orders.total_amount is a sum measure; select it as MEASURE(orders.total_amount)'),
    })
  })

  it('suggests the closest members for a typo', async () => {
    expect(await serviceSqlApi({ sqlQuery: 'SELECT MEASURE(orders.totl_amount) FROM orders' }, admin)).toEqual({
      error: expect.stringContaining('Did you mean orders.total_amount'),
    })
  })

  it('never throws, even for input of the wrong shape', async () => {
    expect(await serviceSqlApi({ sqlQuery: '' }, admin)).toEqual({ error: expect.any(String) })
    expect(await serviceSqlApi({} as never, admin)).toEqual({ error: expect.any(String) })
    expect(
      await serviceSqlApi({ sqlQuery: 'SELECT orders.status FROM orders' }, { ...admin, branchName: 'nope' }),
    ).toEqual({ error: expect.stringContaining('Branch nope not found') })
  })
})

describe('serviceMeta', () => {
  it('lists only what the caller may see and filters by searchQuery', async () => {
    const result = await serviceMeta({ searchQuery: 'email' }, european)
    expect(result).toEqual({ cubes: [] })
    const everything = await serviceMeta({ searchQuery: 'email' }, admin)
    expect(everything).toMatchObject({
      cubes: [{ name: 'customers', dimensions: [{ name: 'customers.email', type: 'string' }] }],
    })
  })

  it('falls back to single words when the whole phrase matches nothing', async () => {
    const result = (await serviceMeta({ searchQuery: 'orders per category' }, admin)) as {
      cubes: Array<{ name: string }>
    }
    expect(result.cubes.map((cube) => cube.name)).toEqual(['orders', 'line_items', 'products', 'order_overview'])
  })

  it('returns { error } for an unknown branch', async () => {
    expect(await serviceMeta({}, { ...admin, branchName: 'nope' })).toEqual({
      error: expect.stringContaining('Branch nope not found'),
    })
  })
})

describe('bindSemanticTools', () => {
  it('binds both tools to one caller', async () => {
    const tools = bindSemanticTools(semantic, { deployment: demoDeployment, access: user({ region: 'Africa' }) })
    const result = await tools.serviceSqlApi({ sqlQuery: 'SELECT customers.region FROM orders GROUP BY 1' })
    expect(result).toEqual({
      schema: [{ name: 'customers.region', column_type: 'string' }],
      data: [['Africa']],
      totalRows: 1,
    })
    expect(await tools.serviceMeta({ searchQuery: 'region' })).toMatchObject({ cubes: expect.any(Array) })
  })
})
