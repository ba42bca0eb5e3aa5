import { afterEach, describe, expect, it } from 'bun:test'
import { Elysia } from 'elysia'
import { authPlugin } from '../../../plugins/auth'
import { corePlugin } from '../../../plugins/core'
import { apiKey, createTestApp, type TestApp } from '../../helpers/app'
import { keys, tokenSecrets } from '../../helpers/fixtures'
import { serviceToken } from '../../helpers/tokens'

/** A probe app with one route per auth macro, over the real core and auth plugins. */
function probe(test: TestApp) {
  const app = new Elysia()
    .use(corePlugin(test.deps))
    .use(authPlugin(test.deps))
    .get('/probe/key', ({ caller }) => ({ kind: caller.kind, admin: caller.admin }), { apiKey: true })
    .get('/probe/admin', ({ caller }) => ({ kind: caller.kind }), { adminKey: true })
    .get(
      '/probe/deployments/:deploymentId',
      ({ caller, deployment }) => ({ kind: caller.kind, deployment: deployment.id }),
      {
        managementAccess: true,
      },
    )
    .get('/probe/chat/:accountName/:agentId', ({ caller, agent }) => ({ kind: caller.kind, agent: agent.id, caller }), {
      chatAccess: true,
    })
  return async (path: string, headers: Record<string, string> = {}) => {
    const response = await app.handle(new Request(`http://localhost${path}`, { headers }))
    return { status: response.status, body: (await response.json()) as Record<string, unknown> }
  }
}

let test: TestApp
afterEach(() => test?.close())

describe('authPlugin', () => {
  it('returns 401 with { error, code } when no credential is sent', async () => {
    test = createTestApp()
    const get = probe(test)
    const response = await get('/probe/key')
    expect(response.status).toBe(401)
    expect(response.body).toEqual({ error: expect.any(String), code: 'MISSING_CREDENTIALS' })
  })

  it('returns 401 MALFORMED_CREDENTIAL for a malformed Authorization header', async () => {
    test = createTestApp()
    const get = probe(test)
    for (const value of ['Bearer abc', 'Api-Key', 'Api-Key two words', 'Basic Zm9vOmJhcg==']) {
      const response = await get('/probe/key', { authorization: value })
      expect(response.status).toBe(401)
      expect(response.body.code).toBe('MALFORMED_CREDENTIAL')
    }
  })

  it('returns 401 for an unknown key and for a revoked key, with the same message', async () => {
    test = createTestApp()
    const get = probe(test)
    const unknown = await get('/probe/key', apiKey('ak_test_unknown_0123456789'))
    const revoked = await get('/probe/key', apiKey(keys.revoked))
    expect(unknown).toEqual({ status: 401, body: { error: 'Invalid or revoked API key', code: 'INVALID_API_KEY' } })
    expect(revoked).toEqual(unknown)
  })

  it('accepts a valid key and tells admin keys apart', async () => {
    test = createTestApp()
    const get = probe(test)
    expect(await get('/probe/key', apiKey(keys.member))).toEqual({
      status: 200,
      body: { kind: 'apiKey', admin: false },
    })
    expect(await get('/probe/key', { authorization: `api-key ${keys.admin}` })).toEqual({
      status: 200,
      body: { kind: 'apiKey', admin: true },
    })
  })

  it('returns 403 for a non-admin key on an admin route', async () => {
    test = createTestApp()
    const get = probe(test)
    const response = await get('/probe/admin', apiKey(keys.member))
    expect(response).toEqual({
      status: 403,
      body: { error: 'This operation requires an admin API key', code: 'ADMIN_REQUIRED' },
    })
    expect((await get('/probe/admin', apiKey(keys.admin))).status).toBe(200)
  })

  it('returns 403 when a scoped key acts outside its deployments', async () => {
    test = createTestApp()
    const get = probe(test)
    const outside = await get('/probe/deployments/1', apiKey(keys.scoped))
    expect(outside.status).toBe(403)
    expect(outside.body.code).toBe('DEPLOYMENT_OUT_OF_SCOPE')
    expect(await get('/probe/deployments/2', apiKey(keys.scoped))).toEqual({
      status: 200,
      body: { kind: 'apiKey', deployment: 2 },
    })
    expect((await get('/probe/deployments/1', apiKey(keys.admin))).status).toBe(200)
  })

  it("returns 404 for another account's deployment", async () => {
    test = createTestApp()
    const get = probe(test)
    const response = await get('/probe/deployments/3', apiKey(keys.admin))
    expect(response.status).toBe(404)
    expect(response.body.code).toBe('DEPLOYMENT_NOT_FOUND')
  })

  it('returns 400 naming deploymentId for a path id that is not a plain positive integer, on every deployment route', async () => {
    test = createTestApp()
    const get = probe(test)
    for (const id of ['abc', '0x1', '1e0', '%201', '01', '1.0', '0', '-1', '99999999999999999999']) {
      const response = await get(`/probe/deployments/${id}`, apiKey(keys.admin))
      expect(response.status).toBe(400)
      expect(response.body).toEqual({
        error: 'path deploymentId: expected an integer of at least 1',
        code: 'VALIDATION_FAILED',
      })
    }
    expect((await get('/probe/deployments/1', apiKey(keys.admin))).status).toBe(200)
    // The deployment routes of API keys and embed tokens alike.
    for (const path of ['/api/v1/deployments/abc/meta', '/api/v1/deployments/0x1/folders'])
      expect((await test.request('GET', path, { headers: apiKey(keys.admin) })).status).toBe(400)
    // Credentials come first: without them, 401.
    expect((await get('/probe/deployments/abc')).status).toBe(401)
  })

  it('refuses service tokens and embed tokens on API-key routes', async () => {
    test = createTestApp()
    const get = probe(test)
    const token = await serviceToken(tokenSecrets.deployment2, { sub: 'u1', scope: ['chat'] })
    expect((await get('/probe/key', { 'x-service-auth-token': token })).status).toBe(403)
    expect((await get('/probe/key', { authorization: 'Embed-Token not-a-token' })).status).toBe(401)
  })
})

describe('authPlugin chat access', () => {
  const chat2 = '/probe/chat/acme/2'

  it('accepts a service token with scope chat and takes the user from externalId, else sub', async () => {
    test = createTestApp()
    const get = probe(test)
    const withExternalId = await serviceToken(tokenSecrets.deployment2, {
      sub: 'subject',
      externalId: 'user-7',
      scope: ['chat'],
    })
    const response = await get(chat2, { 'x-service-auth-token': withExternalId })
    expect(response.status).toBe(200)
    expect(response.body.caller).toMatchObject({ kind: 'serviceToken', deploymentId: 2, externalId: 'user-7' })
    const withSub = await serviceToken(tokenSecrets.deployment2, { sub: 'subject-1', scope: ['chat', 'other'] })
    expect((await get(chat2, { 'x-service-auth-token': withSub })).body.caller).toMatchObject({
      externalId: 'subject-1',
    })
  })

  it('returns 401 for an externalId claim that is blank or not text, and a securityContext that is not an object', async () => {
    test = createTestApp()
    const get = probe(test)
    // Falling back to `sub` would chat as another user than the one the issuer meant.
    for (const externalId of ['', '  ', 7, null]) {
      const token = await serviceToken(tokenSecrets.deployment2, { sub: 'subject', externalId, scope: ['chat'] })
      const response = await get(chat2, { 'x-service-auth-token': token })
      expect([externalId, response.status, response.body.code]).toEqual([externalId, 401, 'INVALID_EXTERNAL_ID'])
    }
    for (const securityContext of ['x', [1], null, 3]) {
      const token = await serviceToken(tokenSecrets.deployment2, { sub: 'subject', securityContext, scope: ['chat'] })
      const response = await get(chat2, { 'x-service-auth-token': token })
      expect([securityContext, response.status, response.body.code]).toEqual([securityContext, 401, 'INVALID_TOKEN'])
    }
    const withContext = await serviceToken(tokenSecrets.deployment2, {
      sub: 'subject',
      securityContext: { region: 'Europe' },
      scope: ['chat'],
    })
    expect((await get(chat2, { 'x-service-auth-token': withContext })).body.caller).toMatchObject({
      securityContext: { region: 'Europe' },
    })
  })

  it('returns 403 when token auth is disabled for the deployment', async () => {
    test = createTestApp()
    const get = probe(test)
    const token = await serviceToken(tokenSecrets.deployment1, { sub: 'u1', scope: ['chat'] })
    const response = await get('/probe/chat/acme/1', { 'x-service-auth-token': token })
    expect(response).toEqual({
      status: 403,
      body: { error: 'Token authentication is disabled for this deployment', code: 'TOKEN_AUTH_DISABLED' },
    })
  })

  it('returns 401 for an expired token and for one not valid yet', async () => {
    test = createTestApp()
    const get = probe(test)
    const now = Math.floor(test.deps.clock() / 1000)
    const expired = await serviceToken(
      tokenSecrets.deployment2,
      { sub: 'u1', scope: ['chat'] },
      { expiresIn: now - 10, issuedAt: now - 100 },
    )
    expect(await get(chat2, { 'x-service-auth-token': expired })).toEqual({
      status: 401,
      body: { error: 'Token expired', code: 'TOKEN_EXPIRED' },
    })
    const early = await serviceToken(
      tokenSecrets.deployment2,
      { sub: 'u1', scope: ['chat'] },
      { notBefore: now + 3600, expiresIn: now + 7200 },
    )
    expect((await get(chat2, { 'x-service-auth-token': early })).status).toBe(401)
  })

  it('returns 403 when the scope claim lacks chat or is not an array', async () => {
    test = createTestApp()
    const get = probe(test)
    for (const scope of [['read'], 'chat', undefined]) {
      const token = await serviceToken(tokenSecrets.deployment2, { sub: 'u1', scope })
      const response = await get(chat2, { 'x-service-auth-token': token })
      expect(response.status).toBe(403)
      expect(response.body.code).toBe('TOKEN_SCOPE')
    }
  })

  it('returns 403 for a genuine token of another deployment of the account and 401 for a forged one', async () => {
    test = createTestApp()
    const get = probe(test)
    const sibling = await serviceToken(tokenSecrets.deployment1, { sub: 'u1', scope: ['chat'], deploymentId: 1 })
    const response = await get(chat2, { 'x-service-auth-token': sibling })
    expect(response).toEqual({
      status: 403,
      body: { error: 'Token was issued for another deployment', code: 'TOKEN_WRONG_DEPLOYMENT' },
    })
    // Genuine for another account's deployment: this account's agents tell nothing about it.
    const foreign = await serviceToken(tokenSecrets.deployment3, { sub: 'u1', scope: ['chat'], deploymentId: 3 })
    expect(await get(chat2, { 'x-service-auth-token': foreign })).toEqual({
      status: 401,
      body: { error: 'Invalid token', code: 'INVALID_TOKEN' },
    })
    const forged = await serviceToken('not-the-secret-at-all-0123', { sub: 'u1', scope: ['chat'], deploymentId: 3 })
    expect((await get(chat2, { 'x-service-auth-token': forged })).status).toBe(401)
    // Without a deploymentId claim (the specification defines none): told by the secret it was signed with, among
    // the account's other deployments; another account's deployment is not looked at (nothing is told about it).
    const unnamed = await serviceToken(tokenSecrets.deployment1, { sub: 'u1', scope: ['chat'] })
    expect((await get(chat2, { 'x-service-auth-token': unnamed })).body.code).toBe('TOKEN_WRONG_DEPLOYMENT')
    const otherAccount = await serviceToken(tokenSecrets.deployment3, { sub: 'u1', scope: ['chat'] })
    expect((await get(chat2, { 'x-service-auth-token': otherAccount })).body.code).toBe('INVALID_TOKEN')
    const unnamedForged = await serviceToken('not-the-secret-at-all-0123', { sub: 'u1', scope: ['chat'] })
    expect((await get(chat2, { 'x-service-auth-token': unnamedForged })).body.code).toBe('INVALID_TOKEN')
    const sameSecretOtherClaim = await serviceToken(tokenSecrets.deployment2, {
      sub: 'u1',
      scope: ['chat'],
      deploymentId: 1,
    })
    expect((await get(chat2, { 'x-service-auth-token': sameSecretOtherClaim })).status).toBe(403)
  })

  it('returns 401 for a deploymentId claim that is not a number, whichever deployment it names', async () => {
    test = createTestApp()
    const get = probe(test)
    const cases = [
      [tokenSecrets.deployment2, '2'],
      [tokenSecrets.deployment2, 2.5],
      [tokenSecrets.deployment2, null],
      [tokenSecrets.deployment1, '1'],
      [tokenSecrets.deployment3, '3'],
    ] as const
    for (const [secret, deploymentId] of cases) {
      const token = await serviceToken(secret, { sub: 'u1', scope: ['chat'], deploymentId } as never)
      const response = await get(chat2, { 'x-service-auth-token': token })
      expect({ deploymentId, status: response.status, code: response.body.code }).toEqual({
        deploymentId,
        status: 401,
        code: 'INVALID_TOKEN',
      })
    }
    const numeric = await serviceToken(tokenSecrets.deployment2, { sub: 'u1', scope: ['chat'], deploymentId: 2 })
    expect((await get(chat2, { 'x-service-auth-token': numeric })).status).toBe(200)
  })

  it('returns 404 for an unknown account or agent and 403 for a key of another account', async () => {
    test = createTestApp()
    const get = probe(test)
    expect((await get('/probe/chat/nobody/1', apiKey(keys.admin))).status).toBe(404)
    expect((await get('/probe/chat/acme/99', apiKey(keys.admin))).status).toBe(404)
    expect((await get('/probe/chat/acme/3', apiKey(keys.admin))).status).toBe(404)
    expect((await get('/probe/chat/acme/1', apiKey(keys.otherAdmin))).status).toBe(403)
    expect((await get('/probe/chat/acme/1', apiKey(keys.scoped))).status).toBe(403)
  })

  it('tells a service token that proves nothing nothing of which accounts and agents exist', async () => {
    test = createTestApp()
    const get = probe(test)
    const garbage = { 'x-service-auth-token': 'garbage' }
    const foreign = {
      'x-service-auth-token': await serviceToken(tokenSecrets.deployment3, { sub: 'u1', scope: ['chat'] }),
    }
    for (const path of ['/probe/chat/nobody/1', '/probe/chat/acme/99', '/probe/chat/acme/3', '/probe/chat/acme/2'])
      expect({ path, ...(await get(path, garbage)) }).toEqual({
        path,
        status: 401,
        body: { error: 'Invalid token', code: 'INVALID_TOKEN' },
      })
    for (const path of ['/probe/chat/nobody/1', '/probe/chat/acme/99'])
      expect({ path, status: (await get(path, foreign)).status }).toEqual({ path, status: 401 })
    // A genuine token of the account the address names: only the agent is missing.
    const genuine = await serviceToken(tokenSecrets.deployment2, { sub: 'u1', scope: ['chat'] })
    expect(await get('/probe/chat/acme/99', { 'x-service-auth-token': genuine })).toEqual({
      status: 404,
      body: { error: 'Agent 99 not found', code: 'AGENT_NOT_FOUND' },
    })
  })
})
