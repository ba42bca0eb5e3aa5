import { afterEach, describe, expect, it } from 'bun:test'
import { eq } from 'drizzle-orm'
import { first } from '../../../../db/client'
import type { EmbedCaller } from '../../../../plugins/auth/model'
import { UnauthorizedError } from '../../../../lib/errors'
import { keys, tokenSecrets } from '../../../helpers/fixtures'
import { serviceToken } from '../../../helpers/tokens'
import { apiKeyId, D1, D2, managementApp, type ManagementApp } from '../helpers'

let app: ManagementApp
afterEach(() => app?.close())

const keyId = (name: string) => apiKeyId(app, name)

/** Embed tokens that accept one genuine token for deployment 1 (no route of these tests signs one). */
const embedTokens = {
  sign: () => Promise.reject(new Error('these tests sign no embed token')),
  async verify(token: string): Promise<EmbedCaller> {
    if (token !== 'genuine-embed-token') throw new UnauthorizedError('Invalid embed token', 'INVALID_EMBED_TOKEN')
    return {
      kind: 'embed',
      accountId: 1,
      accountName: 'acme',
      deploymentId: 1,
      sessionId: 's',
      userId: 1,
      embedTenantId: null,
      creatorMode: false,
      groups: [],
      userAttributes: {},
      securityContext: undefined,
      settings: {},
      expiresAt: 4_000_000_000,
    }
  },
}

describe('management routes and credentials', () => {
  it('refuses a genuine embed token with 403 and a bogus one with 401 on every kind of route', async () => {
    app = managementApp({ embedTokens })
    const routes: [string, string, unknown][] = [
      ['GET', `${D1}/reports`, undefined],
      ['POST', `${D1}/folders`, { name: 'Smuggled' }],
      ['GET', `${D1}/dashboards`, undefined],
      ['GET', '/api/v1/app-config', undefined],
      ['POST', `${D1}/dbt-sync`, {}],
    ]
    for (const [method, path, body] of routes) {
      const genuine = await app.request(method, path, {
        headers: { authorization: 'Embed-Token genuine-embed-token' },
        body,
      })
      expect(genuine.status).toBe(403)
      expect(await genuine.json()).toEqual({
        error: 'Embed tokens cannot be used on this route',
        code: 'EMBED_TOKEN_NOT_ALLOWED',
      })
      const bogus = await app.request(method, path, { headers: { authorization: 'Embed-Token forged' }, body })
      expect(bogus.status).toBe(401)
    }
    expect(await app.storage.db.select().from(app.storage.tables.folders)).toEqual([])
    expect(await app.storage.db.select().from(app.storage.tables.dbtSyncJobs)).toEqual([])
  })

  it('refuses service tokens with 403, missing keys with 401 and a scoped key outside its deployments with 403', async () => {
    app = managementApp()
    const token = await serviceToken(tokenSecrets.deployment2, { sub: 'u1', scope: ['chat'] })
    const viaToken = await app.request('GET', `${D2}/reports`, { headers: { 'x-service-auth-token': token } })
    expect(viaToken.status).toBe(403)
    expect((await app.call('GET', `${D1}/reports`, undefined, '')).status).toBe(401)
    const outside = await app.call('GET', `${D1}/reports`, undefined, keys.scoped)
    expect(outside).toMatchObject({ status: 403, body: { code: 'DEPLOYMENT_OUT_OF_SCOPE' } })
    expect((await app.call('GET', `${D2}/reports`, undefined, keys.scoped)).status).toBe(200)
  })

  it('checks the credentials before the body: no key is 401 and a key outside the deployment 403, whatever the body', async () => {
    app = managementApp()
    for (const body of [{}, { name: '' }, { name: 'Fine', unexpected: true }]) {
      expect(await app.call('POST', `${D1}/folders`, body, '')).toMatchObject({
        status: 401,
        body: { code: 'MISSING_CREDENTIALS' },
      })
      expect(await app.call('POST', `${D1}/folders`, body, keys.scoped)).toMatchObject({
        status: 403,
        body: { code: 'DEPLOYMENT_OUT_OF_SCOPE' },
      })
    }
    expect(await app.call('POST', `${D1}/folders`, {})).toMatchObject({
      status: 400,
      body: { code: 'VALIDATION_FAILED' },
    })
  })
})

describe('GET/PUT /api/v1/api-keys/:keyId/policy', () => {
  it('reports the default policy of admin and non-admin keys', async () => {
    app = managementApp()
    const admin = await app.call('GET', `/api/v1/api-keys/${await keyId('admin')}/policy`)
    expect(admin.body).toMatchObject({ keyName: 'admin', role: 'admin', isDefault: true })
    expect(admin.body.actions).toContain('SecretsManage')
    expect(admin.body.actions).toContain('DownloadData')
    const member = await app.call('GET', `/api/v1/api-keys/${await keyId('member')}/policy`)
    expect(member.body).toMatchObject({ role: 'editor', isDefault: true })
    expect(member.body.actions).not.toContain('SecretsManage')
  })

  it('sets a preset role or a custom action set, and the key is held to it at once', async () => {
    app = managementApp()
    const viewer = await app.call('PUT', `/api/v1/api-keys/${await keyId('member')}/policy`, { role: 'viewer' })
    expect(viewer.body).toEqual({
      keyId: await keyId('member'),
      keyName: 'member',
      role: 'viewer',
      actions: ['ContentRead'],
      isDefault: false,
    })
    expect((await app.call('GET', `${D1}/reports`, undefined, keys.member)).status).toBe(200)
    expect((await app.call('POST', `${D1}/folders`, { name: 'x' }, keys.member)).status).toBe(403)
    const custom = await app.call('PUT', `/api/v1/api-keys/${await keyId('member')}/policy`, {
      actions: ['DownloadData', 'ContentRead', 'ContentEdit'],
    })
    expect(custom.body).toMatchObject({ role: 'custom', actions: ['ContentRead', 'ContentEdit', 'DownloadData'] })
    expect((await app.call('POST', `${D1}/folders`, { name: 'x' }, keys.member)).status).toBe(201)
  })

  it("needs an admin key with SecretsManage, refuses self-lockout with 409, and hides other accounts' keys", async () => {
    app = managementApp()
    expect(
      (await app.call('GET', `/api/v1/api-keys/${await keyId('admin')}/policy`, undefined, keys.member)).body.code,
    ).toBe('ADMIN_REQUIRED')
    await app.call('PUT', `/api/v1/api-keys/${await keyId('scoped')}/policy`, { role: 'editor' })
    const noSecrets = await app.call('GET', `/api/v1/api-keys/${await keyId('admin')}/policy`, undefined, keys.scoped)
    expect(noSecrets).toMatchObject({ status: 403, body: { error: 'This API key lacks the SecretsManage permission' } })
    const lockout = await app.call('PUT', `/api/v1/api-keys/${await keyId('admin')}/policy`, { role: 'editor' })
    expect(lockout).toMatchObject({ status: 409, body: { code: 'SELF_LOCKOUT' } })
    expect((await app.call('GET', `/api/v1/api-keys/${await keyId('admin')}/policy`)).body.role).toBe('admin')
    const { accounts, apiKeys } = app.storage.tables
    const otherKey = (await first(
      app.storage.db
        .select({ id: apiKeys.id })
        .from(apiKeys)
        .innerJoin(accounts, eq(accounts.id, apiKeys.accountId))
        .where(eq(accounts.name, 'other')),
    ))!.id
    expect((await app.call('GET', `/api/v1/api-keys/${otherKey}/policy`)).status).toBe(404)
  })

  it('returns 400 unless exactly one of role and actions is sent', async () => {
    app = managementApp()
    for (const body of [{}, { role: 'viewer', actions: ['ContentRead'] }]) {
      const response = await app.call('PUT', `/api/v1/api-keys/${await keyId('member')}/policy`, body)
      expect(response).toMatchObject({ status: 400, body: { code: 'ROLE_OR_ACTIONS' } })
    }
    expect(
      (await app.call('PUT', `/api/v1/api-keys/${await keyId('member')}/policy`, { actions: ['Everything'] })).status,
    ).toBe(400)
  })
})
