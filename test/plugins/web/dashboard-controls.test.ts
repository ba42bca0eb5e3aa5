import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { applyControls } from '../../../plugins/web/dashboard-controls'
import { parseQuery } from '../../../plugins/semantic/query/query-parser'
import { createTestApp, testClock } from '../../helpers/app'
import {
  demoWidgets,
  embed,
  embedToken,
  json,
  publishDashboard,
  storeWidgets,
  webBootstrap,
  type Json,
} from './helpers'

const types = new Map([
  ['orders.status', 'string'],
  ['orders.amount', 'number'],
  ['orders.created_at', 'time'],
])

describe('applyControls', () => {
  it("adds the dashboard's filters to WHERE, after the query's own conditions", () => {
    const sql = applyControls(
      'SELECT orders.status, MEASURE(orders.count) FROM orders WHERE orders.amount > 5 GROUP BY 1',
      {
        filters: [
          { member: 'orders.status', operator: 'equals', values: ['completed', "it's"] },
          { member: 'orders.amount', operator: 'lte', values: ['100'] },
        ],
        timeGrains: [],
      },
      types,
    )
    expect(sql).toBe(
      "SELECT orders.status, MEASURE(orders.count) FROM orders WHERE (((orders.amount > 5) AND (orders.status IN ('completed', 'it''s'))) AND (orders.amount <= 100)) GROUP BY 1",
    )
  })

  it('puts the time grain into every DATE_TRUNC of its member, in columns, GROUP BY and ORDER BY', () => {
    const sql = applyControls(
      "SELECT DATE_TRUNC('month', o.created_at) AS m, MEASURE(o.count) FROM orders AS o GROUP BY DATE_TRUNC('month', o.created_at) ORDER BY DATE_TRUNC('month', o.created_at)",
      { filters: [], timeGrains: [{ member: 'orders.created_at', granularity: 'quarter' }] },
      types,
    )
    expect(sql).not.toContain("'month'")
    expect(parseQuery(sql).groupBy).toEqual([
      { type: 'truncate', granularity: 'quarter', arg: { type: 'ref', table: 'o', name: 'created_at' } },
    ])
  })

  it('leaves a filter without values out (it shows everything) and refuses a non-number for a number member', () => {
    const sql = 'SELECT MEASURE(orders.count) FROM orders'
    expect(
      applyControls(
        sql,
        { filters: [{ member: 'orders.status', operator: 'equals', values: [] }], timeGrains: [] },
        types,
      ),
    ).toBe(sql)
    expect(() =>
      applyControls(
        sql,
        { filters: [{ member: 'orders.amount', operator: 'gt', values: ['1; DROP'] }], timeGrains: [] },
        types,
      ),
    ).toThrow('is not a number')
  })

  it('takes true or false for a true/false member and refuses anything else, instead of filtering on false', () => {
    const sql = 'SELECT MEASURE(orders.count) FROM orders'
    const flagged = new Map([['orders.has_discount', 'boolean']])
    const filter = (value: string) =>
      applyControls(
        sql,
        { filters: [{ member: 'orders.has_discount', operator: 'equals', values: [value] }], timeGrains: [] },
        flagged,
      )
    expect(filter('TRUE')).toBe(`${sql} WHERE (orders.has_discount = TRUE)`)
    expect(filter('false')).toBe(`${sql} WHERE (orders.has_discount = FALSE)`)
    for (const value of ['yes', '', '1', 'truex']) expect(() => filter(value)).toThrow('is not true or false')
  })

  it('keeps any value a string literal: quotes and SQL in values never change the query', () => {
    const hostile = ["x' OR 1=1 --", "a''b", '\\', "'); DELETE FROM orders; --"]
    const sql = applyControls(
      'SELECT MEASURE(orders.count) FROM orders',
      { filters: [{ member: 'orders.status', operator: 'equals', values: hostile }], timeGrains: [] },
      types,
    )
    const where = parseQuery(sql).where as { type: string; list: Array<{ value: string }> }
    expect(where.type).toBe('in')
    expect(where.list.map((item) => item.value.replace(/''/g, "'").replace(/\\\\/g, '\\'))).toEqual(hostile)
  })
})

// The first query generates the demo data file.
setDefaultTimeout(20_000)

const test = createTestApp({ bootstrap: webBootstrap(), clock: testClock() })
let board: Json
let europe: string
beforeAll(async () => {
  board = await publishDashboard(test, {
    widgets: [
      ...demoWidgets,
      {
        id: 'products',
        kind: 'table',
        title: 'Products',
        query: 'SELECT MEASURE(products.count) AS products FROM products',
      },
    ],
    filters: [{ member: 'orders.status', operator: 'equals', values: ['completed'], title: 'Order status' }],
    timeGrains: [{ member: 'orders.created_at', granularity: 'quarter' }],
  })
  europe = await embedToken(test, { externalId: 'eva', userAttributes: [{ name: 'region', value: 'Europe' }] })
})
afterAll(() => test.close())

const data = (widgetId: string, controls?: unknown) =>
  test.request(
    'GET',
    `/api/v1/embed/dashboards/${board.publicId}/widgets/${widgetId}/data${controls === undefined ? '' : `?controls=${encodeURIComponent(typeof controls === 'string' ? controls : JSON.stringify(controls))}`}`,
    {
      headers: embed(europe),
    },
  )

describe('dashboard filters and time grains for embed viewers', () => {
  it('describes the filters (with the values this viewer may pick), the time grains and the values the session locked', async () => {
    const body = await json(
      await test.request('GET', `/api/v1/embed/dashboards/${board.publicId}`, { headers: embed(europe) }),
    )
    expect(body.filters).toEqual([
      {
        member: 'orders.status',
        title: 'Order status',
        operator: 'equals',
        values: ['completed'],
        choices: ['cancelled', 'completed', 'processing', 'returned', 'shipped'],
      },
    ])
    expect(body.timeGrains).toEqual([{ member: 'orders.created_at', title: 'Order date', granularity: 'quarter' }])
    expect(body.locked).toEqual([{ name: 'region', title: 'Region', value: 'Europe' }])
  })

  it("applies the dashboard's filter and grain to every widget they fit, and the viewer's choices over them", async () => {
    const byStatus = await json(await data('status'))
    expect(byStatus.data.map((row: string[]) => row[0])).toEqual(['completed'])
    const quarterly = await json(await data('monthly'))
    expect(quarterly.data.length).toBe(20)
    expect(quarterly.titles[0]).toBe('Order date (quarter)')
    const chosen = await json(
      await data('status', {
        filters: { 'orders.status': ['shipped', 'returned'] },
        timeGrains: { 'orders.created_at': 'year' },
      }),
    )
    expect(chosen.data.map((row: string[]) => row[0]).sort()).toEqual(['returned', 'shipped'])
    const yearly = await json(await data('monthly', { timeGrains: { 'orders.created_at': 'year' } }))
    expect(yearly.data.length).toBe(5)
    const all = await json(await data('status', { filters: { 'orders.status': [] } }))
    expect(all.data.length).toBe(5)
    // A widget over another part of the model, which the filter cannot reach, still loads, unfiltered.
    expect((await data('products')).status).toBe(200)
  })

  it('returns 400 INVALID_CONTROLS for controls that are not JSON or not of the expected shape', async () => {
    for (const bad of [
      '{',
      '[]',
      { filters: { 'orders.status': 'completed' } },
      { timeGrains: { 'orders.created_at': 'fortnight' } },
      { other: 1 },
    ]) {
      const response = await data('status', bad)
      expect(response.status).toBe(400)
      expect((await json(response)).code).toBe('INVALID_CONTROLS')
    }
  })
})

describe('a date range chosen by the viewer', () => {
  it('is 400 INVALID_CONTROLS unless it is two dates or none, instead of showing every date', async () => {
    const ranged = await publishDashboard(test, {
      widgets: [demoWidgets[0]],
      filters: [{ member: 'orders.created_at', operator: 'inDateRange', values: ['2024-01-01', '2024-12-31'] }],
    })
    const kpi = (controls?: unknown) =>
      test.request(
        'GET',
        `/api/v1/embed/dashboards/${ranged.publicId}/widgets/orders/data${controls === undefined ? '' : `?controls=${encodeURIComponent(JSON.stringify(controls))}`}`,
        { headers: embed(europe) },
      )
    const range = (values: string[]) => ({ filters: { 'orders.created_at': values } })
    const [year, all, half] = await Promise.all([kpi(), kpi(range([])), kpi(range(['2024-01-01', '2024-06-30']))])
    const count = async (response: Response) => Number((await json(response)).data[0][0])
    const counts = [await count(year), await count(all), await count(half)]
    expect(counts[1]).toBeGreaterThan(counts[0])
    expect(counts[2]).toBeLessThan(counts[0])
    for (const values of [['2024-13-45 to 2024-99-99'], ['2024-01-01'], ['garbage', '2024-12-31'], ['a', 'b', 'c']]) {
      const response = await kpi(range(values))
      expect({ values, status: response.status, code: (await json(response)).code }).toEqual({
        values,
        status: 400,
        code: 'INVALID_CONTROLS',
      })
    }
  })
})

describe('a widget that cannot be loaded', () => {
  it('logs the reason under the request id the viewer is shown, for the people who run the service', async () => {
    const warnings: Array<{ message: string; fields?: Record<string, unknown> }> = []
    const silent = { debug() {}, info() {}, error() {}, child: () => logger }
    const logger = {
      ...silent,
      warn: (message: string, fields?: Record<string, unknown>) => void warnings.push({ message, fields }),
    }
    const app = createTestApp({ bootstrap: webBootstrap(), clock: testClock(), logger })
    try {
      const broken = await publishDashboard(app, { widgets: [demoWidgets[0]] })
      const widgets = [{ ...demoWidgets[0], query: 'SELECT MEASURE(orders.no_such_measure) FROM orders' }]
      await storeWidgets(app, broken.publicId, widgets)
      const token = await embedToken(app, { externalId: 'logged' })
      const response = await app.request('GET', `/api/v1/embed/dashboards/${broken.publicId}/widgets/orders/data`, {
        headers: embed(token),
      })
      expect(response.status).toBe(400)
      const requestId = response.headers.get('x-request-id')
      const logged = warnings.find((entry) => entry.message === 'dashboard widget could not be loaded')
      expect(logged?.fields).toMatchObject({ requestId, publicId: broken.publicId, widgetId: 'orders' })
      expect(String(logged?.fields?.error)).toContain('no_such_measure')
    } finally {
      app.close()
    }
  })
})
