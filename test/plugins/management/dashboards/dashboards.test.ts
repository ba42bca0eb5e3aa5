import { afterEach, describe, expect, it } from 'bun:test'
import { keys } from '../../../helpers/fixtures'
import { findPublishedDashboard } from '../../../../plugins/management'
import { D1, D2, managementApp, workbookWithDashboard, type ManagementApp, apiKeyId, chatThread } from '../helpers'

let app: ManagementApp
afterEach(() => app?.close())

const widget = {
  id: 'w1',
  kind: 'bar',
  title: 'Orders by status',
  query: 'SELECT orders.status, MEASURE(orders.count) FROM orders GROUP BY 1',
}

describe('POST /api/v1/deployments/:deploymentId/dashboards', () => {
  it("creates a workbook's dashboard without widgets (widgets optional) and refuses a second one with 409", async () => {
    app = managementApp()
    const workbook = await app.call('POST', `${D1}/workbooks`, { name: 'Sales' })
    const created = await app.call('POST', `${D1}/dashboards`, { workbookId: workbook.body.id, name: 'Board' })
    expect(created.status).toBe(201)
    expect(created.body).toEqual({
      id: expect.any(Number),
      deploymentId: 1,
      workbookId: workbook.body.id,
      name: 'Board',
      published: false,
      publicId: null,
      widgets: [],
      filters: [],
      timeGrains: [],
      aiWidgetThreads: [],
      restrictDataDownload: false,
      useBoardDashboards: false,
      fromSharedWorkspace: false,
      checksum: expect.stringMatching(/^[0-9a-f]{32}$/),
      createdAt: '2026-07-20T12:00:00.000Z',
      updatedAt: '2026-07-20T12:00:00.000Z',
    })
    const second = await app.call('POST', `${D1}/dashboards`, { workbookId: workbook.body.id, name: 'Again' })
    expect(second).toMatchObject({ status: 409, body: { code: 'DASHBOARD_EXISTS' } })
    expect((await app.call('GET', `${D1}/workbooks/${workbook.body.id}`)).body.dashboardId).toBe(created.body.id)
  })

  it('stores widgets of each kind, filters and time grains, and generates missing widget ids', async () => {
    app = managementApp()
    const workbook = await app.call('POST', `${D1}/workbooks`, { name: 'Sales' })
    const created = await app.call('POST', `${D1}/dashboards`, {
      workbookId: workbook.body.id,
      name: 'Board',
      widgets: [widget, { kind: 'number', title: 'Orders', query: 'SELECT MEASURE(orders.count) FROM orders' }],
      filters: [{ member: 'customers.region', operator: 'equals', values: ['EMEA'] }],
      timeGrains: [{ member: 'orders.created_at', granularity: 'month' }],
      useBoardDashboards: true,
    })
    expect(created.status).toBe(201)
    expect(created.body.widgets[0]).toEqual(widget)
    expect(created.body.widgets[1].id).toMatch(/^w_/)
    expect(created.body.filters).toEqual([{ member: 'customers.region', operator: 'equals', values: ['EMEA'] }])
    expect(created.body.timeGrains).toEqual([{ member: 'orders.created_at', granularity: 'month' }])
    expect(created.body.useBoardDashboards).toBe(true)
  })

  it('returns 400 for an unknown widget kind, duplicate or malformed widget ids, a bad member and an unknown workbook', async () => {
    app = managementApp()
    const workbook = await app.call('POST', `${D1}/workbooks`, { name: 'Sales' })
    const base = { workbookId: workbook.body.id, name: 'Board' }
    expect(
      (await app.call('POST', `${D1}/dashboards`, { ...base, widgets: [{ ...widget, kind: 'pie' }] })).status,
    ).toBe(400)
    const duplicate = await app.call('POST', `${D1}/dashboards`, { ...base, widgets: [widget, widget] })
    expect(duplicate).toMatchObject({
      status: 400,
      body: { error: 'widgets[1].id: duplicate widget id "w1"', code: 'DUPLICATE_WIDGET_ID' },
    })
    const badMember = await app.call('POST', `${D1}/dashboards`, {
      ...base,
      filters: [{ member: 'region', operator: 'equals', values: [] }],
    })
    expect(badMember.status).toBe(400)
    const spaced = await app.call('POST', `${D1}/dashboards`, { ...base, widgets: [{ ...widget, id: 'a b' }] })
    expect(spaced).toMatchObject({
      status: 400,
      body: {
        error: 'widgets[0].id: expected text of this form: letters, digits, `_` and `-`, such as `revenue-by-month`',
      },
    })
    const unknown = await app.call('POST', `${D1}/dashboards`, { workbookId: 999, name: 'Board' })
    expect(unknown).toMatchObject({ status: 400, body: { code: 'UNKNOWN_WORKBOOK' } })
    expect((await app.call('GET', `${D1}/dashboards`)).body.items).toEqual([])
  })
})

describe('PATCH /api/v1/deployments/:deploymentId/dashboards/:dashboardId', () => {
  it('publishes with a publicId that survives unpublish and republish', async () => {
    app = managementApp()
    const { dashboard } = await workbookWithDashboard(app)
    const published = await app.call('PATCH', `${D1}/dashboards/${dashboard.id}`, { published: true })
    expect(published.body.publicId).toMatch(/^pd_/)
    const publicId = published.body.publicId
    expect(await findPublishedDashboard(app.storage, publicId)).toMatchObject({
      id: dashboard.id,
      deploymentId: 1,
      accountId: expect.any(Number),
    })
    await app.call('PATCH', `${D1}/dashboards/${dashboard.id}`, { published: false })
    expect(await findPublishedDashboard(app.storage, publicId)).toBeUndefined()
    const again = await app.call('PATCH', `${D1}/dashboards/${dashboard.id}`, { published: true })
    expect(again.body.publicId).toBe(publicId)
    expect(await findPublishedDashboard(app.storage, 'pd_unknown')).toBeUndefined()
  })

  it('changes the checksum on every change and refuses a stale checksum with 409, leaving the dashboard as it was', async () => {
    app = managementApp()
    const { dashboard } = await workbookWithDashboard(app)
    const renamed = await app.call('PATCH', `${D1}/dashboards/${dashboard.id}`, {
      name: 'Renamed',
      checksum: dashboard.checksum,
    })
    expect(renamed.status).toBe(200)
    expect(renamed.body.checksum).not.toBe(dashboard.checksum)
    const stale = await app.call('PATCH', `${D1}/dashboards/${dashboard.id}`, {
      name: 'Lost update',
      checksum: dashboard.checksum,
    })
    expect(stale).toMatchObject({ status: 409, body: { code: 'STALE_CHECKSUM' } })
    expect((await app.call('GET', `${D1}/dashboards/${dashboard.id}`)).body.name).toBe('Renamed')
  })

  it('stamps a checksum the dashboard never had, also when a change brings back earlier content', async () => {
    app = managementApp()
    const { dashboard } = await workbookWithDashboard(app)
    const path = `${D1}/dashboards/${dashboard.id}`
    const first = (await app.call('PATCH', path, { name: 'A' })).body.checksum
    await app.call('PATCH', path, { name: 'B' })
    const back = await app.call('PATCH', path, { name: 'A' })
    expect(back.body.checksum).not.toBe(first)
    // A client that read the first "A" has missed two changes: its update is stale.
    const stale = await app.call('PATCH', path, { name: 'C', checksum: first })
    expect(stale).toMatchObject({ status: 409, body: { code: 'STALE_CHECKSUM' } })
    expect((await app.call('GET', path)).body.name).toBe('A')
  })

  it('needs ContentManage to publish: an editor-less viewer key gets 403', async () => {
    app = managementApp()
    const { dashboard } = await workbookWithDashboard(app)
    const memberKeyId = await apiKeyId(app, 'member')
    await app.call('PUT', `/api/v1/api-keys/${memberKeyId}/policy`, { actions: ['ContentRead', 'ContentEdit'] })
    const refused = await app.call('PATCH', `${D1}/dashboards/${dashboard.id}`, { published: true }, keys.member)
    expect(refused).toMatchObject({ status: 403, body: { error: 'This API key lacks the ContentManage permission' } })
    expect((await app.call('PATCH', `${D1}/dashboards/${dashboard.id}`, { name: 'Edited' }, keys.member)).status).toBe(
      200,
    )
    expect((await app.call('GET', `${D1}/dashboards/${dashboard.id}`)).body).toMatchObject({
      published: false,
      name: 'Edited',
    })
  })

  it('deletes a dashboard (204), then answers 404; other deployments see 404', async () => {
    app = managementApp()
    const { dashboard } = await workbookWithDashboard(app)
    expect((await app.call('GET', `${D2}/dashboards/${dashboard.id}`)).status).toBe(404)
    expect((await app.call('DELETE', `${D1}/dashboards/${dashboard.id}`)).status).toBe(204)
    expect((await app.call('GET', `${D1}/dashboards/${dashboard.id}`)).body.code).toBe('DASHBOARD_NOT_FOUND')
  })
})

describe('POST /api/v1/deployments/:deploymentId/workbooks/:workbookId/dashboard/ai-widget-thread', () => {
  it('attaches a thread to a widget of the published dashboard and returns the updated dashboard', async () => {
    app = managementApp()
    const { workbook, dashboard } = await workbookWithDashboard(app, { published: true, widgets: 2 })
    const [one, two] = [await chatThread(app), await chatThread(app)]
    const path = `${D1}/workbooks/${workbook.id}/dashboard/ai-widget-thread`
    const attached = await app.call('POST', path, { threadId: one, widgetId: 'w2', checksum: dashboard.checksum })
    expect(attached.status).toBe(200)
    expect(attached.body.aiWidgetThreads).toEqual([
      { widgetId: 'w2', threadId: one, attachedAt: '2026-07-20T12:00:00.000Z' },
    ])
    expect(attached.body.checksum).not.toBe(dashboard.checksum)
    const replaced = await app.call('POST', path, { threadId: two, widgetId: 'w2' })
    expect(replaced.body.aiWidgetThreads).toEqual([
      { widgetId: 'w2', threadId: two, attachedAt: '2026-07-20T12:00:00.000Z' },
    ])
  })

  it('refuses a stale checksum with 409 instead of overwriting', async () => {
    app = managementApp()
    const { workbook, dashboard } = await workbookWithDashboard(app, { published: true, widgets: 2 })
    const [one, two] = [await chatThread(app), await chatThread(app)]
    const path = `${D1}/workbooks/${workbook.id}/dashboard/ai-widget-thread`
    expect((await app.call('POST', path, { threadId: one, widgetId: 'w1', checksum: dashboard.checksum })).status).toBe(
      200,
    )
    const stale = await app.call('POST', path, { threadId: two, widgetId: 'w2', checksum: dashboard.checksum })
    expect(stale.status).toBe(409)
    expect(stale.body.code).toBe('STALE_CHECKSUM')
    expect(stale.body.error).toContain(dashboard.checksum)
    const stored = await app.call('GET', `${D1}/dashboards/${dashboard.id}`)
    expect(stored.body.aiWidgetThreads.map((thread: { threadId: string }) => thread.threadId)).toEqual([one])
  })

  it('answers 409 for an unpublished dashboard, 400 for an unknown widget and 404 for a workbook without dashboard', async () => {
    app = managementApp()
    const { workbook, dashboard } = await workbookWithDashboard(app, { published: false })
    const t = await chatThread(app)
    const path = `${D1}/workbooks/${workbook.id}/dashboard/ai-widget-thread`
    expect((await app.call('POST', path, { threadId: t, widgetId: 'w1' })).body.code).toBe('DASHBOARD_NOT_PUBLISHED')
    await app.call('PATCH', `${D1}/dashboards/${dashboard.id}`, { published: true })
    expect(await app.call('POST', path, { threadId: t, widgetId: 'nope' })).toMatchObject({
      status: 400,
      body: { code: 'UNKNOWN_WIDGET' },
    })
    const bare = await app.call('POST', `${D1}/workbooks`, { name: 'Bare' })
    const none = await app.call('POST', `${D1}/workbooks/${bare.body.id}/dashboard/ai-widget-thread`, {
      threadId: 't',
      widgetId: 'w1',
    })
    expect(none).toMatchObject({ status: 404, body: { error: `Workbook ${bare.body.id} has no dashboard` } })
    expect(
      (await app.call('POST', `${D1}/workbooks/999/dashboard/ai-widget-thread`, { threadId: 't', widgetId: 'w1' }))
        .status,
    ).toBe(404)
    expect((await app.call('POST', path, { widgetId: 'w1' })).status).toBe(400)
  })

  it('answers 404 for a thread that does not exist or belongs to another deployment or account, storing nothing', async () => {
    app = managementApp()
    const { workbook, dashboard } = await workbookWithDashboard(app, { published: true })
    const path = `${D1}/workbooks/${workbook.id}/dashboard/ai-widget-thread`
    const otherDeployment = await chatThread(app, 2)
    const otherAccount = await chatThread(app, 3, 'other', keys.otherAdmin)
    for (const threadId of ['chat-1', otherDeployment, otherAccount])
      expect(await app.call('POST', path, { threadId, widgetId: 'w1' })).toMatchObject({
        status: 404,
        body: { code: 'CHAT_NOT_FOUND', error: `Chat thread ${threadId} not found` },
      })
    const stored = await app.call('GET', `${D1}/dashboards/${dashboard.id}`)
    expect(stored.body).toMatchObject({ aiWidgetThreads: [], checksum: dashboard.checksum })
    // The same thread is attached from its own deployment.
    expect((await app.call('POST', path, { threadId: await chatThread(app), widgetId: 'w1' })).status).toBe(200)
  })

  it('drops the threads of widgets that a later update removes', async () => {
    app = managementApp()
    const { workbook, dashboard } = await workbookWithDashboard(app, { published: true, widgets: 2 })
    const attached = await app.call('POST', `${D1}/workbooks/${workbook.id}/dashboard/ai-widget-thread`, {
      threadId: await chatThread(app),
      widgetId: 'w2',
    })
    expect(attached.body.aiWidgetThreads).toHaveLength(1)
    const updated = await app.call('PATCH', `${D1}/dashboards/${dashboard.id}`, { widgets: [dashboard.widgets[0]] })
    expect(updated.body.aiWidgetThreads).toEqual([])
  })
})

describe('filters and time grains checked when a dashboard is saved', () => {
  it('returns 400 INVALID_DASHBOARD_CONTROL naming a control the dashboard could never apply, and saves nothing', async () => {
    app = managementApp()
    const workbook = await app.call('POST', `${D1}/workbooks`, { name: 'Controls' })
    const board = (controls: Record<string, unknown>) =>
      app.call('POST', `${D1}/dashboards`, {
        workbookId: workbook.body.id,
        name: 'Board',
        widgets: [widget],
        ...controls,
      })
    for (const [controls, named] of [
      [
        { filters: [{ member: 'orders.nope', operator: 'equals', values: ['x'] }] },
        'filters[0].member: Unknown member orders.nope',
      ],
      [{ filters: [{ member: 'orders.count', operator: 'gt', values: ['1'] }] }, 'filters[0].member:'],
      [
        { filters: [{ member: 'orders.created_at', operator: 'inDateRange', values: ['garbage'] }] },
        'filters[0].values: a date range is two dates',
      ],
      [
        { filters: [{ member: 'orders.created_at', operator: 'inDateRange', values: ['2024-01-01', '2024-02-30'] }] },
        'filters[0].values: "2024-02-30" is not a date',
      ],
      [
        { timeGrains: [{ member: 'orders.status', granularity: 'month' }] },
        'timeGrains[0].member: DATE_TRUNC takes a time dimension',
      ],
      [
        {
          timeGrains: [
            { member: 'orders.created_at', granularity: 'week' },
            { member: 'Orders.Created_At', granularity: 'month' },
          ],
        },
        'timeGrains[1].member: Orders.Created_At has a time grain already (timeGrains[0])',
      ],
    ] as const) {
      const created = await board(controls)
      expect({ named, status: created.status, code: created.body.code }).toEqual({
        named,
        status: 400,
        code: 'INVALID_DASHBOARD_CONTROL',
      })
      expect(created.body.error).toStartWith(named)
    }
    expect((await app.call('GET', `${D1}/workbooks/${workbook.body.id}`)).body.dashboardId ?? null).toBeNull()
    const fine = await board({
      filters: [
        { member: 'orders.created_at', operator: 'inDateRange', values: ['2024-01-01', '2024-12-31'] },
        { member: 'customers.region', operator: 'equals', values: [] },
      ],
      timeGrains: [{ member: 'orders.created_at', granularity: 'week' }],
    })
    expect(fine.status).toBe(201)
    const patched = await app.call('PATCH', `${D1}/dashboards/${fine.body.id}`, {
      timeGrains: [{ member: 'customers.region', granularity: 'year' }],
    })
    expect(patched).toMatchObject({ status: 400, body: { code: 'INVALID_DASHBOARD_CONTROL' } })
    expect((await app.call('GET', `${D1}/dashboards/${fine.body.id}`)).body.timeGrains).toEqual([
      { member: 'orders.created_at', granularity: 'week' },
    ])
  })
})

describe('widget queries checked when a dashboard is saved', () => {
  it('returns 400 INVALID_WIDGET_QUERY naming the widget when a created widget query cannot run, and saves nothing', async () => {
    app = managementApp()
    const workbook = await app.call('POST', `${D1}/workbooks`, { name: 'Broken' })
    const created = await app.call('POST', `${D1}/dashboards`, {
      workbookId: workbook.body.id,
      name: 'Board',
      widgets: [
        widget,
        {
          id: 'bad',
          kind: 'number',
          title: 'Ghost metric',
          query: 'SELECT MEASURE(orders.no_such_measure) FROM orders',
        },
      ],
    })
    expect(created.status).toBe(400)
    expect(created.body.code).toBe('INVALID_WIDGET_QUERY')
    expect(created.body.error).toContain('widgets[1] "Ghost metric" (id bad)')
    expect(created.body.error).toContain('no_such_measure')
    expect((await app.call('GET', `${D1}/workbooks/${workbook.body.id}`)).body.dashboardId ?? null).toBeNull()
  })

  it('returns 400 INVALID_WIDGET_QUERY on update with new widgets, and keeps the saved ones', async () => {
    app = managementApp()
    const workbook = await app.call('POST', `${D1}/workbooks`, { name: 'Sales' })
    const created = await app.call('POST', `${D1}/dashboards`, {
      workbookId: workbook.body.id,
      name: 'Board',
      widgets: [widget],
    })
    expect(created.status).toBe(201)
    const updated = await app.call('PATCH', `${D1}/dashboards/${created.body.id}`, {
      widgets: [{ id: 'syntax', kind: 'table', title: 'Not SQL', query: 'SELEC orders.status FROM orders' }],
    })
    expect(updated).toMatchObject({ status: 400, body: { code: 'INVALID_WIDGET_QUERY' } })
    expect(updated.body.error).toContain('"Not SQL" (id syntax)')
    expect((await app.call('GET', `${D1}/dashboards/${created.body.id}`)).body.widgets).toEqual([widget])
    // An edit that leaves the widgets alone is not checked again.
    expect((await app.call('PATCH', `${D1}/dashboards/${created.body.id}`, { name: 'Renamed' })).status).toBe(200)
  })
})
