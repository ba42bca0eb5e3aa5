import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createClient, createPlatformClient, PlatformApiError, type FetchLike, type Report } from '../../client'
import { createTestApp, type TestApp } from '../helpers/app'
import { keys } from '../helpers/fixtures'

/** The client against the real server, listening on 127.0.0.1 with a free port. */
let test: TestApp
let baseUrl: string
beforeAll(() => {
  test = createTestApp()
  test.app.listen({ port: 0, hostname: '127.0.0.1', reusePort: false })
  baseUrl = `http://127.0.0.1:${test.app.server!.port}`
})
afterAll(async () => {
  await test.app.stop(true)
  await test.close()
})

/** A fetch that records the init of every call and then really sends it. */
function spyFetch() {
  const inits: RequestInit[] = []
  const fetch: FetchLike = (input, init) => {
    inits.push(init ?? {})
    return globalThis.fetch(input, init)
  }
  return { inits, fetch }
}

describe('createPlatformClient against a listening server', () => {
  it('lists reports page by page, each once and in order', async () => {
    const client = createPlatformClient({ baseUrl, apiKey: keys.admin })
    const reports = client.deployment(1).reports
    const created: Report[] = []
    for (let index = 0; index < 7; index++)
      created.push(await reports.create({ name: `Report ${index}`, query: 'SELECT MEASURE(orders.count) FROM orders' }))
    const first = await reports.list({ first: 3, sortBy: 'createdAt' })
    expect(first.items.map((report) => report.id)).toEqual(created.slice(0, 3).map((report) => report.id))
    expect(first.count).toBe(7)
    expect(first.data).toEqual(first.items)
    const second = await reports.list({ first: 3, sortBy: 'createdAt', after: first.pageInfo.endCursor! })
    expect(second.items.map((report) => report.name)).toEqual(['Report 3', 'Report 4', 'Report 5'])
    const walked: string[] = []
    for await (const report of reports.listAll({ first: 2, search: 'Report' })) walked.push(report.name)
    expect(walked).toEqual(created.map((report) => report.name))
  })

  it('calls management operations end to end', async () => {
    const client = createPlatformClient({ baseUrl, apiKey: keys.admin })
    const deployment = client.deployment(1)
    const folder = await deployment.folders.create({ name: 'Client folder' })
    const report = await deployment.reports.create({ name: 'Client report', query: 'SELECT 1', folderId: folder.id })
    const linked = await deployment.reports.connectWorkbook(report.id, {
      externalWorkbookId: 'sheet-42',
      resultLocation: 'A1',
    })
    expect(linked.externalWorkbookPlacements.map((placement) => placement.workbookId)).toEqual(['sheet-42'])
    const byWorkbook = await deployment.reports.list({ externalWorkbookId: 'sheet-42' })
    expect(byWorkbook.items.map((item) => item.id)).toEqual([report.id])
    const snapshot = await deployment.reports.snapshots.create(report.id, {
      fillMissingRows: { member: 'orders.created_at', excludedDimensions: [] },
    })
    expect(snapshot.fillMissingRows?.member).toBe('orders.created_at')
    const workbook = await deployment.workbooks.create({ name: 'Client workbook', slug: 'client-workbook' })
    const dashboard = await deployment.dashboards.create({
      workbookId: workbook.id,
      name: 'Board',
      published: true,
      widgets: [{ id: 'w1', kind: 'table', title: 'Orders', query: 'SELECT orders.status FROM orders' }],
    })
    // A thread of the deployment, started by a chat turn: a widget names only a thread that exists.
    const turn = await fetch(`${baseUrl}/api/v1/public/acme/agents/1/chat/stream-chat-state`, {
      method: 'POST',
      headers: { authorization: `Api-Key ${keys.admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ input: 'Hello', sessionSettings: { externalId: 'client-user' } }),
    })
    const threadId = (JSON.parse((await turn.text()).split('\n')[0]) as { state: { chatId: string } }).state.chatId
    const withThread = await deployment.workbooks.attachAiWidgetThread(workbook.id, {
      threadId,
      widgetId: 'w1',
      checksum: dashboard.checksum,
    })
    expect(withThread.aiWidgetThreads.map((thread) => thread.threadId)).toEqual([threadId])
    const notification = await deployment.notifications.create({
      dashboardPublicId: dashboard.publicId!,
      name: 'Weekly',
      schedule: { frequency: 'weekly' },
      recipients: [{ kind: 'user', email: 'ops@acme.com' }],
      timeGrains: [{ member: 'orders.created_at', granularity: 'week' }],
    })
    expect(
      (await deployment.notifications.list({ recipientEmail: 'ops@acme.com' })).items.map((item) => item.id),
    ).toEqual([notification.id])
    const copy = await deployment.workbooks.duplicate(workbook.id)
    expect(copy.name).toBe('Copy of Client workbook')
    const sync = await deployment.dbtSync.start({ branchName: 'dev' })
    expect((await deployment.dbtSync.get(sync.syncJobId)).status).toBe('queued')
    expect((await client.appConfig.get()).appTheme.mode).toBe('system')
    await deployment.reports.delete(report.id)
    await expect(deployment.reports.get(report.id)).rejects.toMatchObject({ status: 404, code: 'REPORT_NOT_FOUND' })
  })

  it('throws PlatformApiError with the status, code and message of the service', async () => {
    const client = createPlatformClient({ baseUrl, apiKey: keys.admin })
    const error = await client
      .deployment(1)
      .workbooks.create({ name: 'Duplicate slug', slug: 'client-workbook' })
      .catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(PlatformApiError)
    expect(error).toMatchObject({ status: 409, code: 'SLUG_TAKEN' })
    await expect(
      createPlatformClient({ baseUrl, apiKey: 'ak_test_wrong_0123456789' }).appConfig.get(),
    ).rejects.toMatchObject({ status: 401 })
  })

  it('forwards credentials to fetch: same-origin by default, omit for token-only clients, or as given', async () => {
    const byDefault = spyFetch()
    await createPlatformClient({ baseUrl, apiKey: keys.admin, fetch: byDefault.fetch }).appConfig.get()
    expect(byDefault.inits.map((init) => init.credentials)).toEqual(['same-origin'])
    const given = spyFetch()
    await createPlatformClient({ baseUrl, apiKey: keys.admin, credentials: 'include', fetch: given.fetch })
      .deployment(1)
      .folders.list()
    expect(given.inits.map((init) => init.credentials)).toEqual(['include'])
    const tokenOnly = spyFetch()
    const embedClient = createPlatformClient({ baseUrl, embedToken: 'not-a-real-token', fetch: tokenOnly.fetch })
    expect(embedClient.credentials).toBe('omit')
    await expect(embedClient.deployment(1).reports.list()).rejects.toMatchObject({ status: 401 })
    expect(tokenOnly.inits.map((init) => init.credentials)).toEqual(['omit'])
    expect(tokenOnly.inits[0].headers).toMatchObject({ authorization: 'Embed-Token not-a-real-token' })
  })

  it('keeps the pre-v0.0.20 names as aliases of the new ones', async () => {
    const client = createClient({ baseUrl, apiKey: keys.admin })
    const created = await client.createReport(1, { name: 'Old style', query: 'SELECT 1' })
    expect((await client.getReport(1, created.id)).name).toBe('Old style')
    const viaOld = await client.getReports(1, { search: 'Old style' })
    const viaNew = await client.deployment(1).reports.list({ search: 'Old style' })
    expect(viaOld).toEqual(viaNew)
    expect((await client.getFolders(1)).items.length).toBe((await client.deployment(1).folders.list()).items.length)
    await client.deleteReport(1, created.id)
    await expect(client.getReport(1, created.id)).rejects.toMatchObject({ status: 404 })
  })

  it('reads the semantic model and runs semantic SQL', async () => {
    const deployment = createPlatformClient({ baseUrl, apiKey: keys.admin }).deployment(1)
    const meta = await deployment.meta({ searchQuery: 'orders' })
    expect(meta.cubes.map((cube) => cube.name)).toContain('orders')
    const result = await deployment.sql({ query: 'SELECT MEASURE(orders.count) FROM orders' })
    expect(result.totalRows).toBe(1)
    expect(result.schema).toHaveLength(1)
  })

  it('refuses two credentials at once', () => {
    expect(() => createPlatformClient({ baseUrl, apiKey: 'a', embedToken: 'b' } as never)).toThrow(
      'only one of apiKey, token and embedToken',
    )
  })
})
