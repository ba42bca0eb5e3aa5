import { afterEach, describe, expect, it } from 'bun:test'
import { D1, managementApp, workbookWithDashboard, type ManagementApp } from './helpers'

let app: ManagementApp
afterEach(() => app?.close())

/**
 * Writes that check before they write, sent at once. SQLite runs one transaction at a time; on Postgres (several
 * nodes, one database) the transactions overlap, and these pin the answers a client gets either way.
 */
describe('management writes sent at once', () => {
  it('keeps both changes when two keys change different fields of the app configuration at once', async () => {
    app = managementApp()
    const [theme, locale] = await Promise.all([
      app.call('PATCH', '/api/v1/app-config', { applyThemeGlobally: true }),
      app.call('PATCH', '/api/v1/app-config', { embedding: { locale: 'de-DE' } }),
    ])
    expect([theme.status, locale.status]).toEqual([200, 200])
    const stored = await app.call('GET', '/api/v1/app-config')
    expect(stored.body).toMatchObject({ applyThemeGlobally: true, embedding: { locale: 'de-DE' } })
  })

  it('keeps both changes when the policies and the instructions of the AI engineer change at once', async () => {
    app = managementApp()
    const policy = { effect: 'deny', actions: ['ChatThreadCreate'], resourceType: 'agent', resources: ['*'] }
    const [policies, instructions] = await Promise.all([
      app.call('PATCH', `${D1}/ai-engineer-settings`, { chatThreadPolicies: [policy] }),
      app.call('PATCH', `${D1}/ai-engineer-settings`, { instructions: 'Answer in German.' }),
    ])
    expect([policies.status, instructions.status]).toEqual([200, 200])
    const stored = await app.call('GET', `${D1}/ai-engineer-settings`)
    expect(stored.body).toMatchObject({ chatThreadPolicies: [policy], instructions: 'Answer in German.' })
  })

  it('starts one dbt sync of a branch and answers 409 to the other when two start at once', async () => {
    app = managementApp()
    const started = await Promise.all([1, 2, 3].map(() => app.call('POST', `${D1}/dbt-sync`, { branchName: 'main' })))
    expect(started.map((answer) => answer.status).sort()).toEqual([201, 409, 409])
    expect(started.filter((answer) => answer.status === 409).map((answer) => answer.body.code)).toEqual([
      'DBT_SYNC_IN_PROGRESS',
      'DBT_SYNC_IN_PROGRESS',
    ])
  })

  it('gives a slug to one of two workbooks claiming it at once and answers 409 to the other', async () => {
    app = managementApp()
    const created = await Promise.all(
      ['Sales', 'Revenue'].map((name) => app.call('POST', `${D1}/workbooks`, { name, slug: 'sales' })),
    )
    expect(created.map((answer) => answer.status).sort()).toEqual([201, 409])
    expect(created.find((answer) => answer.status === 409)?.body.code).toBe('SLUG_TAKEN')
  })

  it('creates one dashboard for a workbook when two are created at once, and answers 409 to the other', async () => {
    app = managementApp()
    const workbook = await app.call('POST', `${D1}/workbooks`, { name: 'Sales' })
    const created = await Promise.all(
      ['One', 'Two'].map((name) => app.call('POST', `${D1}/dashboards`, { workbookId: workbook.body.id, name })),
    )
    expect(created.map((answer) => answer.status).sort()).toEqual([201, 409])
    expect(created.find((answer) => answer.status === 409)?.body.code).toBe('DASHBOARD_EXISTS')
  })

  it('either deletes a folder or fills it, never both, when a subfolder and a report are added as it is deleted', async () => {
    app = managementApp()
    const folder = (await app.call('POST', `${D1}/folders`, { name: 'Old' })).body
    const [deleted, child, report] = await Promise.all([
      app.call('DELETE', `${D1}/folders/${folder.id}`),
      app.call('POST', `${D1}/folders`, { name: 'Child', parentId: folder.id }),
      app.call('POST', `${D1}/reports`, { name: 'Orders', query: 'SELECT 1', folderId: folder.id }),
    ])
    if (deleted.status === 204) {
      expect([child.status, child.body.code, report.status, report.body.code]).toEqual([
        400,
        'UNKNOWN_FOLDER',
        400,
        'UNKNOWN_FOLDER',
      ])
    } else {
      expect(deleted.body.code).toBe('FOLDER_NOT_EMPTY')
      expect((await app.call('GET', `${D1}/folders/${folder.id}`)).status).toBe(200)
    }
    const listed = await app.call('GET', `${D1}/folders`)
    const parents = new Set(listed.body.items.map((item: { id: number }) => item.id))
    for (const item of listed.body.items as { parentId: number | null }[])
      expect(item.parentId === null || parents.has(item.parentId)).toBe(true)
  })

  it('refuses one of two moves that together would make a folder its own ancestor', async () => {
    app = managementApp()
    const a = (await app.call('POST', `${D1}/folders`, { name: 'A' })).body
    const b = (await app.call('POST', `${D1}/folders`, { name: 'B' })).body
    const moved = await Promise.all([
      app.call('PATCH', `${D1}/folders/${a.id}`, { parentId: b.id }),
      app.call('PATCH', `${D1}/folders/${b.id}`, { parentId: a.id }),
    ])
    expect(moved.map((answer) => answer.status).sort()).toEqual([200, 400])
    expect(moved.find((answer) => answer.status === 400)?.body.code).toBe('FOLDER_CYCLE')
  })

  it('answers 400 to a notification of a dashboard deleted at the same moment, or keeps it with the dashboard', async () => {
    app = managementApp()
    const { dashboard } = await workbookWithDashboard(app)
    const [deleted, created] = await Promise.all([
      app.call('DELETE', `${D1}/dashboards/${dashboard.id}`),
      app.call('POST', `${D1}/notifications`, {
        dashboardId: dashboard.id,
        name: 'Daily',
        schedule: { frequency: 'daily' },
        recipients: [{ kind: 'user', email: 'ann@example.com' }],
      }),
    ])
    expect(deleted.status).toBe(204)
    // Created first, it went with its dashboard; else the dashboard was already gone.
    if (created.status !== 201) expect(created).toMatchObject({ status: 400, body: { code: 'UNKNOWN_DASHBOARD' } })
    expect((await app.call('GET', `${D1}/notifications`)).body.items).toEqual([])
  })

  it('answers 404 to a snapshot or a workbook link of a report deleted at the same moment, never 500', async () => {
    app = managementApp()
    const report = (await app.call('POST', `${D1}/reports`, { name: 'Orders', query: 'SELECT 1' })).body
    const [deleted, snapshot, linked] = await Promise.all([
      app.call('DELETE', `${D1}/reports/${report.id}`),
      app.call('POST', `${D1}/reports/${report.id}/snapshots`, {}),
      app.call('PUT', `${D1}/reports/${report.id}/connect-workbook`, {
        externalWorkbookId: 'sheet-1',
        resultLocation: 'A1',
      }),
    ])
    expect(deleted.status).toBe(204)
    expect([201, 404]).toContain(snapshot.status)
    expect([200, 404]).toContain(linked.status)
    for (const answer of [snapshot, linked])
      if (answer.status === 404) expect(answer.body.code).toBe('REPORT_NOT_FOUND')
  })
})
