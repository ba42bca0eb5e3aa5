import { afterEach, describe, expect, it } from 'bun:test'
import { createTestApp, type TestApp } from '../../helpers/app'
import {
  attributeCatalog,
  generate,
  groupCatalog,
  groupsOf,
  sessionRows,
  snapshotTables,
  tenantRow,
  userRow,
  valuesOf,
} from './helpers'

let test: TestApp
afterEach(() => test?.close())

const ROUTE = 'POST /api/v1/embed/generate-session (creator mode)'
const TENANT_WIDE_GROUPS = ['-/marketing', '-/ops', '-/sales:Sales team']
const TENANT_WIDE_ATTRIBUTES = [
  '-/beta:boolean',
  '-/codes:number_array',
  '-/level:number',
  '-/region:string',
  '-/regions:string_array',
]

async function creator(body: Record<string, unknown>, externalId = 'u1') {
  return generate(test, { deploymentId: 1, externalId, creatorMode: true, embedTenantName: 'tenant-one', ...body })
}

const userId = async (externalId = 'u1') => (await userRow(test, externalId))!.id

describe(`${ROUTE} preconditions`, () => {
  it('returns 400 for creatorMode without an embedTenantName', async () => {
    test = createTestApp()
    const response = await generate(test, { deploymentId: 1, externalId: 'u1', creatorMode: true })
    expect(response).toEqual({
      status: 400,
      body: { error: 'creatorMode requires embedTenantName', code: 'EMBED_TENANT_REQUIRED' },
    })
    expect(await userRow(test, 'u1')).toBeUndefined()
  })

  it('returns 403 when the tenant does not have useCreatorMode, also for a tenant that would be created', async () => {
    test = createTestApp()
    const before = await snapshotTables(test)
    for (const embedTenantName of ['tenant-two', 'tenant-three']) {
      const response = await creator({ embedTenantName, groupDefinitions: [{ name: 'editors' }] })
      expect(response).toEqual({
        status: 403,
        body: {
          error: `Creator mode is not enabled for embed tenant ${embedTenantName}`,
          code: 'CREATOR_MODE_DISABLED',
        },
      })
    }
    expect(await snapshotTables(test)).toEqual(before)
  })

  it('returns 400 for each definition field and tenantGroups without creatorMode: true', async () => {
    test = createTestApp()
    const fields: Record<string, unknown> = {
      groupDefinitions: [{ name: 'editors' }],
      userAttributeDefinitions: [{ name: 'tier', type: 'string' }],
      tenantGroupDefinitions: [{ name: 'team-a' }],
      tenantGroups: [],
    }
    for (const [field, value] of Object.entries(fields)) {
      for (const creatorMode of [undefined, false]) {
        const response = await generate(test, {
          deploymentId: 1,
          externalId: 'u1',
          embedTenantName: 'tenant-one',
          creatorMode,
          [field]: value,
        })
        expect(response).toEqual({
          status: 400,
          body: { error: `${field} requires creatorMode: true`, code: 'CREATOR_MODE_REQUIRED' },
        })
      }
    }
    expect(await groupCatalog(test)).toEqual(TENANT_WIDE_GROUPS)
    expect(await userRow(test, 'u1')).toBeUndefined()
  })

  it('marks the session as a creator-mode session of the tenant', async () => {
    test = createTestApp()
    await creator({})
    await generate(test, { deploymentId: 1, externalId: 'u1', embedTenantName: 'tenant-one' })
    const tenant = (await tenantRow(test, 'tenant-one'))!.id
    expect((await sessionRows(test)).map((row) => [row.embedTenantId, row.creatorMode])).toEqual([
      [tenant, 1],
      [tenant, 0],
    ])
  })
})

describe(`${ROUTE} definitions`, () => {
  it("upserts definitions into the tenant's scope only, never touching tenant-wide ones of the same name", async () => {
    test = createTestApp()
    const response = await creator({
      groupDefinitions: [{ name: 'sales', description: 'Tenant sales' }, { name: 'editors' }],
      userAttributeDefinitions: [{ name: 'region', type: 'string_array', displayName: 'Regions' }],
      tenantGroupDefinitions: [{ name: 'team-a', description: 'Team A' }],
    })
    expect(response.status).toBe(200)
    expect(await groupCatalog(test)).toEqual([
      ...TENANT_WIDE_GROUPS,
      'tenant-one#team-a:Team A',
      'tenant-one/editors',
      'tenant-one/sales:Tenant sales',
    ])
    expect(await attributeCatalog(test)).toEqual([...TENANT_WIDE_ATTRIBUTES, 'tenant-one/region:string_array:Regions'])
  })

  it('updates descriptions and details when supplied and different, never clearing them', async () => {
    test = createTestApp()
    await creator({
      groupDefinitions: [{ name: 'editors', description: 'Edit things' }],
      userAttributeDefinitions: [
        { name: 'tier', type: 'string', displayName: 'Tier', defaultValue: 'free', description: 'Plan tier' },
      ],
    })
    await creator({
      groupDefinitions: [{ name: 'editors' }],
      userAttributeDefinitions: [{ name: 'tier', type: 'string' }],
    })
    expect(await groupCatalog(test)).toContain('tenant-one/editors:Edit things')
    expect(await attributeCatalog(test)).toContain('tenant-one/tier:string:Tier:free:Plan tier')
    await creator({
      groupDefinitions: [{ name: 'editors', description: 'Edit more' }],
      userAttributeDefinitions: [{ name: 'tier', type: 'string', defaultValue: 'pro' }],
    })
    expect(await groupCatalog(test)).toContain('tenant-one/editors:Edit more')
    expect(await attributeCatalog(test)).toContain('tenant-one/tier:string:Tier:pro:Plan tier')
    // An empty description is no description: the stored one stays.
    await creator({ groupDefinitions: [{ name: 'editors', description: '' }] })
    expect(await groupCatalog(test)).toContain('tenant-one/editors:Edit more')
  })

  it('fails with "cannot change type" and upserts nothing, not even the valid definitions of the call', async () => {
    test = createTestApp()
    await creator({ userAttributeDefinitions: [{ name: 'tier', type: 'string' }] })
    const before = await snapshotTables(test)
    const response = await creator({
      groupDefinitions: [{ name: 'editors' }],
      userAttributeDefinitions: [
        { name: 'plan', type: 'boolean' },
        { name: 'tier', type: 'number' },
      ],
      userAttributes: [{ name: 'plan', value: true }],
    })
    expect(response).toEqual({
      status: 400,
      body: {
        error: 'User attribute "tier": cannot change type from string to number; delete the attribute and recreate it',
        code: 'CANNOT_CHANGE_TYPE',
      },
    })
    expect(await snapshotTables(test)).toEqual(before)
  })

  it('rejects duplicate names in each definition list with 400, upserting nothing', async () => {
    test = createTestApp()
    const before = await snapshotTables(test)
    const cases: Array<[string, unknown[], string]> = [
      [
        'groupDefinitions',
        [{ name: 'a' }, { name: 'b' }, { name: 'a', description: 'x' }],
        'DUPLICATE_GROUP_DEFINITION',
      ],
      ['tenantGroupDefinitions', [{ name: 't' }, { name: 't' }], 'DUPLICATE_GROUP_DEFINITION'],
      [
        'userAttributeDefinitions',
        [
          { name: 'x', type: 'string' },
          { name: 'x', type: 'string' },
        ],
        'DUPLICATE_ATTRIBUTE_DEFINITION',
      ],
    ]
    for (const [field, list, code] of cases) {
      const name = (list[0] as { name: string }).name
      const response = await creator({ groupDefinitions: [{ name: 'ok' }], [field]: list })
      expect(response).toEqual({ status: 400, body: { error: `${field}: duplicate name "${name}"`, code } })
    }
    expect(await snapshotTables(test)).toEqual(before)
  })

  it('applies values and memberships after the definitions of the same call', async () => {
    test = createTestApp()
    const response = await creator({
      groupDefinitions: [{ name: 'editors' }],
      userAttributeDefinitions: [
        { name: 'tier', type: 'string' },
        { name: 'seats', type: 'number' },
      ],
      groups: ['editors'],
      userAttributes: [
        { name: 'tier', value: 'gold' },
        { name: 'seats', value: 5 },
      ],
    })
    expect(response.status).toBe(200)
    expect(await groupsOf(test, await userId())).toEqual(['tenant-one/editors'])
    expect(await valuesOf(test, await userId())).toEqual({ 'tenant-one/seats': 5, 'tenant-one/tier': 'gold' })
  })

  it('is idempotent: the same request twice leaves the same state, memberships and values re-applied', async () => {
    test = createTestApp()
    const body = {
      groupDefinitions: [{ name: 'editors', description: 'Editors' }],
      userAttributeDefinitions: [{ name: 'tier', type: 'string' }],
      tenantGroupDefinitions: [{ name: 'team-a' }],
      groups: ['editors'],
      tenantGroups: ['team-a'],
      userAttributes: [{ name: 'tier', value: 'gold' }],
    }
    await creator(body)
    const first = await snapshotTables(test)
    await creator({ groups: [], tenantGroups: [], userAttributes: [{ name: 'tier', value: null }] })
    expect(await groupsOf(test, await userId())).toEqual([])
    await creator(body)
    const second = await snapshotTables(test)
    for (const table of ['groups', 'user_attribute_definitions', 'group_memberships', 'user_attribute_values'])
      expect({ table, rows: second[table] }).toEqual({ table, rows: first[table] })
  })
})

describe(`${ROUTE} default values`, () => {
  const grantedAttributes = async () => JSON.parse((await sessionRows(test)).at(-1)!.userAttributes) as unknown

  it("gives a user without a value the definition's default, read by its type, and a user's value before it", async () => {
    test = createTestApp()
    const defined = await creator({
      userAttributeDefinitions: [
        { name: 'region', type: 'string', defaultValue: 'Asia' },
        { name: 'seats', type: 'number', defaultValue: '5' },
        { name: 'trial', type: 'boolean', defaultValue: 'true' },
        { name: 'codes', type: 'number_array', defaultValue: '[1,2]' },
      ],
    })
    expect(defined.status).toBe(200)
    expect(await grantedAttributes()).toEqual({ region: 'Asia', seats: 5, trial: true, codes: [1, 2] })
    // The user's own value of the tenant's attribute wins over its default.
    await creator({ userAttributes: [{ name: 'seats', value: 9 }] })
    expect(await grantedAttributes()).toEqual({ region: 'Asia', seats: 9, trial: true, codes: [1, 2] })
    // So does a tenant-wide value of the same name, which u2 has.
    await generate(test, { deploymentId: 1, externalId: 'u2', userAttributes: [{ name: 'region', value: 'Europe' }] })
    await creator({}, 'u2')
    expect(await grantedAttributes()).toEqual({ region: 'Europe', seats: 5, trial: true, codes: [1, 2] })
    // Outside the tenant its defaults do not apply.
    await generate(test, { deploymentId: 1, externalId: 'u1' })
    expect(await grantedAttributes()).toEqual({})
  })

  it("keeps a session's queries to the default region of its tenant", async () => {
    test = createTestApp()
    const minted = await creator({
      userAttributeDefinitions: [{ name: 'region', type: 'string', defaultValue: 'Asia' }],
    })
    const exchanged = await test.request('POST', '/api/v1/embed/session/token', {
      body: { sessionId: minted.body.sessionId },
    })
    const { token } = (await exchanged.json()) as { token: string }
    const response = await test.request('POST', '/api/v1/deployments/1/sql', {
      headers: { authorization: `Embed-Token ${token}` },
      body: { query: 'SELECT customers.region, MEASURE(orders.count) FROM orders GROUP BY 1' },
    })
    const body = (await response.json()) as { data: string[][] }
    expect(response.status).toBe(200)
    expect(body.data.map((row) => row[0])).toEqual(['Asia'])
  })

  it('returns 400 for a default that is not a value of its type, upserting nothing', async () => {
    test = createTestApp()
    const before = await snapshotTables(test)
    const cases: Array<[string, string, string]> = [
      ['number', 'many', 'a number such as 42 or 2.5'],
      ['boolean', 'yes', 'true or false'],
      ['string_array', '["a",1]', 'a list such as a,b or a JSON array of strings such as ["a","b"]'],
      ['number_array', '1,two', 'a list such as 1,2 or a JSON array of numbers such as [1,2]'],
    ]
    for (const [type, defaultValue, form] of cases) {
      const response = await creator({
        groupDefinitions: [{ name: 'editors' }],
        userAttributeDefinitions: [
          { name: 'ok', type: 'string', defaultValue: 'fine' },
          { name: 'bad', type, defaultValue },
        ],
      })
      expect(response).toEqual({
        status: 400,
        body: {
          error: `userAttributeDefinitions[1].defaultValue: ${JSON.stringify(defaultValue)} is not a default of type ${type}: write ${form}`,
          code: 'INVALID_DEFAULT_VALUE',
        },
      })
    }
    expect(await snapshotTables(test)).toEqual(before)
  })

  it('reads a list default written without brackets, one item as a list of one, and empty text as no default', async () => {
    test = createTestApp()
    const defined = await creator({
      userAttributeDefinitions: [
        { name: 'regions', type: 'string_array', defaultValue: 'Asia, Europe' },
        { name: 'teams', type: 'string_array', defaultValue: 'Sales' },
        { name: 'codes', type: 'number_array', defaultValue: '1, 2.5' },
        { name: 'seats', type: 'number', defaultValue: '' },
        { name: 'trial', type: 'boolean', defaultValue: ' TRUE ' },
      ],
    })
    expect(defined.status).toBe(200)
    expect(await grantedAttributes()).toEqual({
      regions: ['Asia', 'Europe'],
      teams: ['Sales'],
      codes: [1, 2.5],
      trial: true,
    })
  })
})

describe(`${ROUTE} name resolution`, () => {
  it("resolves groups and attributes only against the tenant's scoped catalog", async () => {
    test = createTestApp()
    await creator({ groupDefinitions: [{ name: 'editors' }] })
    const before = await snapshotTables(test)
    expect(await creator({ groups: ['editors', 'marketing'] })).toEqual({
      status: 400,
      body: { error: 'Groups with names marketing not found', code: 'GROUPS_NOT_FOUND' },
    })
    expect(await creator({ userAttributes: [{ name: 'region', value: 'EU' }] })).toEqual({
      status: 400,
      body: { error: 'User attributes not found', code: 'USER_ATTRIBUTES_NOT_FOUND' },
    })
    expect(await snapshotTables(test)).toEqual(before)
  })

  it('resolves against the tenant-wide catalog without creator mode, even with an embedTenantName', async () => {
    test = createTestApp()
    await creator({
      groupDefinitions: [{ name: 'editors' }],
      userAttributeDefinitions: [{ name: 'tier', type: 'string' }],
    })
    const plain = { deploymentId: 1, externalId: 'u1', embedTenantName: 'tenant-one' }
    expect((await generate(test, { ...plain, groups: ['editors'] })).body.error).toBe(
      'Groups with names editors not found',
    )
    expect((await generate(test, { ...plain, userAttributes: [{ name: 'tier', value: 'x' }] })).body.error).toBe(
      'User attributes not found',
    )
  })

  it('replaces memberships only within the scope of the call', async () => {
    test = createTestApp()
    await generate(test, {
      deploymentId: 1,
      externalId: 'u1',
      groups: ['sales'],
      userAttributes: [{ name: 'region', value: 'EU' }],
    })
    await creator({
      groupDefinitions: [{ name: 'editors' }, { name: 'viewers' }],
      tenantGroupDefinitions: [{ name: 'team-a' }],
    })
    await creator({ groups: ['editors', 'viewers'], tenantGroups: ['team-a'] })
    expect(await groupsOf(test, await userId())).toEqual([
      'sales',
      'tenant-one#team-a',
      'tenant-one/editors',
      'tenant-one/viewers',
    ])
    await creator({ groups: ['viewers'] })
    expect(await groupsOf(test, await userId())).toEqual(['sales', 'tenant-one#team-a', 'tenant-one/viewers'])
    await generate(test, { deploymentId: 1, externalId: 'u1', groups: [] })
    expect(await groupsOf(test, await userId())).toEqual(['tenant-one#team-a', 'tenant-one/viewers'])
    await creator({ tenantGroups: [] })
    expect(await groupsOf(test, await userId())).toEqual(['tenant-one/viewers'])
    expect(await valuesOf(test, await userId())).toEqual({ region: 'EU' })
  })

  it('resolves tenantGroups in their own namespace, naming missing ones like groups', async () => {
    test = createTestApp()
    await creator({ groupDefinitions: [{ name: 'editors' }], tenantGroupDefinitions: [{ name: 'team-a' }] })
    expect(await creator({ tenantGroups: ['team-a', 'editors', 'team-b'] })).toEqual({
      status: 400,
      body: { error: 'Groups with names editors, team-b not found', code: 'GROUPS_NOT_FOUND' },
    })
    expect(await groupsOf(test, await userId())).toEqual([])
  })

  it("grants the tenant-wide access plus the tenant's scoped groups and values in the session", async () => {
    test = createTestApp()
    await generate(test, {
      deploymentId: 1,
      externalId: 'u1',
      groups: ['sales'],
      userAttributes: [{ name: 'region', value: 'EU' }],
    })
    await creator({
      groupDefinitions: [{ name: 'editors' }],
      userAttributeDefinitions: [
        { name: 'region', type: 'string' },
        { name: 'tier', type: 'string' },
      ],
      groups: ['editors'],
      userAttributes: [
        { name: 'region', value: 'EU-WEST' },
        { name: 'tier', value: 'gold' },
      ],
    })
    await generate(test, { deploymentId: 1, externalId: 'u1' })
    const grants = (await sessionRows(test)).map((row) => [JSON.parse(row.groups), JSON.parse(row.userAttributes)])
    expect(grants[1]).toEqual([['editors', 'sales'], { region: 'EU-WEST', tier: 'gold' }])
    // A session outside the tenant never sees the tenant's scoped access.
    expect(grants[2]).toEqual([['sales'], { region: 'EU' }])
  })
})
