import { afterEach, describe, expect, it } from 'bun:test'
import { eq } from 'drizzle-orm'
import { first } from '../../../db/client'
import { apiKey, createTestApp, type TestApp } from '../../helpers/app'
import { keys, testBootstrap } from '../../helpers/fixtures'
import {
  attributeCatalog,
  countRows,
  generate,
  groupCatalog,
  groupsOf,
  send,
  sessionRows,
  tenantRow,
  userRow,
  valuesOf,
} from './helpers'

let test: TestApp
afterEach(() => test?.close())

const GROUPS = '/api/v1/embed-tenants/tenant-one/groups'

async function defineGroups(names: string[], embedTenantName = 'tenant-one') {
  const response = await generate(test, {
    deploymentId: 1,
    externalId: 'creator',
    creatorMode: true,
    embedTenantName,
    groupDefinitions: names.map((name) => ({ name, description: `${name} group` })),
  })
  expect(response.status).toBe(200)
}

interface Page {
  items: Array<{ id: number; name: string; description: string | null }>
  pageInfo: { hasNextPage: boolean; endCursor: string | null }
}

async function page(query = ''): Promise<Page> {
  const response = await send(test, 'GET', `${GROUPS}${query}`)
  expect(response.status).toBe(200)
  return response.body as unknown as Page
}

describe('GET /api/v1/embed-tenants/:embedTenantName/groups', () => {
  it("lists only the tenant's bootstrapped groups as { id, name, description }", async () => {
    test = createTestApp()
    await defineGroups(['editors', 'viewers'])
    const { embedTenants } = test.storage.tables
    await test.storage.transaction(async (tx) => {
      await tx.update(embedTenants).set({ useCreatorMode: true }).where(eq(embedTenants.name, 'tenant-two'))
    })
    await defineGroups(['elsewhere'], 'tenant-two')
    await generate(test, {
      deploymentId: 1,
      externalId: 'creator',
      creatorMode: true,
      embedTenantName: 'tenant-one',
      tenantGroupDefinitions: [{ name: 'team-a' }],
    })
    const result = await page()
    expect(result).toEqual({
      items: [
        { id: expect.any(Number), name: 'editors', description: 'editors group' },
        { id: expect.any(Number), name: 'viewers', description: 'viewers group' },
      ],
      pageInfo: { hasNextPage: false, endCursor: expect.any(String) },
    })
  })

  it('answers an empty page for a tenant without groups', async () => {
    test = createTestApp()
    expect(await page()).toEqual({ items: [], pageInfo: { hasNextPage: false, endCursor: null } })
  })

  it('pages with first (default 20) and after, stable while groups are added', async () => {
    test = createTestApp()
    const names = Array.from({ length: 25 }, (_, index) => `g${String(index).padStart(2, '0')}`)
    await defineGroups(names)
    const first = await page()
    expect(first.items.map((item) => item.name)).toEqual(names.slice(0, 20))
    expect(first.pageInfo.hasNextPage).toBe(true)
    const small = await page('?first=3')
    expect(small.items.map((item) => item.name)).toEqual(['g00', 'g01', 'g02'])
    await defineGroups(['a-new-one', 'zz-new'])
    const next = await page(`?first=3&after=${small.pageInfo.endCursor}`)
    expect(next.items.map((item) => item.name)).toEqual(['g03', 'g04', 'g05'])
    const rest = await page(`?first=100&after=${next.pageInfo.endCursor}`)
    expect(rest.items.map((item) => item.name)).toEqual([...names.slice(6), 'a-new-one', 'zz-new'])
    expect(rest.pageInfo.hasNextPage).toBe(false)
    const end = await page(`?after=${rest.pageInfo.endCursor}`)
    expect(end).toEqual({ items: [], pageInfo: { hasNextPage: false, endCursor: null } })
  })

  it('returns 400 for first outside 1..100 and for a cursor it did not issue', async () => {
    test = createTestApp()
    for (const first of ['0', '101', 'ten', '1.5', '-1']) {
      const response = await send(test, 'GET', `${GROUPS}?first=${first}`)
      expect(response.status).toBe(400)
      expect(response.body).toEqual({
        error: 'query first: expected an integer from 1 to 100',
        code: 'VALIDATION_FAILED',
      })
    }
    const response = await send(test, 'GET', `${GROUPS}?after=bm9wZQ`)
    expect(response).toEqual({
      status: 400,
      body: { error: 'after: not a cursor of this list; pass pageInfo.endCursor unchanged', code: 'INVALID_CURSOR' },
    })
  })

  it("returns 404 for an unknown tenant and for another account's tenant", async () => {
    test = createTestApp()
    const unknown = await send(test, 'GET', '/api/v1/embed-tenants/no-such-tenant/groups')
    expect(unknown).toEqual({
      status: 404,
      body: { error: 'Embed tenant no-such-tenant not found', code: 'EMBED_TENANT_NOT_FOUND' },
    })
    expect((await send(test, 'GET', GROUPS, apiKey(keys.otherAdmin))).status).toBe(404)
  })

  it('requires an admin key', async () => {
    test = createTestApp()
    expect((await send(test, 'GET', GROUPS, apiKey(keys.member))).body.code).toBe('ADMIN_REQUIRED')
    expect((await send(test, 'GET', GROUPS, {})).status).toBe(401)
  })
})

describe('DELETE /api/v1/embed-tenants/:embedTenantName/groups/:id', () => {
  it('deletes the group with its memberships and answers 404 afterwards', async () => {
    test = createTestApp()
    await defineGroups(['editors', 'viewers'])
    await generate(test, {
      deploymentId: 1,
      externalId: 'u1',
      creatorMode: true,
      embedTenantName: 'tenant-one',
      groups: ['editors', 'viewers'],
    })
    const editors = (await page()).items[0]
    // Written with leading zeros it is the same id, as a folder's or a report's is.
    const response = await send(test, 'DELETE', `${GROUPS}/000${editors.id}`)
    expect(response).toEqual({ status: 204, body: {} })
    expect(await groupCatalog(test)).not.toContain('tenant-one/editors:editors group')
    expect(await groupsOf(test, (await userRow(test, 'u1'))!.id)).toEqual(['tenant-one/viewers'])
    expect(
      await countRows(test, 'group_memberships', eq(test.storage.tables.groupMemberships.groupId, editors.id)),
    ).toBe(0)
    expect(await send(test, 'DELETE', `${GROUPS}/${editors.id}`)).toEqual({
      status: 404,
      body: { error: `Group ${editors.id} not found in embed tenant tenant-one`, code: 'GROUP_NOT_FOUND' },
    })
  })

  it("returns 404 for a tenant-wide group's id, another tenant's group and a non-numeric id", async () => {
    test = createTestApp()
    const { groups } = test.storage.tables
    const sales = (await first(test.storage.db.select({ id: groups.id }).from(groups).where(eq(groups.name, 'sales'))))!
      .id
    for (const id of [String(sales), 'abc', '0', '-1'])
      expect((await send(test, 'DELETE', `${GROUPS}/${id}`)).status).toBe(404)
    expect(await groupCatalog(test)).toContain('-/sales:Sales team')
    await defineGroups(['editors'])
    const editors = (await page()).items[0]
    expect((await send(test, 'DELETE', `/api/v1/embed-tenants/tenant-two/groups/${editors.id}`)).status).toBe(404)
    expect((await send(test, 'DELETE', `${GROUPS}/${editors.id}`, apiKey(keys.otherAdmin))).status).toBe(404)
    expect((await page()).items.map((item) => item.name)).toEqual(['editors'])
  })
})

describe('DELETE /api/v1/embed-tenants/:embedTenantName', () => {
  it('deletes the tenant and everything scoped to it, leaving the tenant-wide catalog and the users', async () => {
    test = createTestApp()
    await generate(test, {
      deploymentId: 1,
      externalId: 'u1',
      creatorMode: true,
      embedTenantName: 'tenant-one',
      groupDefinitions: [{ name: 'editors' }],
      tenantGroupDefinitions: [{ name: 'team-a' }],
      userAttributeDefinitions: [{ name: 'tier', type: 'string' }],
      groups: ['editors'],
      tenantGroups: ['team-a'],
      userAttributes: [{ name: 'tier', value: 'gold' }],
    })
    await generate(test, {
      deploymentId: 1,
      externalId: 'u1',
      groups: ['sales'],
      userAttributes: [{ name: 'region', value: 'EU' }],
    })
    const response = await send(test, 'DELETE', '/api/v1/embed-tenants/tenant-one')
    expect(response).toEqual({ status: 204, body: {} })
    expect(await tenantRow(test, 'tenant-one')).toBeUndefined()
    expect(await groupCatalog(test)).toEqual(['-/marketing', '-/ops', '-/sales:Sales team'])
    expect((await attributeCatalog(test)).some((label) => label.startsWith('tenant-one/'))).toBe(false)
    const user = (await userRow(test, 'u1'))!.id
    expect(await groupsOf(test, user)).toEqual(['sales'])
    expect(await valuesOf(test, user)).toEqual({ region: 'EU' })
    expect((await sessionRows(test)).map((row) => row.embedTenantId)).toEqual([null])
    expect((await send(test, 'DELETE', '/api/v1/embed-tenants/tenant-one')).status).toBe(404)
  })

  it('accepts a trailing slash', async () => {
    test = createTestApp()
    expect((await send(test, 'DELETE', '/api/v1/embed-tenants/tenant-two/')).status).toBe(204)
    expect(await tenantRow(test, 'tenant-two')).toBeUndefined()
  })

  it("returns 404 for another account's tenant and 403 for a non-admin key, deleting nothing", async () => {
    test = createTestApp()
    expect((await send(test, 'DELETE', '/api/v1/embed-tenants/tenant-two', apiKey(keys.otherAdmin))).status).toBe(404)
    expect((await send(test, 'DELETE', '/api/v1/embed-tenants/tenant-two', apiKey(keys.member))).status).toBe(403)
    expect(await tenantRow(test, 'tenant-two')).toBeDefined()
  })
})

describe("embed-tenant admin routes and the key's policy", () => {
  const viewerKey = 'ak_test_viewer_admin_0123456789'

  it('let an admin key whose policy only reads list groups, and refuse it deleting a group or the tenant', async () => {
    const bootstrap = testBootstrap()
    bootstrap.accounts[0].apiKeys!.push({ name: 'viewer', key: viewerKey, admin: true, role: 'viewer' })
    test = createTestApp({ bootstrap })
    await defineGroups(['editors'])
    const viewer = apiKey(viewerKey)
    const listed = await send(test, 'GET', GROUPS, viewer)
    expect(listed.status).toBe(200)
    const [{ id }] = (listed.body as unknown as Page).items
    const refused = {
      status: 403,
      body: { error: 'This API key lacks the ContentManage permission', code: 'PERMISSION_DENIED' },
    }
    expect(await send(test, 'DELETE', `${GROUPS}/${id}`, viewer)).toEqual(refused)
    expect(await send(test, 'DELETE', '/api/v1/embed-tenants/tenant-one', viewer)).toEqual(refused)
    expect((await page()).items.map((group) => group.name)).toEqual(['editors'])
    expect(await tenantRow(test, 'tenant-one')).toBeDefined()
  })

  it('refuse listing groups to an admin key whose policy does not read content', async () => {
    test = createTestApp()
    const { apiKeys } = test.storage.tables
    await test.ready
    const secrets = await send(test, 'PUT', '/api/v1/api-keys/3/policy', apiKey(keys.admin), {
      actions: ['SecretsManage'],
    })
    expect(secrets.status).toBe(200)
    const scoped = await first(test.storage.db.select({ name: apiKeys.name }).from(apiKeys).where(eq(apiKeys.id, 3)))
    expect(scoped?.name).toBe('scoped')
    expect(await send(test, 'GET', GROUPS, apiKey(keys.scoped))).toEqual({
      status: 403,
      body: { error: 'This API key lacks the ContentRead permission', code: 'PERMISSION_DENIED' },
    })
  })
})

describe('embed-tenant user-attribute routes removed in v0.2.0', () => {
  it('answer 404 saying they were removed', async () => {
    test = createTestApp()
    expect(await send(test, 'GET', '/api/v1/embed-tenants/tenant-one/user-attributes')).toEqual({
      status: 404,
      body: { error: 'Listing embed-tenant user attributes was removed in release v0.2.0', code: 'REMOVED_IN_V0_2_0' },
    })
    expect(await send(test, 'DELETE', '/api/v1/embed-tenants/tenant-one/user-attributes/1')).toEqual({
      status: 404,
      body: { error: 'Deleting embed-tenant user attributes was removed in release v0.2.0', code: 'REMOVED_IN_V0_2_0' },
    })
  })
})
