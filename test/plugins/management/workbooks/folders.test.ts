import { afterEach, describe, expect, it } from 'bun:test'
import { D1, D2, managementApp, type ManagementApp } from '../helpers'

let app: ManagementApp
afterEach(() => app?.close())

describe('POST /api/v1/deployments/:deploymentId/folders', () => {
  it('creates nested folders and answers 201 with the resource', async () => {
    app = managementApp()
    const parent = await app.call('POST', `${D1}/folders`, { name: 'Finance' })
    expect(parent.status).toBe(201)
    const child = await app.call('POST', `${D1}/folders`, { name: 'Quarterly', parentId: parent.body.id })
    expect(child.body).toEqual({
      id: expect.any(Number),
      deploymentId: 1,
      name: 'Quarterly',
      parentId: parent.body.id,
      createdAt: '2026-07-20T12:00:00.000Z',
      updatedAt: '2026-07-20T12:00:00.000Z',
    })
  })

  it('returns 400 for a parent in another deployment and for an empty name', async () => {
    app = managementApp()
    const elsewhere = await app.call('POST', `${D2}/folders`, { name: 'Support' })
    const refused = await app.call('POST', `${D1}/folders`, { name: 'Child', parentId: elsewhere.body.id })
    expect(refused).toMatchObject({ status: 400, body: { code: 'UNKNOWN_FOLDER' } })
    expect((await app.call('POST', `${D1}/folders`, { name: '' })).status).toBe(400)
    expect((await app.call('GET', `${D1}/folders`)).body.count).toBe(0)
  })
})

describe('GET /api/v1/deployments/:deploymentId/folders', () => {
  it('pages with items and pageInfo, fills data and count, and filters by search and parentId', async () => {
    app = managementApp()
    const root = await app.call('POST', `${D1}/folders`, { name: 'Root' })
    for (const name of ['Alpha', 'beta', 'Gamma']) {
      app.clock.advance(1000)
      await app.call('POST', `${D1}/folders`, { name, parentId: root.body.id })
    }
    const first = await app.call('GET', `${D1}/folders?first=3&sortBy=name`)
    expect(first.body.items.map((folder: { name: string }) => folder.name)).toEqual(['Alpha', 'beta', 'Gamma'])
    expect(first.body).toMatchObject({ count: 4, pageInfo: { hasNextPage: true } })
    expect(first.body.data).toEqual(first.body.items)
    const rest = await app.call('GET', `${D1}/folders?first=3&sortBy=name&after=${first.body.pageInfo.endCursor}`)
    expect(rest.body.items.map((folder: { name: string }) => folder.name)).toEqual(['Root'])
    expect(rest.body.pageInfo.hasNextPage).toBe(false)
    const children = await app.call('GET', `${D1}/folders?parentId=${root.body.id}&search=A`)
    expect(children.body.items.map((folder: { name: string }) => folder.name)).toEqual(['Alpha', 'beta', 'Gamma'])
    expect((await app.call('GET', `${D1}/folders?search=gam`)).body.count).toBe(1)
  })

  it('sorts by name ignoring case beyond ASCII too, page after page', async () => {
    app = managementApp()
    for (const name of ['Éb', 'ed', 'éa', 'Ec']) await app.call('POST', `${D1}/folders`, { name })
    const first = await app.call('GET', `${D1}/folders?first=3&sortBy=name`)
    const rest = await app.call('GET', `${D1}/folders?first=3&sortBy=name&after=${first.body.pageInfo.endCursor}`)
    // Lowered, 'éa' comes before 'éb' whatever the case it was written in (by code point, after every 'e').
    expect([...first.body.items, ...rest.body.items].map((folder: { name: string }) => folder.name)).toEqual([
      'Ec',
      'ed',
      'éa',
      'Éb',
    ])
  })
})

describe('PATCH/DELETE /api/v1/deployments/:deploymentId/folders/:folderId', () => {
  it('renames and moves a folder, and refuses a move into its own subfolder with 400', async () => {
    app = managementApp()
    const top = await app.call('POST', `${D1}/folders`, { name: 'Top' })
    const middle = await app.call('POST', `${D1}/folders`, { name: 'Middle', parentId: top.body.id })
    const bottom = await app.call('POST', `${D1}/folders`, { name: 'Bottom', parentId: middle.body.id })
    const cycle = await app.call('PATCH', `${D1}/folders/${top.body.id}`, { parentId: bottom.body.id })
    expect(cycle).toMatchObject({ status: 400, body: { code: 'FOLDER_CYCLE' } })
    expect((await app.call('PATCH', `${D1}/folders/${top.body.id}`, { parentId: top.body.id })).status).toBe(400)
    expect((await app.call('GET', `${D1}/folders/${top.body.id}`)).body.parentId).toBeNull()
    const moved = await app.call('PATCH', `${D1}/folders/${bottom.body.id}`, { name: 'Leaf', parentId: null })
    expect(moved).toMatchObject({ status: 200, body: { name: 'Leaf', parentId: null } })
  })

  it('refuses to delete a folder that holds reports with 409, deletes an empty one with 204, then 404', async () => {
    app = managementApp()
    const folder = await app.call('POST', `${D1}/folders`, { name: 'Finance' })
    const report = await app.call('POST', `${D1}/reports`, {
      name: 'Revenue',
      query: 'SELECT 1',
      folderId: folder.body.id,
    })
    const refused = await app.call('DELETE', `${D1}/folders/${folder.body.id}`)
    expect(refused).toMatchObject({ status: 409, body: { code: 'FOLDER_NOT_EMPTY' } })
    expect((await app.call('GET', `${D1}/folders/${folder.body.id}`)).status).toBe(200)
    await app.call('PATCH', `${D1}/reports/${report.body.id}`, { folderId: null })
    expect((await app.call('DELETE', `${D1}/folders/${folder.body.id}`)).status).toBe(204)
    expect((await app.call('GET', `${D1}/folders/${folder.body.id}`)).status).toBe(404)
  })

  it("hides another deployment's folders behind 404", async () => {
    app = managementApp()
    const folder = await app.call('POST', `${D1}/folders`, { name: 'Finance' })
    expect((await app.call('GET', `${D2}/folders/${folder.body.id}`)).status).toBe(404)
    expect((await app.call('PATCH', `${D2}/folders/${folder.body.id}`, { name: 'x' })).status).toBe(404)
  })
})
