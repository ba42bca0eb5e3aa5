import { afterEach, describe, expect, it } from 'bun:test'
import { eq } from 'drizzle-orm'
import { first } from '../../../db/client'
import { apiKey, createTestApp, type TestApp } from '../../helpers/app'
import { keys, testBootstrap } from '../../helpers/fixtures'
import { countRows, generate, sessionRows, snapshotTables, storedAttributeValues, tenantRow, userRow } from './helpers'

let test: TestApp
afterEach(() => test?.close())

const ROUTE = 'POST /api/v1/embed/generate-session'

describe(`${ROUTE} access`, () => {
  it('returns 401 without credentials and writes nothing', async () => {
    test = createTestApp()
    const response = await generate(test, { deploymentId: 1, externalId: 'u1' }, {})
    expect(response).toEqual({ status: 401, body: { error: expect.any(String), code: 'MISSING_CREDENTIALS' } })
    expect(await userRow(test, 'u1')).toBeUndefined()
  })

  it('returns 403 for a key without admin access', async () => {
    test = createTestApp()
    const response = await generate(test, { deploymentId: 1, externalId: 'u1' }, apiKey(keys.member))
    expect(response).toEqual({
      status: 403,
      body: { error: 'This operation requires an admin API key', code: 'ADMIN_REQUIRED' },
    })
    expect(await userRow(test, 'u1')).toBeUndefined()
  })

  it('returns 403 when the deployment is outside the key scope, and 200 inside it', async () => {
    test = createTestApp()
    const outside = await generate(test, { deploymentId: 1, externalId: 'u1' }, apiKey(keys.scoped))
    expect(outside).toEqual({
      status: 403,
      body: { error: 'API key is not allowed to access deployment 1', code: 'DEPLOYMENT_OUT_OF_SCOPE' },
    })
    expect(await userRow(test, 'u1')).toBeUndefined()
    // Outside the scope is 403 whether the deployment exists elsewhere (3, another account's) or not at all (99).
    for (const deploymentId of [3, 99])
      expect(await generate(test, { deploymentId, externalId: 'u1' }, apiKey(keys.scoped))).toEqual({
        status: 403,
        body: { error: `API key is not allowed to access deployment ${deploymentId}`, code: 'DEPLOYMENT_OUT_OF_SCOPE' },
      })
    const inside = await generate(test, { deploymentId: 2, externalId: 'u1' }, apiKey(keys.scoped))
    expect(inside.status).toBe(200)
    expect((await sessionRows(test)).map((row) => row.deploymentId)).toEqual([2])
  })

  it("returns 404 for an unknown deployment and for another account's", async () => {
    test = createTestApp()
    for (const deploymentId of [3, 99]) {
      const response = await generate(test, { deploymentId, externalId: 'u1' })
      expect(response).toEqual({
        status: 404,
        body: { error: `Deployment ${deploymentId} not found`, code: 'DEPLOYMENT_NOT_FOUND' },
      })
    }
    expect(await countRows(test, 'embed_sessions')).toBe(0)
  })

  it('returns 403 on plans without embedding (starter)', async () => {
    test = createTestApp()
    const response = await generate(test, { deploymentId: 4, externalId: 'u1' }, apiKey(keys.starterAdmin))
    expect(response).toEqual({
      status: 403,
      body: {
        error: 'Embed sessions are available on the premium and enterprise plans only',
        code: 'PLAN_NOT_ELIGIBLE',
      },
    })
    expect(await userRow(test, 'u1', 'external', 'starter')).toBeUndefined()
  })

  it('serves premium accounts', async () => {
    const bootstrap = testBootstrap()
    bootstrap.accounts[1].plan = 'premium'
    test = createTestApp({ bootstrap })
    const response = await generate(test, { deploymentId: 4, externalId: 'u1' }, apiKey(keys.starterAdmin))
    expect(response.status).toBe(200)
    expect(await userRow(test, 'u1', 'external', 'starter')).toBeDefined()
  })
})

describe(`${ROUTE} body`, () => {
  it('answers 200 with a sessionId of at least 128 random bits, stored only as its SHA-256', async () => {
    test = createTestApp()
    const response = await generate(test, { deploymentId: 1, externalId: 'u1' })
    expect(response.status).toBe(200)
    const sessionId = response.body.sessionId as string
    expect(Object.keys(response.body)).toEqual(['sessionId'])
    expect(Buffer.from(sessionId.replace(/^es_/, ''), 'base64url').length).toBeGreaterThanOrEqual(16)
    const [row] = await sessionRows(test)
    expect(row.secretHash).toBe(new Bun.CryptoHasher('sha256').update(sessionId).digest('hex'))
    expect(JSON.stringify(await snapshotTables(test))).not.toContain(sessionId)
  })

  it('rejects ephemeralTtlSeconds with a 400 saying it was removed in v0.2.0', async () => {
    test = createTestApp()
    const response = await generate(test, { deploymentId: 1, externalId: 'u1', ephemeralTtlSeconds: 600 })
    expect(response).toEqual({
      status: 400,
      body: { error: 'ephemeralTtlSeconds was removed in release v0.2.0', code: 'FIELD_REMOVED' },
    })
    expect(await userRow(test, 'u1')).toBeUndefined()
  })

  it('rejects unknown fields, nested ones included, naming them', async () => {
    test = createTestApp()
    const top = await generate(test, {
      deploymentId: 1,
      externalId: 'u1',
      userAtributes: [{ name: 'region', value: 'EU' }],
    })
    expect(top).toEqual({ status: 400, body: { error: 'userAtributes: unknown field', code: 'UNKNOWN_FIELD' } })
    const nested = await generate(test, {
      deploymentId: 1,
      externalId: 'u1',
      userAttributes: [{ name: 'region', value: 'EU', scope: 1 }],
    })
    expect(nested).toEqual({
      status: 400,
      body: { error: 'userAttributes[0].scope: unknown field', code: 'UNKNOWN_FIELD' },
    })
    expect(await userRow(test, 'u1')).toBeUndefined()
  })

  it('returns 400 naming the field for schema errors', async () => {
    test = createTestApp()
    const missing = await generate(test, { externalId: 'u1' })
    expect(missing).toEqual({ status: 400, body: { error: 'deploymentId: required', code: 'VALIDATION_FAILED' } })
    const wrong = await generate(test, { deploymentId: 1, externalId: 'u1', groups: 'sales' })
    expect(wrong.status).toBe(400)
    expect(wrong.body.error).toStartWith('groups:')
    // Not an object where one belongs: refused as sent, never reshaped into one (a string into its characters).
    for (const securityContext of ['str', 5, true, [1, 2], '{"a":1}'])
      expect(await generate(test, { deploymentId: 1, externalId: 'u1', securityContext })).toEqual({
        status: 400,
        body: { error: 'securityContext: expected object', code: 'VALIDATION_FAILED' },
      })
    const profile = await generate(test, { deploymentId: 1, externalId: 'u1', userProfile: 'Ann' })
    expect(profile.status).toBe(400)
    expect(profile.body).toMatchObject({ error: expect.stringMatching(/^userProfile: /), code: 'VALIDATION_FAILED' })
    expect(await userRow(test, 'u1')).toBeUndefined()
    const malformed = await test.request('POST', '/api/v1/embed/generate-session', {
      headers: { authorization: `Api-Key ${keys.admin}` },
      body: '{"deploymentId":',
    })
    expect(malformed.status).toBe(400)
    expect(await malformed.json()).toEqual({
      error: 'Malformed request body: expected valid JSON',
      code: 'MALFORMED_JSON',
    })
  })
})

describe(`${ROUTE} identity`, () => {
  it('returns 400 for an externalId that is not lowercase and trimmed, and never merges it into another user', async () => {
    test = createTestApp()
    expect(
      (
        await generate(test, {
          deploymentId: 1,
          externalId: 'customer-42',
          userAttributes: [{ name: 'region', value: 'EU' }],
        })
      ).status,
    ).toBe(200)
    for (const externalId of ['Customer-42', 'CUSTOMER-42', ' customer-42', 'customer-42 ', '\tcustomer-42']) {
      const response = await generate(test, {
        deploymentId: 1,
        externalId,
        userAttributes: [{ name: 'region', value: 'US' }],
      })
      expect({ externalId, ...response }).toEqual({
        externalId,
        status: 400,
        body: { error: 'externalId must be lowercase and trimmed', code: 'INVALID_EXTERNAL_ID' },
      })
    }
    const { users } = test.storage.tables
    expect(
      await test.storage.db.select({ identity: users.identity }).from(users).where(eq(users.kind, 'external')),
    ).toEqual([{ identity: 'customer-42' }])
    expect(await sessionRows(test)).toHaveLength(1)
    expect(await storedAttributeValues(test)).toEqual([{ value: '"EU"' }])
  })

  it('requires exactly one of externalId and internalId', async () => {
    test = createTestApp()
    expect(await generate(test, { deploymentId: 1 })).toEqual({
      status: 400,
      body: { error: 'externalId or internalId is required', code: 'IDENTITY_REQUIRED' },
    })
    expect(await generate(test, { deploymentId: 1, externalId: 'u1', internalId: 'bob' })).toEqual({
      status: 400,
      body: { error: 'Send either externalId or internalId, not both', code: 'IDENTITY_CONFLICT' },
    })
    expect(await generate(test, { deploymentId: 1, externalId: '   ' })).toEqual({
      status: 400,
      body: { error: 'externalId must not be blank', code: 'BLANK_IDENTITY' },
    })
    expect(await countRows(test, 'embed_sessions')).toBe(0)
  })

  it('mints a session for an existing internal user matched lowercased and trimmed', async () => {
    test = createTestApp()
    const response = await generate(test, { deploymentId: 1, internalId: '  alice@ACME.com ' })
    expect(response.status).toBe(200)
    expect((await sessionRows(test)).map((row) => row.userId)).toEqual([
      (await userRow(test, 'alice@acme.com', 'internal'))!.id,
    ])
    expect(await countRows(test, 'users', eq(test.storage.tables.users.kind, 'external'))).toBe(0)
  })

  it("returns 400 for an unknown internal user and for an external user's id given as internalId", async () => {
    test = createTestApp()
    await generate(test, { deploymentId: 1, externalId: 'carol' })
    for (const internalId of ['nobody', 'Carol']) {
      const response = await generate(test, { deploymentId: 1, internalId })
      expect(response).toEqual({
        status: 400,
        body: { error: `Internal user ${internalId.toLowerCase()} not found`, code: 'INTERNAL_USER_NOT_FOUND' },
      })
    }
    expect(await countRows(test, 'embed_sessions')).toBe(1)
  })

  it('rejects every provisioning field with internalId, naming it, and writes nothing', async () => {
    test = createTestApp()
    const fields: Record<string, unknown> = {
      email: 'bob@acme.com',
      userProfile: { displayName: 'Bob' },
      groups: [],
      userAttributes: [],
      securityContext: {},
      groupDefinitions: [],
      userAttributeDefinitions: [],
      tenantGroups: [],
      tenantGroupDefinitions: [],
    }
    const before = await snapshotTables(test)
    for (const [field, value] of Object.entries(fields)) {
      const response = await generate(test, {
        deploymentId: 1,
        internalId: 'bob',
        creatorMode: true,
        embedTenantName: 'tenant-one',
        [field]: value,
      })
      expect(response).toEqual({
        status: 400,
        body: { error: `${field} is not allowed with internalId`, code: 'NOT_ALLOWED_WITH_INTERNAL_ID' },
      })
    }
    expect(await snapshotTables(test)).toEqual(before)
  })
})

describe(`${ROUTE} user profile and email`, () => {
  it('saves email and userProfile; omitted fields and properties keep the saved values', async () => {
    test = createTestApp()
    await generate(test, {
      deploymentId: 1,
      externalId: 'u1',
      email: 'u1@example.com',
      userProfile: { displayName: 'Ursula', picture: 'https://cdn.example.com/u1.png' },
    })
    expect(await userRow(test, 'u1')).toMatchObject({
      email: 'u1@example.com',
      displayName: 'Ursula',
      picture: 'https://cdn.example.com/u1.png',
    })
    await generate(test, { deploymentId: 1, externalId: 'u1', userProfile: { displayName: 'Ursula K.' } })
    expect(await userRow(test, 'u1')).toMatchObject({
      email: 'u1@example.com',
      displayName: 'Ursula K.',
      picture: 'https://cdn.example.com/u1.png',
    })
    await generate(test, {
      deploymentId: 1,
      externalId: 'u1',
      userProfile: { picture: 'http://cdn.example.com/new.svg' },
    })
    expect(await userRow(test, 'u1')).toMatchObject({
      displayName: 'Ursula K.',
      picture: 'http://cdn.example.com/new.svg',
    })
    await generate(test, { deploymentId: 1, externalId: 'u1', email: 'new@example.com' })
    expect(await userRow(test, 'u1')).toMatchObject({
      email: 'new@example.com',
      displayName: 'Ursula K.',
      picture: 'http://cdn.example.com/new.svg',
    })
  })

  it('returns 400 for an email that is not an address and keeps the saved one; an empty one clears it', async () => {
    test = createTestApp()
    await generate(test, { deploymentId: 1, externalId: 'u1', email: 'u1@example.com' })
    for (const email of ['not-an-email', 'u1@', '@example.com', 'u 1@example.com', 'u1@example.com, u2@example.com']) {
      expect(await generate(test, { deploymentId: 1, externalId: 'u1', email })).toEqual({
        status: 400,
        body: { error: 'email must be an email address, such as name@example.com', code: 'INVALID_EMAIL' },
      })
    }
    expect(await generate(test, { deploymentId: 1, externalId: 'u2', email: 'nobody' })).toMatchObject({ status: 400 })
    expect(await userRow(test, 'u2')).toBeUndefined()
    expect((await userRow(test, 'u1'))?.email).toBe('u1@example.com')
    expect((await generate(test, { deploymentId: 1, externalId: 'u1', email: ' u1@example.org ' })).status).toBe(200)
    expect((await userRow(test, 'u1'))?.email).toBe('u1@example.org')
    expect((await generate(test, { deploymentId: 1, externalId: 'u1', email: '' })).status).toBe(200)
    expect((await userRow(test, 'u1'))?.email).toBeNull()
  })

  it('returns 400 for a picture that is not an absolute http(s) URL and keeps the saved one', async () => {
    test = createTestApp()
    await generate(test, {
      deploymentId: 1,
      externalId: 'u1',
      userProfile: { picture: 'https://cdn.example.com/a.png' },
    })
    for (const picture of [
      'ftp://cdn.example.com/a.png',
      'cdn.example.com/a.png',
      '/a.png',
      'javascript:alert(1)',
      'data:image/png;base64,AAAA',
      '',
      // Forms the URL parser repairs, but a browser on the embedding page may read as a path of its own host.
      'https:cdn.example.com/a.png',
      'https:///a.png',
      ' https://cdn.example.com/a.png',
      'http:\\\\cdn.example.com\\a.png',
      'https://cdn.example.com/a b.png',
      // Control characters, which no URL holds: the parser would percent-encode them (or drop tabs) unasked.
      'https://cdn.example.com/a\u0001.png',
      'https://cdn.example.com/a.png\u007f',
      'https://cdn.ex\u0085ample.com/a.png',
    ]) {
      const response = await generate(test, {
        deploymentId: 1,
        externalId: 'u1',
        userProfile: { displayName: 'X', picture },
      })
      expect(response).toEqual({
        status: 400,
        body: { error: 'userProfile.picture must be an absolute http:// or https:// URL', code: 'INVALID_PICTURE_URL' },
      })
    }
    expect(await userRow(test, 'u1')).toMatchObject({ displayName: null, picture: 'https://cdn.example.com/a.png' })
  })

  it('accepts a picture URL whose host does not resolve: it is never fetched', async () => {
    test = createTestApp()
    const picture = 'https://unresolvable.invalid/avatar.webp'
    expect((await generate(test, { deploymentId: 1, externalId: 'u1', userProfile: { picture } })).status).toBe(200)
    expect((await userRow(test, 'u1'))?.picture).toBe(picture)
  })
})

describe(`${ROUTE} embed tenant and settings`, () => {
  it('scopes the session to the named tenant, and to the account-wide tenant when omitted', async () => {
    test = createTestApp()
    await generate(test, { deploymentId: 1, externalId: 'u1' })
    await generate(test, { deploymentId: 1, externalId: 'u1', embedTenantName: 'tenant-two' })
    expect((await sessionRows(test)).map((row) => row.embedTenantId)).toEqual([
      null,
      (await tenantRow(test, 'tenant-two'))!.id,
    ])
  })

  it('creates an unknown embed tenant, without creator mode', async () => {
    test = createTestApp()
    expect(
      (await generate(test, { deploymentId: 1, externalId: 'u1', embedTenantName: 'new-customer-7' })).status,
    ).toBe(200)
    expect(await tenantRow(test, 'new-customer-7')).toMatchObject({ useCreatorMode: 0, displayName: null })
  })

  it('returns 400 for embedTenantName breaking its pattern or length', async () => {
    test = createTestApp()
    const bad = ['abcd', 'a'.repeat(37), 'Tenant-one', '1tenant', 'tenant-', 'ten_ant', 'tenant one']
    for (const embedTenantName of bad) {
      const response = await generate(test, { deploymentId: 1, externalId: 'u1', embedTenantName })
      expect(response.status).toBe(400)
      expect(response.body).toEqual({ error: expect.stringMatching(/^embedTenantName: /), code: 'VALIDATION_FAILED' })
    }
    for (const embedTenantName of ['abcde', `a${'b'.repeat(34)}9`]) {
      expect((await generate(test, { deploymentId: 1, externalId: 'u1', embedTenantName })).status).toBe(200)
    }
    expect(await countRows(test, 'embed_tenants')).toBe(4)
  })

  it('saves embedTenantProfile.displayName on the tenant, and needs an embedTenantName for it', async () => {
    test = createTestApp()
    await generate(test, {
      deploymentId: 1,
      externalId: 'u1',
      embedTenantName: 'tenant-two',
      embedTenantProfile: { displayName: 'Tenant Two Inc.' },
    })
    expect((await tenantRow(test, 'tenant-two'))?.displayName).toBe('Tenant Two Inc.')
    await generate(test, { deploymentId: 1, externalId: 'u1', embedTenantName: 'tenant-two' })
    expect((await tenantRow(test, 'tenant-two'))?.displayName).toBe('Tenant Two Inc.')
    const response = await generate(test, {
      deploymentId: 1,
      externalId: 'u2',
      embedTenantProfile: { displayName: 'X' },
    })
    expect(response).toEqual({
      status: 400,
      body: { error: 'embedTenantProfile requires embedTenantName', code: 'EMBED_TENANT_REQUIRED' },
    })
    expect(await userRow(test, 'u2')).toBeUndefined()
  })

  it('stores settings.showDashboardChat as sent: omitted, false or true', async () => {
    test = createTestApp()
    await generate(test, { deploymentId: 1, externalId: 'u1' })
    await generate(test, { deploymentId: 1, externalId: 'u1', settings: { showDashboardChat: false } })
    await generate(test, { deploymentId: 1, externalId: 'u1', settings: { showDashboardChat: true } })
    await generate(test, { deploymentId: 1, externalId: 'u1', settings: {} })
    expect((await sessionRows(test)).map((row) => JSON.parse(row.settings))).toEqual([
      {},
      { showDashboardChat: false },
      { showDashboardChat: true },
      {},
    ])
  })
})

describe(`${ROUTE} external-user limit`, () => {
  function limited(max: number) {
    const bootstrap = testBootstrap()
    bootstrap.accounts[0].maxExternalUsers = max
    return createTestApp({ bootstrap })
  }

  it('returns 403 for a new external user once the limit is reached, and writes nothing', async () => {
    test = limited(2)
    await generate(test, { deploymentId: 1, externalId: 'u1' })
    await generate(test, { deploymentId: 1, externalId: 'u2' })
    const before = await snapshotTables(test)
    const response = await generate(test, {
      deploymentId: 1,
      externalId: 'u3',
      embedTenantName: 'brand-new-tenant',
      groups: ['sales'],
    })
    expect(response).toEqual({
      status: 403,
      body: {
        error: 'External user limit reached: the account may have at most 2 external users',
        code: 'EXTERNAL_USER_LIMIT',
      },
    })
    expect(await snapshotTables(test)).toEqual(before)
    expect(await tenantRow(test, 'brand-new-tenant')).toBeUndefined()
  })

  it('still updates existing external users and serves internal users at the limit', async () => {
    test = limited(1)
    await generate(test, { deploymentId: 1, externalId: 'u1' })
    const update = await generate(test, { deploymentId: 1, externalId: 'u1', email: 'u1@example.com' })
    expect(update.status).toBe(200)
    expect((await userRow(test, 'u1'))?.email).toBe('u1@example.com')
    expect((await generate(test, { deploymentId: 1, internalId: 'bob' })).status).toBe(200)
  })

  it('defaults to 10,000 external users per account', async () => {
    test = createTestApp()
    const { accounts } = test.storage.tables
    expect(
      await first(
        test.storage.db.select({ max: accounts.maxExternalUsers }).from(accounts).where(eq(accounts.name, 'acme')),
      ),
    ).toEqual({ max: 10000 })
  })
})
