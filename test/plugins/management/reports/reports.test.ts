import { afterEach, describe, expect, it } from 'bun:test'
import { keys } from '../../../helpers/fixtures'
import { D1, D2, managementApp, type ManagementApp, apiKeyId } from '../helpers'

let app: ManagementApp
afterEach(() => app?.close())

const query = 'SELECT MEASURE(orders.count) FROM orders'

async function seedReports(names: string[]) {
  const ids: number[] = []
  for (const name of names) {
    const created = await app.call('POST', `${D1}/reports`, { name, query })
    expect(created.status).toBe(201)
    ids.push(created.body.id)
    app.clock.advance(1000)
  }
  return ids
}

describe('POST /api/v1/deployments/:deploymentId/reports', () => {
  it('creates a report and answers 201 with the resource', async () => {
    app = managementApp()
    const folder = await app.call('POST', `${D1}/folders`, { name: 'Finance' })
    const created = await app.call('POST', `${D1}/reports`, {
      name: 'Revenue',
      query,
      folderId: folder.body.id,
      definition: { chart: 'bar' },
    })
    expect(created.status).toBe(201)
    expect(created.body).toEqual({
      id: expect.any(Number),
      deploymentId: 1,
      name: 'Revenue',
      folderId: folder.body.id,
      query,
      definition: { chart: 'bar' },
      canEdit: true,
      canManage: true,
      externalWorkbookPlacements: [],
      lastViewedAt: null,
      createdAt: '2026-07-20T12:00:00.000Z',
      updatedAt: '2026-07-20T12:00:00.000Z',
    })
    expect((await app.call('GET', `${D1}/reports/${created.body.id}`)).body.name).toBe('Revenue')
  })

  it('returns 400 naming the field for a missing query and for an unknown folder, and stores nothing', async () => {
    app = managementApp()
    const missing = await app.call('POST', `${D1}/reports`, { name: 'Revenue' })
    expect(missing.status).toBe(400)
    expect(missing.body).toEqual({ error: expect.stringContaining('query'), code: 'VALIDATION_FAILED' })
    const unknownFolder = await app.call('POST', `${D1}/reports`, { name: 'Revenue', query, folderId: 999 })
    expect(unknownFolder.status).toBe(400)
    expect(unknownFolder.body).toEqual({
      error: 'folderId: folder 999 does not exist in this deployment',
      code: 'UNKNOWN_FOLDER',
    })
    expect((await app.call('GET', `${D1}/reports`)).body.count).toBe(0)
  })

  it('returns 400 for a body id sent as text, as every body integer of the API takes JSON numbers only', async () => {
    app = managementApp()
    const folder = await app.call('POST', `${D1}/folders`, { name: 'F' })
    const workbook = await app.call('POST', `${D1}/workbooks`, { name: 'W' })
    const text = String(folder.body.id)
    for (const [path, body, field] of [
      ['reports', { name: 'R', query, folderId: text }, 'folderId: expected an integer or null'],
      ['folders', { name: 'F2', parentId: text }, 'parentId: expected an integer or null'],
      [
        'dashboards',
        { name: 'D', workbookId: String(workbook.body.id) },
        'workbookId: expected an integer of at least 1',
      ],
    ] as const) {
      expect(await app.call('POST', `${D1}/${path}`, body)).toMatchObject({
        status: 400,
        body: { error: field, code: 'VALIDATION_FAILED' },
      })
    }
    expect((await app.call('GET', `${D1}/reports`)).body.count).toBe(0)
    // Path and query ids are text by nature and still read as numbers.
    expect((await app.call('GET', `${D1}/reports?folderId=${text}`)).status).toBe(200)
    expect((await app.call('GET', `${D1}/folders/${text}`)).status).toBe(200)
  })

  it('returns 400 for a name or query of only white space, and keeps names with spaces around text', async () => {
    app = managementApp()
    const blank = { error: 'name: expected text of this form: text that is not blank (not only white space)' }
    for (const name of [' ', '\t\n ', '\u00a0']) {
      for (const [path, body] of [
        ['reports', { name, query }],
        ['folders', { name }],
        ['workbooks', { name }],
      ] as const) {
        const refused = await app.call('POST', `${D1}/${path}`, body)
        expect(refused).toMatchObject({ status: 400, body: { ...blank, code: 'VALIDATION_FAILED' } })
      }
    }
    expect(await app.call('POST', `${D1}/reports`, { name: 'Revenue', query: ' \n ' })).toMatchObject({
      status: 400,
      body: {
        error: 'query: expected text of this form: semantic SQL, e.g. `SELECT MEASURE(orders.count) FROM orders`',
      },
    })
    const report = await app.call('POST', `${D1}/reports`, { name: ' Revenue ', query })
    expect(report).toMatchObject({ status: 201, body: { name: ' Revenue ' } })
    expect(await app.call('PATCH', `${D1}/reports/${report.body.id}`, { name: '  ' })).toMatchObject({
      status: 400,
      body: blank,
    })
    expect((await app.call('GET', `${D1}/reports/${report.body.id}`)).body.name).toBe(' Revenue ')
  })
})

describe('GET/PATCH/DELETE /api/v1/deployments/:deploymentId/reports/:reportId', () => {
  it('updates, reads and deletes a report (200, 200, 204) and then answers 404', async () => {
    app = managementApp()
    const [id] = await seedReports(['Revenue'])
    const updated = await app.call('PATCH', `${D1}/reports/${id}`, { name: 'Net revenue' })
    expect(updated.status).toBe(200)
    expect(updated.body).toMatchObject({ name: 'Net revenue', query, updatedAt: '2026-07-20T12:00:01.000Z' })
    const removed = await app.call('DELETE', `${D1}/reports/${id}`)
    expect(removed.status).toBe(204)
    const gone = await app.call('GET', `${D1}/reports/${id}`)
    expect(gone).toMatchObject({ status: 404, body: { error: `Report ${id} not found`, code: 'REPORT_NOT_FOUND' } })
    expect((await app.call('PATCH', `${D1}/reports/${id}`, { name: 'x' })).status).toBe(404)
    expect((await app.call('DELETE', `${D1}/reports/${id}`)).status).toBe(404)
  })

  it("hides another deployment's reports behind 404", async () => {
    app = managementApp()
    const [id] = await seedReports(['Revenue'])
    const viaOther = await app.call('GET', `${D2}/reports/${id}`)
    expect(viaOther.status).toBe(404)
    expect((await app.call('GET', `${D2}/reports`)).body.items).toEqual([])
    expect((await app.call('DELETE', `${D2}/reports/${id}`)).status).toBe(404)
    expect((await app.call('GET', `${D1}/reports/${id}`)).status).toBe(200)
  })

  it("answers 404 for another account's deployment", async () => {
    app = managementApp()
    const response = await app.call('GET', '/api/v1/deployments/3/reports')
    expect(response).toMatchObject({ status: 404, body: { code: 'DEPLOYMENT_NOT_FOUND' } })
  })

  it('records the view in lastViewedAt when a report is read', async () => {
    app = managementApp()
    const [id] = await seedReports(['Revenue'])
    app.clock.set(Date.UTC(2026, 6, 21, 9, 30))
    const read = await app.call('GET', `${D1}/reports/${id}`)
    expect(read.body.lastViewedAt).toBe('2026-07-21T09:30:00.000Z')
    expect(read.body.updatedAt).toBe('2026-07-20T12:00:00.000Z')
  })
})

describe('GET /api/v1/deployments/:deploymentId/reports', () => {
  it('pages with items and pageInfo, and fills the deprecated data and count', async () => {
    app = managementApp()
    await seedReports(['a', 'b', 'c', 'd', 'e'])
    const first = await app.call('GET', `${D1}/reports?first=2`)
    expect(first.status).toBe(200)
    expect(first.body.items.map((report: { name: string }) => report.name)).toEqual(['a', 'b'])
    expect(first.body.data).toEqual(first.body.items)
    expect(first.body.count).toBe(5)
    expect(first.body.pageInfo).toEqual({ hasNextPage: true, endCursor: expect.any(String) })
    const second = await app.call('GET', `${D1}/reports?first=2&after=${first.body.pageInfo.endCursor}`)
    expect(second.body.items.map((report: { name: string }) => report.name)).toEqual(['c', 'd'])
    const third = await app.call('GET', `${D1}/reports?first=2&after=${second.body.pageInfo.endCursor}`)
    expect(third.body.items.map((report: { name: string }) => report.name)).toEqual(['e'])
    expect(third.body.pageInfo.hasNextPage).toBe(false)
    expect(third.body.count).toBe(5)
  })

  it('defaults first to 20 and refuses first above 100 or below 1 with 400', async () => {
    app = managementApp()
    await seedReports(Array.from({ length: 21 }, (_, index) => `r${index}`))
    const page = await app.call('GET', `${D1}/reports`)
    expect(page.body.items).toHaveLength(20)
    expect(page.body.pageInfo.hasNextPage).toBe(true)
    for (const first of ['101', '0', 'ten']) {
      const refused = await app.call('GET', `${D1}/reports?first=${first}`)
      expect(refused.status).toBe(400)
      expect(refused.body.code).toBe('VALIDATION_FAILED')
    }
  })

  it('filters by search (case-insensitive, wildcards literal), folderId and externalWorkbookId', async () => {
    app = managementApp()
    const folder = await app.call('POST', `${D1}/folders`, { name: 'Finance' })
    const [revenue, , margin] = await seedReports(['Revenue 2026', 'Churn', 'Gross margin 100%', 'Épsilon Ärger'])
    await app.call('PATCH', `${D1}/reports/${revenue}`, { folderId: folder.body.id })
    await app.call('PUT', `${D1}/reports/${margin}/connect-workbook`, {
      externalWorkbookId: 'sheet-9',
      resultLocation: 'A1',
    })
    const names = async (queryString: string) =>
      (await app.call('GET', `${D1}/reports?${queryString}`)).body.items.map((report: { name: string }) => report.name)
    expect(await names('search=REVENUE')).toEqual(['Revenue 2026'])
    expect(await names('search=%25')).toEqual(['Gross margin 100%'])
    expect(await names('search=_')).toEqual([])
    // Case is ignored beyond ASCII too (SQLite's lower() knows only ASCII letters).
    expect(await names(`search=${encodeURIComponent('épsilon ärger')}`)).toEqual(['Épsilon Ärger'])
    expect(await names(`search=${encodeURIComponent('ÉPSILON')}`)).toEqual(['Épsilon Ärger'])
    expect(await names(`folderId=${folder.body.id}`)).toEqual(['Revenue 2026'])
    expect(await names('externalWorkbookId=sheet-9')).toEqual(['Gross margin 100%'])
    expect(await names('externalWorkbookId=sheet-9&search=revenue')).toEqual([])
    expect((await app.call('GET', `${D1}/reports?search=r`)).body.count).toBe(4)
  })

  it('sorts by name, createdAt, updatedAt and lastViewedAt', async () => {
    app = managementApp()
    const [banana, apple, cherry] = await seedReports(['banana', 'Apple', 'cherry'])
    await app.call('PATCH', `${D1}/reports/${banana}`, { query: 'SELECT 2' })
    app.clock.advance(1000)
    await app.call('GET', `${D1}/reports/${cherry}`)
    app.clock.advance(1000)
    await app.call('GET', `${D1}/reports/${apple}`)
    const names = async (queryString: string) =>
      (await app.call('GET', `${D1}/reports?${queryString}`)).body.items.map((report: { name: string }) => report.name)
    expect(await names('sortBy=name')).toEqual(['Apple', 'banana', 'cherry'])
    expect(await names('sortBy=name&sortOrder=desc')).toEqual(['cherry', 'banana', 'Apple'])
    expect(await names('sortBy=createdAt')).toEqual(['banana', 'Apple', 'cherry'])
    expect(await names('sortBy=updatedAt')).toEqual(['banana', 'cherry', 'Apple'])
    expect(await names('sortBy=lastViewedAt')).toEqual(['Apple', 'cherry', 'banana'])
    const refused = await app.call('GET', `${D1}/reports?sortBy=color`)
    expect(refused.status).toBe(400)
    expect(refused.body.error).toContain('sortBy')
  })

  it('serves a first page sorted by lastViewedAt without a cursor and refuses after with 400', async () => {
    app = managementApp()
    await seedReports(['a', 'b', 'c'])
    const first = await app.call('GET', `${D1}/reports?sortBy=lastViewedAt&first=2`)
    expect(first.status).toBe(200)
    expect(first.body.items).toHaveLength(2)
    expect(first.body.pageInfo).toEqual({ hasNextPage: true, endCursor: null })
    expect(first.body.count).toBe(3)
    const cursor = (await app.call('GET', `${D1}/reports?first=1`)).body.pageInfo.endCursor
    const refused = await app.call('GET', `${D1}/reports?sortBy=lastViewedAt&after=${cursor}`)
    expect(refused.status).toBe(400)
    expect(refused.body.code).toBe('CURSOR_UNAVAILABLE')
    expect(refused.body.error).toContain('Cursor pagination is unavailable when sorting by lastViewedAt')
  })

  it('walks names of the longest kind by name, with the cursors it issues (they were refused past 500 characters)', async () => {
    app = managementApp()
    // 200 characters each: three UTF-8 bytes a character, two JSON characters a backslash, six a control character.
    const names = ['日'.repeat(200), '\\'.repeat(200), '\u0001'.repeat(200), 'a']
    await seedReports(names)
    for (const sortOrder of ['asc', 'desc']) {
      const seen: string[] = []
      let after: string | null = null
      do {
        const page: { status: number; body: any } = await app.call(
          'GET',
          `${D1}/reports?sortBy=name&sortOrder=${sortOrder}&first=1${after ? `&after=${after}` : ''}`,
        )
        expect(page.status).toBe(200)
        seen.push(...page.body.items.map((item: { name: string }) => item.name))
        after = page.body.pageInfo.hasNextPage ? page.body.pageInfo.endCursor : null
      } while (after)
      expect([...seen].sort()).toEqual([...names].sort())
    }
  })

  it('refuses a malformed cursor and a cursor of another sort with 400', async () => {
    app = managementApp()
    await seedReports(['a', 'b'])
    const garbage = await app.call('GET', `${D1}/reports?after=not-a-cursor`)
    expect(garbage).toMatchObject({ status: 400, body: { code: 'INVALID_CURSOR' } })
    const byName = (await app.call('GET', `${D1}/reports?sortBy=name&first=1`)).body.pageInfo.endCursor
    const mixed = await app.call('GET', `${D1}/reports?sortBy=createdAt&after=${byName}`)
    expect(mixed.status).toBe(400)
    expect(mixed.body.error).toContain('sortBy=name')
    // An edited cursor whose value is not of its sort's type (a name for a time, a time for a name).
    const edited = (value: unknown, sortBy: string, order: string) =>
      Buffer.from(JSON.stringify([sortBy, order, value, 2])).toString('base64url')
    for (const [value, sortBy, order] of [
      ['x', 'createdAt', 'asc'],
      [5, 'name', 'asc'],
      [null, 'updatedAt', 'desc'],
    ] as const) {
      const refused = await app.call('GET', `${D1}/reports?sortBy=${sortBy}&after=${edited(value, sortBy, order)}`)
      expect([sortBy, refused.status, refused.body.code]).toEqual([sortBy, 400, 'INVALID_CURSOR'])
    }
  })
})

describe('PUT /api/v1/deployments/:deploymentId/reports/:reportId/connect-workbook', () => {
  it('links the report to an external workbook and moves the placement when connected again', async () => {
    app = managementApp()
    const [id] = await seedReports(['Revenue'])
    const linked = await app.call('PUT', `${D1}/reports/${id}/connect-workbook`, {
      externalWorkbookId: 'sheet-1',
      resultLocation: 'Sheet1!A1',
      endResultCell: 'D20',
    })
    expect(linked.status).toBe(200)
    expect(linked.body.externalWorkbookPlacements).toEqual([
      {
        workbookId: 'sheet-1',
        resultLocation: 'Sheet1!A1',
        endResultCell: 'D20',
        connectedAt: '2026-07-20T12:00:01.000Z',
      },
    ])
    app.clock.advance(5000)
    const moved = await app.call('PUT', `${D1}/reports/${id}/connect-workbook`, {
      externalWorkbookId: 'sheet-1',
      resultLocation: 'Sheet2!B2',
    })
    expect(moved.body.externalWorkbookPlacements).toEqual([
      {
        workbookId: 'sheet-1',
        resultLocation: 'Sheet2!B2',
        endResultCell: null,
        connectedAt: '2026-07-20T12:00:06.000Z',
      },
    ])
    expect(moved.body.updatedAt).toBe('2026-07-20T12:00:00.000Z')
    const stored = await app.call('GET', `${D1}/reports/${id}`)
    expect(stored.body.externalWorkbookPlacements).toHaveLength(1)
  })

  it('needs only read access: a viewer key may connect but not edit', async () => {
    app = managementApp()
    const [id] = await seedReports(['Revenue'])
    const memberKeyId = await apiKeyId(app, 'member')
    expect((await app.call('PUT', `/api/v1/api-keys/${memberKeyId}/policy`, { role: 'viewer' })).status).toBe(200)
    const connected = await app.call(
      'PUT',
      `${D1}/reports/${id}/connect-workbook`,
      { externalWorkbookId: 'mine', resultLocation: 'A1' },
      keys.member,
    )
    expect(connected.status).toBe(200)
    expect(connected.body).toMatchObject({ canEdit: false, canManage: false })
    const edit = await app.call('PATCH', `${D1}/reports/${id}`, { name: 'Hijacked' }, keys.member)
    expect(edit).toMatchObject({
      status: 403,
      body: { error: 'This API key lacks the ContentEdit permission', code: 'PERMISSION_DENIED' },
    })
    expect((await app.call('GET', `${D1}/reports/${id}`)).body.name).toBe('Revenue')
  })

  it('returns 404 for an unknown report and 400 for a body without resultLocation or with a blank one', async () => {
    app = managementApp()
    const missing = await app.call('PUT', `${D1}/reports/42/connect-workbook`, {
      externalWorkbookId: 'x',
      resultLocation: 'A1',
    })
    expect(missing).toMatchObject({ status: 404, body: { code: 'REPORT_NOT_FOUND' } })
    const [id] = await seedReports(['Revenue'])
    const bad = await app.call('PUT', `${D1}/reports/${id}/connect-workbook`, { externalWorkbookId: 'x' })
    expect(bad.status).toBe(400)
    expect(bad.body.error).toContain('resultLocation')
    for (const [body, error] of [
      [
        { externalWorkbookId: ' ', resultLocation: 'A1' },
        "externalWorkbookId: expected text of this form: the spreadsheet's id in its own service",
      ],
      [
        { externalWorkbookId: 'x', resultLocation: '  ' },
        'resultLocation: expected text of this form: where results start, e.g. `Sheet1!A1`',
      ],
      [
        { externalWorkbookId: 'x', resultLocation: 'A1', endResultCell: '\t' },
        'endResultCell: expected text of this form: the last cell of the results, e.g. `D20`',
      ],
    ] as const) {
      const blank = await app.call('PUT', `${D1}/reports/${id}/connect-workbook`, body)
      expect(blank).toMatchObject({ status: 400, body: { error, code: 'VALIDATION_FAILED' } })
    }
    expect((await app.call('GET', `${D1}/reports/${id}`)).body.externalWorkbookPlacements).toEqual([])
  })

  it('disconnects a workbook, and answers 404 for a workbook that is not connected', async () => {
    app = managementApp()
    const [id] = await seedReports(['Revenue'])
    await app.call('PUT', `${D1}/reports/${id}/connect-workbook`, {
      externalWorkbookId: 'sheet-1',
      resultLocation: 'A1',
    })
    const removed = await app.call('DELETE', `${D1}/reports/${id}/connect-workbook/sheet-1`)
    expect(removed.status).toBe(200)
    expect(removed.body.externalWorkbookPlacements).toEqual([])
    expect((await app.call('DELETE', `${D1}/reports/${id}/connect-workbook/sheet-1`)).body.code).toBe(
      'PLACEMENT_NOT_FOUND',
    )
  })
})
