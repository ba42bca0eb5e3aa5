import { afterEach, describe, expect, it } from 'bun:test'
import { Elysia } from 'elysia'
import { corePlugin } from '../../../../plugins/core'
import { managementPlugin } from '../../../../plugins/management'
import type { WidgetData } from '../../../../plugins/management/model'
import { keys } from '../../../helpers/fixtures'
import { D1, managementApp, workbookWithDashboard, type ManagementApp, apiKeyId } from '../helpers'

let app: ManagementApp
afterEach(() => app?.close())

const data: WidgetData = {
  schema: [
    { name: 'orders.status', column_type: 'string' },
    { name: 'orders.count', column_type: 'number' },
  ],
  data: [
    ['shipped', '12'],
    ['on "hold", maybe', null],
  ],
  totalRows: 2,
}

/** The management routes over a fake query runner that records what it ran. */
function withRunner(test: ManagementApp) {
  const ran: { deploymentId: number; query: string }[] = []
  const server = new Elysia().use(corePlugin(test.deps)).use(
    managementPlugin(test.deps, {
      runWidgetQuery: async (deploymentId, query) => {
        ran.push({ deploymentId, query })
        return data
      },
    }),
  )
  const get = async (path: string, key: string = keys.admin) =>
    server.handle(new Request(`http://localhost${path}`, { headers: { authorization: `Api-Key ${key}` } }))
  return { ran, get }
}

describe('GET /api/v1/deployments/:deploymentId/dashboards/:dashboardId/widgets/:widgetId/data', () => {
  it("returns the widget's data as JSON, and as a CSV attachment with format=csv", async () => {
    app = managementApp()
    const { dashboard } = await workbookWithDashboard(app)
    const { ran, get } = withRunner(app)
    const json = await get(`${D1}/dashboards/${dashboard.id}/widgets/w1/data`)
    expect(json.status).toBe(200)
    expect(await json.json()).toEqual(data)
    expect(ran).toEqual([{ deploymentId: 1, query: 'SELECT MEASURE(orders.count) FROM orders' }])
    const csv = await get(`${D1}/dashboards/${dashboard.id}/widgets/w1/data?format=csv`)
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8')
    expect(csv.headers.get('content-disposition')).toBe('attachment; filename="Orders_1.csv"')
    expect(await csv.text()).toBe('orders.status,orders.count\r\nshipped,12\r\n"on ""hold"", maybe",\r\n')
  })

  it('refuses with 403 when the dashboard restricts data download, without running the query', async () => {
    app = managementApp()
    const { dashboard } = await workbookWithDashboard(app, { restrictDataDownload: true })
    const { ran, get } = withRunner(app)
    const refused = await get(`${D1}/dashboards/${dashboard.id}/widgets/w1/data`)
    expect(refused.status).toBe(403)
    expect(await refused.json()).toEqual({
      error: `Data download is restricted on dashboard ${dashboard.id}`,
      code: 'DATA_DOWNLOAD_RESTRICTED',
    })
    expect(ran).toEqual([])
  })

  it('refuses with 403 when the key lacks DownloadData', async () => {
    app = managementApp()
    const { dashboard } = await workbookWithDashboard(app)
    const memberKeyId = await apiKeyId(app, 'member')
    await app.call('PUT', `/api/v1/api-keys/${memberKeyId}/policy`, { role: 'viewer' })
    const { ran, get } = withRunner(app)
    const refused = await get(`${D1}/dashboards/${dashboard.id}/widgets/w1/data`, keys.member)
    expect(refused.status).toBe(403)
    expect(await refused.json()).toEqual({
      error: 'This API key lacks the DownloadData permission',
      code: 'PERMISSION_DENIED',
    })
    expect(ran).toEqual([])
  })

  it('answers 404 for an unknown widget or dashboard', async () => {
    app = managementApp()
    const { dashboard } = await workbookWithDashboard(app)
    const { get } = withRunner(app)
    expect((await get(`${D1}/dashboards/${dashboard.id}/widgets/nope/data`)).status).toBe(404)
    expect((await get(`${D1}/dashboards/999/widgets/w1/data`)).status).toBe(404)
  })
})

describe('widget data through the semantic layer', () => {
  it("runs the widget's query on the deployment's model with the whole model readable", async () => {
    app = managementApp()
    const { dashboard } = await workbookWithDashboard(app)
    const response = await app.call('GET', `${D1}/dashboards/${dashboard.id}/widgets/w1/data`)
    expect(response.status).toBe(200)
    expect(response.body.schema).toEqual([{ name: expect.stringContaining('count'), column_type: expect.any(String) }])
    expect(response.body.totalRows).toBe(1)
    expect(Number(response.body.data[0][0])).toBeGreaterThan(0)
  })

  it('answers 400 for a widget whose query the semantic layer refuses', async () => {
    app = managementApp()
    const workbook = await app.call('POST', `${D1}/workbooks`, { name: 'Broken' })
    const dashboard = await app.call('POST', `${D1}/dashboards`, {
      workbookId: workbook.body.id,
      name: 'Broken',
      widgets: [{ id: 'bad', kind: 'number', title: 'Bad', query: 'SELECT MEASURE(nothing.here) FROM nothing' }],
    })
    const response = await app.call('GET', `${D1}/dashboards/${dashboard.body.id}/widgets/bad/data`)
    expect(response.status).toBe(400)
    expect(response.body).toEqual({ error: expect.any(String), code: expect.any(String) })
  })
})
