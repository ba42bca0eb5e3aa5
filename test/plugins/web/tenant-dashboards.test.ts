import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { eq } from 'drizzle-orm'
import { apiKey, createTestApp } from '../../helpers/app'
import { chatBase, finalAnswer, readLines } from '../../helpers/chat'
import { keys } from '../../helpers/fixtures'
import { embed, embedToken, json, publishDashboard, webBootstrap, type Json } from './helpers'

// The first widget query generates the demo data file: seconds on a busy machine.
setDefaultTimeout(30_000)

function bootstrap() {
  const file = webBootstrap()
  file.accounts[0].embedTenants!.push({ name: 'tenant-three', useCreatorMode: true })
  return file
}

const test = createTestApp({ bootstrap: bootstrap() })
afterAll(() => test.close())

/** A creator-mode session of `tenant`, whose region attribute is defined in the tenant. */
const creator = (externalId: string, region: string, tenant = 'tenant-one') =>
  embedToken(test, {
    externalId,
    creatorMode: true,
    embedTenantName: tenant,
    userAttributeDefinitions: [{ name: 'region', type: 'string' }],
    userAttributes: [{ name: 'region', value: region }],
  })
/** A session of `tenant` without creator mode: it reads dashboards only. */
const viewer = (externalId: string, region: string, tenant = 'tenant-one') =>
  embedToken(test, { externalId, embedTenantName: tenant, userAttributes: [{ name: 'region', value: region }] })

interface Asked {
  chatId: string
  messages: Json[]
  answer: Json
}

async function ask(token: string, input: string): Promise<Asked> {
  const response = await test.request('POST', `${chatBase()}/stream-chat-state`, {
    headers: embed(token),
    body: { input },
  })
  expect(response.status).toBe(200)
  const lines = await readLines(response)
  const messages = lines.at(-1)!.state!.messages as unknown as Json[]
  return { chatId: lines[0].state!.chatId!, messages, answer: finalAnswer(messages) as Json }
}

/** The rows of the answer's last semantic query, as the chat showed them. */
function answerRows(asked: Asked): string[][] {
  const queries = asked.messages.filter((message) => message.toolCall?.name === 'serviceSqlApi')
  return JSON.parse(queries.at(-1)!.toolCall.result).data
}

const createDashboard = (token: string, body: unknown) =>
  test.request('POST', '/api/v1/embed/dashboards', { headers: embed(token), body })
const pin = (token: string, publicId: string, body: unknown) =>
  test.request('POST', `/api/v1/embed/dashboards/${publicId}/widgets`, { headers: embed(token), body })
const patch = (token: string, publicId: string, widgetId: string, body: unknown) =>
  test.request('PATCH', `/api/v1/embed/dashboards/${publicId}/widgets/${widgetId}`, { headers: embed(token), body })
const remove = (token: string, publicId: string, widgetId: string, checksum?: string) =>
  test.request(
    'DELETE',
    `/api/v1/embed/dashboards/${publicId}/widgets/${widgetId}${checksum ? `?checksum=${checksum}` : ''}`,
    { headers: embed(token) },
  )
const read = async (token: string, publicId: string) =>
  json(await test.request('GET', `/api/v1/embed/dashboards/${publicId}`, { headers: embed(token) }))
const widgetData = async (token: string, publicId: string, widgetId: string) =>
  test.request('GET', `/api/v1/embed/dashboards/${publicId}/widgets/${widgetId}/data`, { headers: embed(token) })

let cara: string
let europe: string
let asia: string
let revenue: Asked
let board: Json
beforeAll(async () => {
  cara = await creator('cara', 'Europe')
  europe = await viewer('eva', 'Europe')
  asia = await viewer('ann', 'Asia')
  revenue = await ask(cara, 'revenue in the last 6 months by month')
  board = await json(await createDashboard(cara, { title: 'Cara sales' }))
})

describe('POST /api/v1/embed/dashboards', () => {
  it("creates an empty published dashboard of the creator's embed tenant", async () => {
    const response = await createDashboard(cara, { title: 'Weekly numbers' })
    expect(response.status).toBe(201)
    const created = await json(response)
    expect(created).toMatchObject({ title: 'Weekly numbers', name: 'Weekly numbers', editable: true, widgets: [] })
    expect(created.publicId).toMatch(/^pd_/)
    // Every session of the tenant sees it, read-only unless it is a creator's.
    expect(await read(europe, created.publicId)).toMatchObject({ title: 'Weekly numbers', editable: false })
    const list = await json(await test.request('GET', '/api/v1/embed/dashboards', { headers: embed(europe) }))
    expect(list.items.map((item: Json) => item.publicId)).toContain(created.publicId)
  })

  it('tells the pages which sessions may build dashboards', async () => {
    const context = async (token: string) =>
      json(await test.request('GET', '/api/v1/embed/session/context', { headers: embed(token) }))
    expect((await context(cara)).creator).toBe(true)
    expect((await context(europe)).creator).toBe(false)
  })

  it('answers 403 DASHBOARD_READ_ONLY to a session without creator mode', async () => {
    const response = await createDashboard(europe, { title: 'Not mine to make' })
    expect(response.status).toBe(403)
    expect((await json(response)).code).toBe('DASHBOARD_READ_ONLY')
  })

  it('answers 400 for bodies that break the schema', async () => {
    for (const body of [{}, { title: '' }, { title: 5 }, { title: 'Board', extra: true }, 'not json']) {
      const response = await createDashboard(cara, body)
      expect(response.status).toBe(400)
      expect(await json(response)).toMatchObject({ code: expect.any(String), error: expect.any(String) })
    }
  })
})

describe('GET /api/v1/embed/dashboards', () => {
  it("pages through the tenant's dashboards, oldest first", async () => {
    const list = (query: string) =>
      test.request('GET', `/api/v1/embed/dashboards${query}`, { headers: embed(cara) }).then(json)
    const all = await list('?first=100')
    expect(all.items.length).toBeGreaterThanOrEqual(2)
    expect(all.items[0]).toEqual({
      publicId: board.publicId,
      title: 'Cara sales',
      widgetCount: expect.any(Number),
      updatedAt: expect.any(String),
    })
    const first = await list('?first=1')
    expect(first.items).toEqual([all.items[0]])
    expect(first.pageInfo.hasNextPage).toBe(true)
    const second = await list(`?first=1&after=${first.pageInfo.endCursor}`)
    expect(second.items).toEqual([all.items[1]])
    for (const query of ['?first=0', '?first=101', '?after=%%%', '?after=bm9wZQ'])
      expect((await test.request('GET', `/api/v1/embed/dashboards${query}`, { headers: embed(cara) })).status).toBe(400)
  })
})

describe('GET /api/v1/embed/dashboards/:publicId of an embed tenant', () => {
  it("answers 404 to another tenant's sessions and to sessions without a tenant", async () => {
    const others = [
      await viewer('tom', 'Europe', 'tenant-two'),
      await creator('tia', 'Europe', 'tenant-three'),
      await embedToken(test, { externalId: 'nobody', userAttributes: [{ name: 'region', value: 'Europe' }] }),
    ]
    for (const token of others) {
      const response = await test.request('GET', `/api/v1/embed/dashboards/${board.publicId}`, {
        headers: embed(token),
      })
      expect(response.status).toBe(404)
      expect(await json(response)).toEqual({
        error: `Dashboard ${board.publicId} not found`,
        code: 'DASHBOARD_NOT_FOUND',
      })
      const list = await json(await test.request('GET', '/api/v1/embed/dashboards', { headers: embed(token) }))
      expect(list.items.map((item: Json) => item.publicId)).not.toContain(board.publicId)
    }
  })
})

describe('POST /api/v1/embed/dashboards/:publicId/widgets', () => {
  it("pins an answer of the creator's own thread: its query, its chart, its period kept relative", async () => {
    const response = await pin(cara, board.publicId, { chatId: revenue.chatId, messageId: revenue.answer.id })
    expect(response.status).toBe(201)
    const widget = await json(response)
    expect(widget).toMatchObject({
      chart: 'line',
      kind: 'line',
      title: 'Revenue by month, the last 6 months',
      size: 'narrow',
      period: { label: 'the last 6 months', member: 'orders.created_at' },
      source: { chatId: revenue.chatId, messageId: revenue.answer.id },
    })
    expect(widget.checksum).not.toBe(board.checksum)
    const after = await read(cara, board.publicId)
    expect(after.checksum).toBe(widget.checksum)
    expect(after.widgets.map((item: Json) => item.id)).toContain(widget.id)

    // The creator sees the answer's numbers; the widget stored the query, not the rows.
    const data = await json(await widgetData(cara, board.publicId, widget.id))
    expect(data.data).toEqual(answerRows(revenue))
    expect(data.period).toEqual({ label: 'the last 6 months', from: '2025-07-01', to: '2025-12-31' })
  })

  it('takes a title and a chart, and makes a one-number answer a KPI', async () => {
    const count = await ask(cara, 'how many orders')
    const kpi = await json(await pin(cara, board.publicId, { chatId: count.chatId, messageId: count.answer.id }))
    expect(kpi).toMatchObject({ chart: 'kpi', kind: 'number', title: 'Number of orders, all time' })
    expect(kpi).not.toHaveProperty('period')
    const named = await json(
      await pin(cara, board.publicId, {
        chatId: revenue.chatId,
        messageId: revenue.messages[0].id,
        title: 'Revenue trend',
        chart: 'bar',
      }),
    )
    expect(named).toMatchObject({ chart: 'bar', title: 'Revenue trend', period: { label: 'the last 6 months' } })
  })

  it("answers 404 for another user's thread, an unknown message and an answer that drew from no query", async () => {
    const carl = await creator('carl', 'Asia')
    const greeting = await ask(cara, 'hello')
    const cases: Array<[string, Json, string]> = [
      [carl, { chatId: revenue.chatId, messageId: revenue.answer.id }, 'CHAT_NOT_FOUND'],
      [cara, { chatId: 'no-such-chat', messageId: revenue.answer.id }, 'CHAT_NOT_FOUND'],
      [cara, { chatId: revenue.chatId, messageId: 'no-such-message' }, 'MESSAGE_NOT_FOUND'],
      [cara, { chatId: greeting.chatId, messageId: greeting.answer.id }, 'ANSWER_HAS_NO_QUERY'],
    ]
    for (const [token, body, code] of cases) {
      const carlBoard = token === carl ? await json(await createDashboard(carl, { title: 'Carl' })) : board
      const response = await pin(token, carlBoard.publicId, body)
      expect(response.status).toBe(404)
      expect((await json(response)).code).toBe(code)
    }
  })

  it('answers 403 DASHBOARD_READ_ONLY to a viewer, even with a thread of their own', async () => {
    const own = await ask(europe, 'revenue by status')
    const response = await pin(europe, board.publicId, { chatId: own.chatId, messageId: own.answer.id })
    expect(response.status).toBe(403)
    expect(await json(response)).toEqual({
      error: expect.stringContaining('reads dashboards only'),
      code: 'DASHBOARD_READ_ONLY',
    })
  })

  it("answers 404 for another tenant's dashboard and 403 for the account's own", async () => {
    const tia = await creator('tia', 'Europe', 'tenant-three')
    const hers = await ask(tia, 'revenue by status')
    const elsewhere = await pin(tia, board.publicId, { chatId: hers.chatId, messageId: hers.answer.id })
    expect(elsewhere.status).toBe(404)
    expect((await json(elsewhere)).code).toBe('DASHBOARD_NOT_FOUND')

    const accountBoard = await publishDashboard(test)
    const own = await pin(cara, accountBoard.publicId, { chatId: revenue.chatId, messageId: revenue.answer.id })
    expect(own.status).toBe(403)
    expect((await json(own)).code).toBe('DASHBOARD_READ_ONLY')
  })

  it('answers 400 for bodies that break the schema', async () => {
    const bodies = [
      {},
      { chatId: revenue.chatId },
      { chatId: revenue.chatId, messageId: revenue.answer.id, chart: 'pie' },
      { chatId: revenue.chatId, messageId: revenue.answer.id, title: '' },
      { chatId: revenue.chatId, messageId: revenue.answer.id, rows: [] },
    ]
    for (const body of bodies) expect((await pin(cara, board.publicId, body)).status).toBe(400)
  })
})

describe('PATCH and DELETE /api/v1/embed/dashboards/:publicId/widgets/:widgetId', () => {
  let arranged: Json
  let widgets: Json[]
  beforeAll(async () => {
    arranged = await json(await createDashboard(cara, { title: 'To arrange' }))
    const status = await ask(cara, 'revenue by status')
    widgets = []
    for (const asked of [revenue, status])
      widgets.push(await json(await pin(cara, arranged.publicId, { chatId: asked.chatId, messageId: asked.answer.id })))
  })

  it('renames, re-charts, resizes and moves a widget, each change answered with the new checksum', async () => {
    const [first, second] = widgets
    const renamed = await patch(cara, arranged.publicId, first.id, {
      checksum: second.checksum,
      title: 'Half a year of revenue',
      chart: 'table',
      size: 'wide',
    })
    expect(renamed.status).toBe(200)
    const changed = await json(renamed)
    expect(changed).toMatchObject({ title: 'Half a year of revenue', chart: 'table', kind: 'table', size: 'wide' })
    const moved = await json(
      await patch(cara, arranged.publicId, second.id, { checksum: changed.checksum, position: 0 }),
    )
    expect(moved.position).toBe(0)
    const after = await read(europe, arranged.publicId)
    expect(after.checksum).toBe(moved.checksum)
    expect(after.widgets.map((widget: Json) => [widget.id, widget.position, widget.chart, widget.size])).toEqual([
      [second.id, 0, 'bar', 'narrow'],
      [first.id, 1, 'table', 'wide'],
    ])
    // Viewers are not shown whose thread a widget came from.
    expect(after.widgets[0]).not.toHaveProperty('source')
  })

  it('answers 409 DASHBOARD_CHANGED for a stale checksum and changes nothing', async () => {
    const before = await read(cara, arranged.publicId)
    for (const response of [
      await patch(cara, arranged.publicId, widgets[0].id, { checksum: widgets[0].checksum, title: 'Stale' }),
      await remove(cara, arranged.publicId, widgets[0].id, widgets[0].checksum),
    ]) {
      expect(response.status).toBe(409)
      expect((await json(response)).code).toBe('DASHBOARD_CHANGED')
    }
    expect(await read(cara, arranged.publicId)).toEqual(before)
  })

  it('answers 400 for a missing checksum, an unknown chart or field, and a position past the end', async () => {
    const { checksum } = await read(cara, arranged.publicId)
    const bodies = [
      { title: 'No checksum' },
      { checksum, chart: 'pie' },
      { checksum, size: 'huge' },
      { checksum, position: -1 },
      { checksum, query: 'SELECT 1' },
    ]
    for (const body of bodies) expect((await patch(cara, arranged.publicId, widgets[0].id, body)).status).toBe(400)
    const far = await patch(cara, arranged.publicId, widgets[0].id, { checksum, position: 2 })
    expect(far.status).toBe(400)
    expect((await json(far)).code).toBe('INVALID_POSITION')
  })

  it('answers 403 to a viewer and 404 for an unknown widget', async () => {
    const { checksum } = await read(cara, arranged.publicId)
    const asViewer = await patch(europe, arranged.publicId, widgets[0].id, { checksum, title: 'Mine now' })
    expect(asViewer.status).toBe(403)
    expect((await json(asViewer)).code).toBe('DASHBOARD_READ_ONLY')
    expect((await remove(europe, arranged.publicId, widgets[0].id)).status).toBe(403)
    const unknown = await patch(cara, arranged.publicId, 'w_nope', { checksum, title: 'Who?' })
    expect(unknown.status).toBe(404)
    expect((await json(unknown)).code).toBe('WIDGET_NOT_FOUND')
    expect((await remove(cara, arranged.publicId, 'w_nope')).status).toBe(404)
  })

  it('removes a widget (204); its data is gone', async () => {
    const { checksum } = await read(cara, arranged.publicId)
    const response = await remove(cara, arranged.publicId, widgets[0].id, checksum)
    expect(response.status).toBe(204)
    expect(await response.text()).toBe('')
    const after = await read(cara, arranged.publicId)
    expect(after.widgets.map((widget: Json) => widget.id)).toEqual([widgets[1].id])
    expect(after.checksum).not.toBe(checksum)
    expect((await widgetData(cara, arranged.publicId, widgets[0].id)).status).toBe(404)
  })
})

describe('a pinned widget under row-level security', () => {
  it("shows each viewer their own region's numbers, the ones their own query gives", async () => {
    const byRegion = await ask(cara, 'revenue by region')
    const widget = await json(
      await pin(cara, board.publicId, { chatId: byRegion.chatId, messageId: byRegion.answer.id }),
    )
    const eu = await json(await widgetData(europe, board.publicId, widget.id))
    const as = await json(await widgetData(asia, board.publicId, widget.id))
    expect(eu.data.map((row: string[]) => row[0])).toEqual(['Europe'])
    expect(as.data.map((row: string[]) => row[0])).toEqual(['Asia'])
    // The same query straight through the SQL API with each viewer's token gives the same numbers.
    const sql = byRegion.messages.filter((message) => message.toolCall?.name === 'serviceSqlApi').at(-1)!
    const query = JSON.parse(sql.toolCall.input).sqlQuery
    for (const [token, data] of [
      [europe, eu],
      [asia, as],
    ] as const) {
      const direct = await json(
        await test.request('POST', '/api/v1/deployments/1/sql', { headers: embed(token), body: { query } }),
      )
      expect(data.data).toEqual(direct.data)
    }
    expect(eu.data[0][1]).not.toBe(as.data[0][1])
  })
})

describe('management dashboards with an answer reference', () => {
  it('makes a widget from `source` with the answer query, chart, title and period', async () => {
    const headers = apiKey(keys.admin)
    const workbook = await json(
      await test.request('POST', '/api/v1/deployments/1/workbooks', { headers, body: { name: 'From answers' } }),
    )
    const response = await test.request('POST', '/api/v1/deployments/1/dashboards', {
      headers,
      body: {
        workbookId: workbook.id,
        name: 'From answers',
        widgets: [
          { source: { chatId: revenue.chatId, messageId: revenue.answer.id } },
          { id: 'plain', kind: 'number', title: 'Orders', query: 'SELECT MEASURE(orders.count) FROM orders' },
        ],
      },
    })
    expect(response.status).toBe(201)
    const dashboard = await json(response)
    const [fromAnswer, plain] = dashboard.widgets
    const sql = revenue.messages.filter((message) => message.toolCall?.name === 'serviceSqlApi').at(-1)!
    expect(fromAnswer).toMatchObject({
      kind: 'line',
      title: 'Revenue by month, the last 6 months',
      query: JSON.parse(sql.toolCall.input).sqlQuery,
      source: { chatId: revenue.chatId, messageId: revenue.answer.id },
      period: { kind: 'trailing', amount: 6, unit: 'month', member: 'orders.created_at' },
    })
    expect(plain).toEqual({
      id: 'plain',
      kind: 'number',
      title: 'Orders',
      query: 'SELECT MEASURE(orders.count) FROM orders',
    })
    // Read and sent back as they came, the widgets stay the same.
    const again = await test.request('PATCH', `/api/v1/deployments/1/dashboards/${dashboard.id}`, {
      headers,
      body: { checksum: dashboard.checksum, widgets: dashboard.widgets },
    })
    expect(again.status).toBe(200)
    expect((await json(again)).widgets).toEqual(dashboard.widgets)
  })

  it('answers 404 for an unknown chat and 400 for a widget with neither query nor source', async () => {
    const headers = apiKey(keys.admin)
    const workbook = await json(
      await test.request('POST', '/api/v1/deployments/1/workbooks', { headers, body: { name: 'Broken' } }),
    )
    const create = (widgets: Json[]) =>
      test.request('POST', '/api/v1/deployments/1/dashboards', {
        headers,
        body: { workbookId: workbook.id, name: 'Broken', widgets },
      })
    const unknown = await create([{ source: { chatId: 'no-such-chat', messageId: 'm' } }])
    expect(unknown.status).toBe(404)
    expect((await json(unknown)).code).toBe('CHAT_NOT_FOUND')
    const empty = await create([{ kind: 'bar', title: 'Nothing' }])
    expect(empty.status).toBe(400)
    expect((await json(empty)).code).toBe('INVALID_WIDGET')
  })
})

describe('DELETE /api/v1/embed-tenants/:embedTenantName', () => {
  it("deletes the tenant's dashboards with their workbooks", async () => {
    const tia = await creator('tia', 'Europe', 'tenant-three')
    const hers = await json(await createDashboard(tia, { title: 'Tia board' }))
    const { dashboards, workbooks } = test.storage.tables
    const count = async () =>
      (
        await test.storage.db
          .select({ id: dashboards.id })
          .from(dashboards)
          .innerJoin(workbooks, eq(workbooks.id, dashboards.workbookId))
          .where(eq(dashboards.publicId, hers.publicId))
      ).length
    expect(await count()).toBe(1)
    const response = await test.request('DELETE', '/api/v1/embed-tenants/tenant-three', { headers: apiKey(keys.admin) })
    expect(response.status).toBe(204)
    expect(await count()).toBe(0)
    expect(await test.storage.db.select().from(workbooks).where(eq(workbooks.name, 'Tia board'))).toEqual([])
  })
})
