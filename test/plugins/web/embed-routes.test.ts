import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { apiKey, createTestApp, testClock } from '../../helpers/app'
import { keys } from '../../helpers/fixtures'
import {
  embed,
  embedToken,
  json,
  mintSession,
  publishDashboard,
  quietAdminKey,
  webBootstrap,
  type Json,
  storeWidgets,
} from './helpers'

// The first widget query generates the demo data file: seconds on a busy machine.
setDefaultTimeout(20_000)

const clock = testClock()
const test = createTestApp({ bootstrap: webBootstrap(), clock })
let dashboard: Json
let restricted: Json
let europe: string
let asia: string
beforeAll(async () => {
  dashboard = await publishDashboard(test)
  restricted = await publishDashboard(test, { restrictDataDownload: true })
  europe = await embedToken(test, {
    externalId: 'eva',
    userAttributes: [{ name: 'region', value: 'Europe' }],
    userProfile: { displayName: 'Eva Europa' },
  })
  asia = await embedToken(test, { externalId: 'ann', userAttributes: [{ name: 'region', value: 'Asia' }] })
})
afterAll(() => test.close())

const get = (path: string, headers: Record<string, string> = {}) => test.request('GET', path, { headers })
const widgetData = (publicId: string, widgetId: string, token: string, format = '') =>
  get(`/api/v1/embed/dashboards/${publicId}/widgets/${widgetId}/data${format ? `?format=${format}` : ''}`, embed(token))

describe('GET /api/v1/embed/session/context', () => {
  it("returns the account, deployment, agent and chat path, the user's profile and the token expiry", async () => {
    const token = await embedToken(test, {
      externalId: 'pia',
      userProfile: { displayName: 'Pia Picture', picture: 'https://pictures.example.com/pia.png' },
    })
    const response = await get('/api/v1/embed/session/context', embed(token))
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({
      accountName: 'acme',
      deployment: { id: 1, name: 'Sales analytics' },
      agent: { id: 1, name: 'Analyst', chatPath: '/api/v1/public/acme/agents/1/chat' },
      user: { displayName: 'Pia Picture', picture: 'https://pictures.example.com/pia.png' },
      settings: { showDashboardChat: true },
      expiresAt: new Date(Math.floor((clock() + 24 * 3600_000) / 1000) * 1000).toISOString(),
      creator: false,
      starterQuestions: [
        'Revenue by month',
        'Revenue by status',
        'Number of orders by region',
        'Number of orders by month',
      ],
    })
  })

  it("leaves out starter questions that the user's row-level security makes one bar", async () => {
    // Eva sees Europe only: "Number of orders by region" would draw one bar; the next breakdown stands in for it.
    const body = await json(await get('/api/v1/embed/session/context', embed(europe)))
    expect(body.starterQuestions).not.toContain('Number of orders by region')
    expect(body.starterQuestions).toEqual([
      'Revenue by month',
      'Revenue by status',
      'Number of orders by city',
      'Number of orders by month',
    ])
  })

  it('gives null profile fields to a user without a profile', async () => {
    const body = await json(await get('/api/v1/embed/session/context', embed(asia)))
    expect(body.user).toEqual({ displayName: null, picture: null })
  })

  const cases: Array<[string, boolean | undefined, boolean]> = [
    ['acme', undefined, true],
    ['acme', false, false],
    ['acme', true, true],
    ['quiet', undefined, false],
    ['quiet', true, true],
    ['quiet', false, false],
  ]
  for (const [account, sessionValue, shown] of cases) {
    it(`resolves showDashboardChat to ${shown} for session value ${sessionValue} with the account setting ${account === 'acme' ? 'on' : 'off'}`, async () => {
      const key = account === 'acme' ? keys.admin : quietAdminKey
      const settings = sessionValue === undefined ? {} : { settings: { showDashboardChat: sessionValue } }
      const token = await embedToken(
        test,
        { deploymentId: account === 'acme' ? 1 : 5, externalId: `viewer-${String(sessionValue)}`, ...settings },
        key,
      )
      const body = await json(await get('/api/v1/embed/session/context', embed(token)))
      expect(body.settings).toEqual({ showDashboardChat: shown })
    })
  }

  it('answers 401 without credentials, 403 for a genuine API key and 401 for a revoked session', async () => {
    expect((await get('/api/v1/embed/session/context')).status).toBe(401)
    const withKey = await get('/api/v1/embed/session/context', apiKey(keys.admin))
    expect(withKey.status).toBe(403)
    expect(await withKey.json()).toEqual({
      error: 'This route takes an embed token (Authorization: Embed-Token <token>)',
      code: 'EMBED_TOKEN_REQUIRED',
    })
    expect((await get('/api/v1/embed/session/context', apiKey('ak_wrong_0123456789abcdef'))).status).toBe(401)

    const sessionId = await mintSession(test, { externalId: 'rita' })
    const token = (await json(await test.request('POST', '/api/v1/embed/session/token', { body: { sessionId } })))
      .token as string
    await test.request('POST', '/api/v1/embed/session/revoke', { body: { sessionId }, headers: apiKey(keys.admin) })
    const revoked = await get('/api/v1/embed/session/context', embed(token))
    expect(revoked.status).toBe(401)
    expect(await revoked.json()).toEqual({ error: 'Embed session was revoked', code: 'EMBED_SESSION_REVOKED' })
  })
})

describe('GET /api/v1/embed/dashboards/:publicId', () => {
  it('returns the name, the download flag and the widgets without their queries', async () => {
    const response = await get(`/api/v1/embed/dashboards/${dashboard.publicId}`, embed(europe))
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({
      publicId: dashboard.publicId,
      name: 'Sales overview',
      title: 'Sales overview',
      checksum: dashboard.checksum,
      editable: false,
      restrictDataDownload: false,
      widgets: [
        { id: 'orders', kind: 'number', chart: 'kpi', title: 'Orders', position: 0 },
        { id: 'status', kind: 'bar', chart: 'bar', title: 'Revenue by status', position: 1 },
        { id: 'monthly', kind: 'line', chart: 'line', title: 'Revenue by month', position: 2 },
        { id: 'regions', kind: 'table', chart: 'table', title: 'Orders by region', position: 3 },
      ],
      filters: [],
      timeGrains: [],
      locked: [{ name: 'region', title: 'Region', value: 'Europe' }],
    })
  })

  it("answers 404 for an unknown, an unpublished and another deployment's dashboard alike", async () => {
    const unpublished = await publishDashboard(test, { published: false })
    const published = await publishDashboard(test, { published: true })
    await test.request('PATCH', `/api/v1/deployments/1/dashboards/${published.id}`, {
      body: { published: false },
      headers: apiKey(keys.admin),
    })
    const elsewhere = await publishDashboard(test, { deploymentId: 2 })
    for (const publicId of ['nope', unpublished.publicId ?? 'none', published.publicId, elsewhere.publicId]) {
      const response = await get(`/api/v1/embed/dashboards/${publicId}`, embed(europe))
      expect(response.status).toBe(404)
      expect(await response.json()).toEqual({ error: `Dashboard ${publicId} not found`, code: 'DASHBOARD_NOT_FOUND' })
    }
  })
})

describe('GET /api/v1/embed/dashboards/:publicId/widgets/:widgetId/data', () => {
  it("runs the widget's query with the viewer's row-level security: two regions, two sets of numbers", async () => {
    const eu = await json(await widgetData(dashboard.publicId, 'regions', europe))
    const as = await json(await widgetData(dashboard.publicId, 'regions', asia))
    expect(eu.data.map((row: string[]) => row[0])).toEqual(['Europe'])
    expect(as.data.map((row: string[]) => row[0])).toEqual(['Asia'])
    const euOrders = await json(await widgetData(dashboard.publicId, 'orders', europe))
    const asOrders = await json(await widgetData(dashboard.publicId, 'orders', asia))
    expect(euOrders.data[0][0]).toBe(eu.data[0][1])
    expect(asOrders.data[0][0]).toBe(as.data[0][1])
    expect(euOrders.data[0][0]).not.toBe(asOrders.data[0][0])
  })

  it("titles each column with the model's title of its member, with the grain of a truncated date", async () => {
    const regions = await json(await widgetData(dashboard.publicId, 'regions', europe))
    expect(regions.schema.map((column: { name: string }) => column.name)).toEqual([
      'customers.region',
      'orders',
      'revenue',
    ])
    expect(regions.titles).toEqual(['Region', 'Number of orders', 'Revenue'])
    const monthly = await json(await widgetData(dashboard.publicId, 'monthly', europe))
    expect(monthly.titles).toEqual(['Order date (month)', 'Revenue'])
  })

  it("downloads the viewer's rows as CSV when the dashboard allows it", async () => {
    const response = await widgetData(dashboard.publicId, 'regions', europe, 'csv')
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8')
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="Orders_by_region.csv"')
    const lines = (await response.text()).trim().split('\r\n')
    expect(lines[0]).toBe('Region,Number of orders,Revenue')
    expect(lines.slice(1).map((line) => line.split(',')[0])).toEqual(['Europe'])
  })

  it('writes the CSV as the widget shows it: titles for headers, months as 2021-01, never member ids', async () => {
    const response = await widgetData(dashboard.publicId, 'monthly', europe, 'csv')
    const lines = (await response.text()).trim().split('\r\n')
    expect(lines[0]).toBe('Order date (month),Revenue')
    const months = lines.slice(1).map((line) => line.split(',')[0])
    expect(months.length).toBeGreaterThan(12)
    for (const month of months) expect(month).toMatch(/^\d{4}-\d{2}$/)
    expect(new Set(months).size).toBe(months.length)
  })

  it('refuses the download with 403 when the dashboard restricts it, but still serves the data to draw', async () => {
    const refused = await widgetData(restricted.publicId, 'regions', europe, 'csv')
    expect(refused.status).toBe(403)
    expect(await refused.json()).toEqual({
      error: `Data download is restricted on dashboard ${restricted.publicId}`,
      code: 'DATA_DOWNLOAD_RESTRICTED',
    })
    const drawn = await widgetData(restricted.publicId, 'regions', europe)
    expect(drawn.status).toBe(200)
    expect((await drawn.json()).data.length).toBe(1)
  })

  it('answers 404 for an unknown widget and 400 for a query the viewer cannot run', async () => {
    const unknown = await widgetData(dashboard.publicId, 'nope', europe)
    expect(unknown.status).toBe(404)
    expect((await unknown.json()).code).toBe('WIDGET_NOT_FOUND')
    // Saving refuses such a widget; one saved before that check (or broken by a later model change) still answers 400.
    const broken = await publishDashboard(test, {
      widgets: [{ id: 'bad', kind: 'number', title: 'Bad', query: 'SELECT MEASURE(orders.count) FROM orders' }],
    })
    const badWidgets = [{ id: 'bad', kind: 'number', title: 'Bad', query: 'SELECT MEASURE(nope.count) FROM nope' }]
    await storeWidgets(test, broken.publicId, badWidgets)
    const response = await widgetData(broken.publicId, 'bad', europe)
    expect(response.status).toBe(400)
    expect((await response.json()).code).toBe('INVALID_QUERY')
  })
})
