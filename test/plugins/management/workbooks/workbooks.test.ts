import { afterEach, describe, expect, it } from 'bun:test'
import { keys } from '../../../helpers/fixtures'
import { D1, D2, managementApp, workbookWithDashboard, type ManagementApp, apiKeyId } from '../helpers'

let app: ManagementApp
afterEach(() => app?.close())

describe('POST /api/v1/deployments/:deploymentId/workbooks', () => {
  it('creates a workbook owned by the calling key', async () => {
    app = managementApp()
    const created = await app.call('POST', `${D1}/workbooks`, { name: 'Sales', slug: 'sales' })
    expect(created.status).toBe(201)
    expect(created.body).toEqual({
      id: expect.any(Number),
      deploymentId: 1,
      name: 'Sales',
      slug: 'sales',
      shared: false,
      user: { kind: 'apiKey', id: await apiKeyId(app, 'admin'), name: 'admin' },
      dashboardId: null,
      createdAt: '2026-07-20T12:00:00.000Z',
      updatedAt: '2026-07-20T12:00:00.000Z',
    })
  })

  it('refuses a slug held by another workbook with 409 and stores nothing', async () => {
    app = managementApp()
    const holder = await app.call('POST', `${D1}/workbooks`, { name: 'Sales', slug: 'sales' })
    const refused = await app.call('POST', `${D1}/workbooks`, { name: 'Sales 2', slug: 'sales' })
    expect(refused).toMatchObject({
      status: 409,
      body: {
        error: `Slug "sales" is used by workbook ${holder.body.id}; send slugTakeover: true to take it over`,
        code: 'SLUG_TAKEN',
      },
    })
    expect((await app.call('GET', `${D1}/workbooks`)).body.items).toHaveLength(1)
    expect((await app.call('POST', `${D2}/workbooks`, { name: 'Elsewhere', slug: 'sales' })).status).toBe(201)
  })

  it('takes the slug over from the other workbook with slugTakeover', async () => {
    app = managementApp()
    const holder = await app.call('POST', `${D1}/workbooks`, { name: 'Sales', slug: 'sales' })
    const taker = await app.call('POST', `${D1}/workbooks`, { name: 'Sales 2', slug: 'sales', slugTakeover: true })
    expect(taker).toMatchObject({ status: 201, body: { slug: 'sales' } })
    expect((await app.call('GET', `${D1}/workbooks/${holder.body.id}`)).body.slug).toBeNull()
  })

  it('returns 400 for a slug that is not lowercase words joined by dashes', async () => {
    app = managementApp()
    const refused = await app.call('POST', `${D1}/workbooks`, { name: 'Sales', slug: 'Sales Board' })
    expect(refused).toMatchObject({
      status: 400,
      body: { error: 'slug: expected text of this form: lowercase words joined by `-`', code: 'VALIDATION_FAILED' },
    })
  })
})

describe('PATCH/GET/DELETE /api/v1/deployments/:deploymentId/workbooks/:workbookId', () => {
  it('changes the slug with UpdateWorkbookInput, with and without slugTakeover', async () => {
    app = managementApp()
    const first = await app.call('POST', `${D1}/workbooks`, { name: 'A', slug: 'a' })
    const second = await app.call('POST', `${D1}/workbooks`, { name: 'B', slug: 'b' })
    expect((await app.call('PATCH', `${D1}/workbooks/${second.body.id}`, { slug: 'a' })).status).toBe(409)
    expect((await app.call('PATCH', `${D1}/workbooks/${second.body.id}`, { slug: 'b' })).status).toBe(200)
    const taken = await app.call('PATCH', `${D1}/workbooks/${second.body.id}`, { slug: 'a', slugTakeover: true })
    expect(taken.body.slug).toBe('a')
    expect((await app.call('GET', `${D1}/workbooks/${first.body.id}`)).body.slug).toBeNull()
    expect(
      (await app.call('PATCH', `${D1}/workbooks/${first.body.id}`, { slug: null, name: 'Renamed' })).body,
    ).toMatchObject({ slug: null, name: 'Renamed' })
  })

  it('deletes a workbook with its dashboard (204), then answers 404', async () => {
    app = managementApp()
    const { workbook, dashboard } = await workbookWithDashboard(app)
    expect((await app.call('DELETE', `${D1}/workbooks/${workbook.id}`)).status).toBe(204)
    expect((await app.call('GET', `${D1}/workbooks/${workbook.id}`)).status).toBe(404)
    expect((await app.call('GET', `${D1}/dashboards/${dashboard.id}`)).status).toBe(404)
    expect((await app.call('GET', `${D2}/workbooks/${workbook.id}`)).status).toBe(404)
  })
})

describe('POST /api/v1/deployments/:deploymentId/workbooks/:workbookId/duplicate', () => {
  it('names the copy of a workbook with the longest name within the limit, so it can be sent back and copied again', async () => {
    app = managementApp()
    const workbook = await app.call('POST', `${D1}/workbooks`, { name: `${'w'.repeat(190)}${'📈'.repeat(5)}` })
    const copy = await app.call('POST', `${D1}/workbooks/${workbook.body.id}/duplicate`)
    expect(copy.status).toBe(201)
    const name: string = copy.body.name
    expect(name.length).toBeLessThanOrEqual(200)
    expect(name).toStartWith(`Copy of ${'w'.repeat(190)}`)
    expect(name).toEndWith('…')
    expect(name.isWellFormed()).toBe(true) // no emoji split in half
    expect(await app.call('PATCH', `${D1}/workbooks/${copy.body.id}`, { name })).toMatchObject({ status: 200 })
    const again = await app.call('POST', `${D1}/workbooks/${copy.body.id}/duplicate`)
    expect(again.body.name).toStartWith('Copy of Copy of ')
    expect(again.body.name.length).toBeLessThanOrEqual(200)
  })

  it('copies a workbook and its dashboard for the caller without a body', async () => {
    app = managementApp()
    const { workbook, dashboard } = await workbookWithDashboard(app, { published: true, widgets: 2 })
    app.clock.advance(1000)
    const copy = await app.call('POST', `${D1}/workbooks/${workbook.id}/duplicate`)
    expect(copy.status).toBe(201)
    const copiedDashboardId = copy.body.dashboardId
    expect(copy.body).toMatchObject({ name: 'Copy of Sales', slug: null, shared: false, user: { name: 'admin' } })
    expect(copiedDashboardId).toBeGreaterThan(dashboard.id)
    expect(copy.body.id).not.toBe(workbook.id)
    const copied = await app.call('GET', `${D1}/dashboards/${copiedDashboardId}`)
    expect(copied.body).toMatchObject({
      published: false,
      publicId: null,
      fromSharedWorkspace: false,
      aiWidgetThreads: [],
    })
    expect(copied.body.widgets).toEqual(dashboard.widgets)
  })

  it('clones from the shared workspace with { shared: true } and answers 404 for a personal workbook', async () => {
    app = managementApp()
    const shared = await workbookWithDashboard(app, { shared: true })
    const personal = await app.call('POST', `${D1}/workbooks`, { name: 'Mine' })
    const clone = await app.call(
      'POST',
      `${D1}/workbooks/${shared.workbook.id}/duplicate`,
      { shared: true, name: 'My sales' },
      keys.member,
    )
    expect(clone.status).toBe(201)
    expect(clone.body).toMatchObject({ name: 'My sales', shared: false, user: { kind: 'apiKey', name: 'member' } })
    expect((await app.call('GET', `${D1}/dashboards/${clone.body.dashboardId}`)).body.fromSharedWorkspace).toBe(true)
    const refused = await app.call('POST', `${D1}/workbooks/${personal.body.id}/duplicate`, { shared: true })
    expect(refused).toMatchObject({
      status: 404,
      body: { error: `Workbook ${personal.body.id} is not in the shared workspace` },
    })
    expect((await app.call('GET', `${D1}/workbooks`)).body.items).toHaveLength(3)
  })

  it('returns 400 for a malformed body and 404 for an unknown workbook', async () => {
    app = managementApp()
    const { workbook } = await workbookWithDashboard(app)
    expect((await app.call('POST', `${D1}/workbooks/${workbook.id}/duplicate`, '{"shared":')).status).toBe(400)
    expect((await app.call('POST', `${D1}/workbooks/${workbook.id}/duplicate`, { shared: 'yes' })).status).toBe(400)
    expect((await app.call('POST', `${D1}/workbooks/999/duplicate`, {})).status).toBe(404)
  })
})
