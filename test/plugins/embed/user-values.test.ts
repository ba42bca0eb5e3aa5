import { afterEach, describe, expect, it } from 'bun:test'
import { and, eq, isNull } from 'drizzle-orm'
import { first } from '../../../db/client'
import { createTestApp, type TestApp } from '../../helpers/app'
import { generate, groupsOf, sessionRows, snapshotTables, userRow, valuesOf } from './helpers'

let test: TestApp
afterEach(() => test?.close())

const ROUTE = 'POST /api/v1/embed/generate-session'

async function call(body: Record<string, unknown>) {
  return generate(test, { deploymentId: 1, externalId: 'u1', ...body })
}

const userId = async () => (await userRow(test, 'u1'))!.id

describe(`${ROUTE} userAttributes`, () => {
  it('stores a value of every type, the boolean of v0.2.0 included', async () => {
    test = createTestApp()
    const response = await call({
      userAttributes: [
        { name: 'region', value: 'EU' },
        { name: 'level', value: 3.5 },
        { name: 'beta', value: false },
        { name: 'regions', value: ['EU', 'US'] },
        { name: 'codes', value: [1, 2] },
      ],
    })
    expect(response.status).toBe(200)
    expect(await valuesOf(test, await userId())).toEqual({
      region: 'EU',
      level: 3.5,
      beta: false,
      regions: ['EU', 'US'],
      codes: [1, 2],
    })
  })

  it('overwrites only the supplied names and clears a value with null', async () => {
    test = createTestApp()
    await call({
      userAttributes: [
        { name: 'region', value: 'EU' },
        { name: 'level', value: 1 },
        { name: 'beta', value: true },
      ],
    })
    await call({
      userAttributes: [
        { name: 'region', value: 'US' },
        { name: 'beta', value: null },
      ],
    })
    expect(await valuesOf(test, await userId())).toEqual({ region: 'US', level: 1 })
    await call({})
    expect(await valuesOf(test, await userId())).toEqual({ region: 'US', level: 1 })
    await call({ userAttributes: [{ name: 'codes', value: null }] })
    expect(await valuesOf(test, await userId())).toEqual({ region: 'US', level: 1 })
  })

  it('returns 400 when a value does not match the definition type, and writes nothing', async () => {
    test = createTestApp()
    await call({ userAttributes: [{ name: 'region', value: 'EU' }] })
    const cases: Array<[string, unknown, string]> = [
      ['region', 5, 'a string (its type is string)'],
      ['level', '5', 'a number (its type is number)'],
      ['beta', 'true', 'a boolean (its type is boolean)'],
      ['regions', 'EU', 'an array of strings (its type is string_array)'],
      ['regions', [1], 'an array of strings (its type is string_array)'],
      ['codes', ['1'], 'an array of numbers (its type is number_array)'],
      ['codes', 1, 'an array of numbers (its type is number_array)'],
    ]
    const before = await snapshotTables(test)
    for (const [name, value, expects] of cases) {
      // A valid change in the same call must not be applied either.
      const valid = name === 'level' ? 'beta' : 'level'
      const response = await call({
        userAttributes: [
          { name: valid, value: valid === 'level' ? 2 : true },
          { name, value },
        ],
      })
      expect(response).toEqual({
        status: 400,
        body: { error: `User attribute "${name}" expects ${expects}`, code: 'ATTRIBUTE_TYPE_MISMATCH' },
      })
    }
    expect(await snapshotTables(test)).toEqual(before)
  })

  it('returns 400 for a duplicate name', async () => {
    test = createTestApp()
    const response = await call({
      userAttributes: [
        { name: 'region', value: 'EU' },
        { name: 'region', value: 'US' },
      ],
    })
    expect(response).toEqual({
      status: 400,
      body: { error: 'userAttributes: duplicate name "region"', code: 'DUPLICATE_USER_ATTRIBUTE' },
    })
    expect(await userRow(test, 'u1')).toBeUndefined()
  })

  it('fails with exactly "User attributes not found" for an unknown name, writing nothing', async () => {
    test = createTestApp()
    await call({ userAttributes: [{ name: 'region', value: 'EU' }] })
    const before = await snapshotTables(test)
    const response = await call({
      userAttributes: [
        { name: 'region', value: 'US' },
        { name: 'shoe_size', value: 44 },
      ],
    })
    expect(response).toEqual({
      status: 400,
      body: { error: 'User attributes not found', code: 'USER_ATTRIBUTES_NOT_FOUND' },
    })
    expect(await snapshotTables(test)).toEqual(before)
  })

  it("never resolves another account's definition of the same name", async () => {
    test = createTestApp()
    const { userAttributeDefinitions: definitions, accounts } = test.storage.tables
    const acme = (await first(
      test.storage.db.select({ id: accounts.id }).from(accounts).where(eq(accounts.name, 'acme')),
    ))!
    await test.storage.transaction(async (tx) => {
      await tx.delete(definitions).where(and(eq(definitions.name, 'region'), eq(definitions.accountId, acme.id)))
    })
    const response = await call({ userAttributes: [{ name: 'region', value: 'EU' }] })
    expect(response.body).toEqual({ error: 'User attributes not found', code: 'USER_ATTRIBUTES_NOT_FOUND' })
  })
})

describe(`${ROUTE} groups`, () => {
  it('keeps memberships when omitted, clears them with [] and replaces them exactly with a list', async () => {
    test = createTestApp()
    await call({ groups: ['sales', 'marketing'] })
    expect(await groupsOf(test, await userId())).toEqual(['marketing', 'sales'])
    await call({ email: 'u1@example.com' })
    expect(await groupsOf(test, await userId())).toEqual(['marketing', 'sales'])
    await call({ groups: ['ops', 'sales'] })
    expect(await groupsOf(test, await userId())).toEqual(['ops', 'sales'])
    await call({ groups: ['ops', 'ops'] })
    expect(await groupsOf(test, await userId())).toEqual(['ops'])
    await call({ groups: [] })
    expect(await groupsOf(test, await userId())).toEqual([])
  })

  it('names every missing group, comma-separated in request order, and writes nothing', async () => {
    test = createTestApp()
    await call({ groups: ['sales'] })
    const before = await snapshotTables(test)
    const response = await call({ groups: ['support', 'sales', 'finance', 'support'] })
    expect(response).toEqual({
      status: 400,
      body: { error: 'Groups with names support, finance not found', code: 'GROUPS_NOT_FOUND' },
    })
    expect(await snapshotTables(test)).toEqual(before)
    expect(
      (await generate(test, { deploymentId: 1, externalId: 'new-user', groups: ['marketing', 'ops', 'x'] })).body.error,
    ).toBe('Groups with names x not found')
    expect(await userRow(test, 'new-user')).toBeUndefined()
  })

  it('resolves group names case-sensitively, as stored', async () => {
    test = createTestApp()
    const response = await call({ groups: ['Sales'] })
    expect(response.body).toEqual({ error: 'Groups with names Sales not found', code: 'GROUPS_NOT_FOUND' })
  })
})

describe(`${ROUTE} securityContext and the session grant`, () => {
  it('saves the security context, keeps it when omitted and replaces it when sent', async () => {
    test = createTestApp()
    await call({ securityContext: { tenantId: 7, tags: ['a'] } })
    expect(JSON.parse((await userRow(test, 'u1'))!.securityContext!)).toEqual({ tenantId: 7, tags: ['a'] })
    await call({})
    await call({ securityContext: { tenantId: 8 } })
    expect((await sessionRows(test)).map((row) => JSON.parse(row.securityContext))).toEqual([
      { tenantId: 7, tags: ['a'] },
      { tenantId: 7, tags: ['a'] },
      { tenantId: 8 },
    ])
  })

  it('records the deployment, user, groups and attribute values at mint time', async () => {
    test = createTestApp()
    await call({ groups: ['sales'], userAttributes: [{ name: 'region', value: 'EU' }] })
    await call({ groups: [], userAttributes: [{ name: 'region', value: null }] })
    const rows = await sessionRows(test)
    expect(
      rows.map((row) => [row.userId, row.deploymentId, JSON.parse(row.groups), JSON.parse(row.userAttributes)]),
    ).toEqual([
      [await userId(), 1, ['sales'], { region: 'EU' }],
      [await userId(), 1, [], {}],
    ])
  })

  it("grants an internal user's own stored access", async () => {
    test = createTestApp()
    const bob = (await userRow(test, 'bob', 'internal'))!.id
    const { groups, groupMemberships } = test.storage.tables
    const ops = (await first(
      test.storage.db
        .select({ id: groups.id })
        .from(groups)
        .where(and(eq(groups.name, 'ops'), isNull(groups.embedTenantId), eq(groups.accountId, 1))),
    ))!
    await test.storage.transaction(async (tx) => {
      await tx.insert(groupMemberships).values({ userId: bob, groupId: ops.id })
    })
    expect((await generate(test, { deploymentId: 1, internalId: 'BOB' })).status).toBe(200)
    expect(
      (await sessionRows(test)).map((row) => [row.userId, JSON.parse(row.groups), JSON.parse(row.securityContext)]),
    ).toEqual([[bob, ['ops'], {}]])
  })
})
