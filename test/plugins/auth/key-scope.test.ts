import { afterEach, describe, expect, it } from 'bun:test'
import { and, eq, sql } from 'drizzle-orm'
import { first } from '../../../db/client'
import { createTestApp, type TestApp } from '../../helpers/app'
import { keys, testBootstrap } from '../../helpers/fixtures'

/**
 * The auth matrix of deployment-scoped API keys on every route that manages keys, policies and account settings.
 * Account `acme` has deployments 1 and 2; its keys differ only in admin flag and scope.
 */
const scopedKeys = {
  admin: keys.admin, // unscoped admin
  member: keys.member, // unscoped, not admin
  scoped: keys.scoped, // admin, deployment 2
  wide: 'ak_test_scope_wide_0123456789', // admin, deployments 1 and 2
  one: 'ak_test_scope_one_0123456789', // admin, deployment 1
  two: 'ak_test_scope_two_0123456789', // not admin, deployment 2
} as const
type KeyName = keyof typeof scopedKeys

function scopeBootstrap() {
  const file = testBootstrap()
  file.accounts[0].apiKeys!.push(
    { name: 'wide', key: scopedKeys.wide, admin: true, deployments: [1, 2] },
    { name: 'one', key: scopedKeys.one, admin: true, deployments: [1] },
    { name: 'two', key: scopedKeys.two, deployments: [2] },
  )
  return file
}

let test: TestApp
afterEach(() => test?.close())

function setup() {
  test = createTestApp({ bootstrap: scopeBootstrap() })
  const { apiKeys, accounts, apiKeyPolicies } = test.storage.tables
  const keyId = async (account: string, name: string) =>
    (await first(
      test.storage.db
        .select({ id: apiKeys.id })
        .from(apiKeys)
        .innerJoin(accounts, eq(accounts.id, apiKeys.accountId))
        .where(and(eq(accounts.name, account), eq(apiKeys.name, name))),
    ))!.id
  // The stored text of the actions, and null for a key without a policy row.
  const policyRow = async (id: number) =>
    (await first(
      test.storage.db
        .select({ role: apiKeyPolicies.role, actions: sql<string>`${apiKeyPolicies.actions}` })
        .from(apiKeyPolicies)
        .where(eq(apiKeyPolicies.apiKeyId, id)),
    )) ?? null
  async function call(method: string, path: string, key: string, body?: unknown) {
    const response = await test.request(method, path, { body, headers: { authorization: `Api-Key ${key}` } })
    const text = await response.text()
    return { status: response.status, body: text ? (JSON.parse(text) as Record<string, any>) : {} }
  }
  return { keyId, policyRow, call }
}

/** Expected status of `caller` managing the policy of `target` (keys of `acme` unless `other`). */
const expectations: Record<KeyName, Record<KeyName | 'other', number>> = {
  admin: { admin: 200, member: 200, scoped: 200, wide: 200, one: 200, two: 200, other: 404 },
  scoped: { admin: 403, member: 403, scoped: 200, wide: 403, one: 403, two: 200, other: 404 },
  wide: { admin: 403, member: 403, scoped: 200, wide: 200, one: 200, two: 200, other: 404 },
  one: { admin: 403, member: 403, scoped: 403, wide: 403, one: 200, two: 403, other: 404 },
  member: { admin: 403, member: 403, scoped: 403, wide: 403, one: 403, two: 403, other: 403 },
  two: { admin: 403, member: 403, scoped: 403, wide: 403, one: 403, two: 403, other: 403 },
}

describe('API key policies and key scope', () => {
  it('returns 403 when a scoped admin key changes the policy of the unscoped admin key, which keeps working', async () => {
    const { keyId, policyRow, call } = setup()
    const takeover = await call('PUT', `/api/v1/api-keys/${await keyId('acme', 'admin')}/policy`, keys.scoped, {
      role: 'viewer',
    })
    expect(takeover).toEqual({
      status: 403,
      body: {
        error: 'API key cannot manage a key that reaches deployments outside its own scope',
        code: 'KEY_OUT_OF_SCOPE',
      },
    })
    expect(await policyRow(await keyId('acme', 'admin'))).toBeNull()
    const stillAdmin = await call('GET', `/api/v1/api-keys/${await keyId('acme', 'scoped')}/policy`, keys.admin)
    expect(stillAdmin.status).toBe(200)
    expect((await call('PATCH', '/api/v1/app-config', keys.admin, { applyThemeGlobally: true })).status).toBe(200)
  })

  for (const method of ['GET', 'PUT'] as const) {
    it(`answers ${method} on a key's policy by the reach of both keys: subset 200, wider or unscoped 403, other account 404`, async () => {
      const { keyId, policyRow, call } = setup()
      for (const [caller, targets] of Object.entries(expectations) as [KeyName, Record<KeyName | 'other', number>][]) {
        for (const [target, status] of Object.entries(targets)) {
          const id = target === 'other' ? await keyId('other', 'admin') : await keyId('acme', target)
          const before = await policyRow(id)
          const response = await call(
            method,
            `/api/v1/api-keys/${id}/policy`,
            scopedKeys[caller],
            method === 'PUT' ? { role: 'admin' } : undefined,
          )
          expect({ caller, target, status: response.status }).toEqual({ caller, target, status })
          expect(Object.keys(response.body).sort()).toEqual(
            status === 200 ? ['actions', 'isDefault', 'keyId', 'keyName', 'role'] : ['code', 'error'],
          )
          if (status !== 200) expect(await policyRow(id)).toEqual(before)
        }
      }
    })
  }

  it('returns 404 for an unknown key id, also to a scoped key', async () => {
    const { call } = setup()
    expect((await call('GET', '/api/v1/api-keys/99999/policy', keys.scoped)).body.code).toBe('API_KEY_NOT_FOUND')
    expect((await call('PUT', '/api/v1/api-keys/99999/policy', keys.admin, { role: 'viewer' })).status).toBe(404)
  })

  it('returns 403 when a key grants an action it does not hold itself', async () => {
    const { keyId, policyRow, call } = setup()
    const set = await call('PUT', `/api/v1/api-keys/${await keyId('acme', 'scoped')}/policy`, keys.admin, {
      actions: ['SecretsManage', 'ContentRead'],
    })
    expect(set.status).toBe(200)
    const escalate = await call('PUT', `/api/v1/api-keys/${await keyId('acme', 'two')}/policy`, keys.scoped, {
      role: 'admin',
    })
    expect(escalate.status).toBe(403)
    expect(escalate.body).toEqual({
      error: expect.stringContaining('cannot grant ContentEdit'),
      code: 'PERMISSION_DENIED',
    })
    expect(await policyRow(await keyId('acme', 'two'))).toBeNull()
    const within = await call('PUT', `/api/v1/api-keys/${await keyId('acme', 'two')}/policy`, keys.scoped, {
      role: 'viewer',
    })
    expect(within).toMatchObject({ status: 200, body: { role: 'viewer', actions: ['ContentRead'] } })
  })
})

describe('account-wide settings and scoped keys', () => {
  it('lets every key read the app configuration but only unscoped keys change it', async () => {
    const { call } = setup()
    for (const key of [scopedKeys.scoped, scopedKeys.wide, scopedKeys.two])
      expect((await call('GET', '/api/v1/app-config', key)).status).toBe(200)
    for (const key of [scopedKeys.scoped, scopedKeys.wide]) {
      const response = await call('PATCH', '/api/v1/app-config', key, { appTheme: { mode: 'dark' } })
      expect(response).toEqual({
        status: 403,
        body: {
          error: 'Changing the app configuration needs an API key that is not scoped to deployments',
          code: 'ACCOUNT_WIDE_KEY_REQUIRED',
        },
      })
    }
    expect((await call('GET', '/api/v1/app-config', keys.admin)).body.appTheme.mode).toBe('system')
    expect((await call('PATCH', '/api/v1/app-config', keys.admin, { appTheme: { mode: 'dark' } })).status).toBe(200)
  })

  it('lets a scoped key manage AI engineer settings and chat thread policies of its deployments only', async () => {
    const { call } = setup()
    const policies = {
      chatThreadPolicies: [{ actions: ['ChatThreadCreate'], effect: 'deny', resourceType: 'agent', resources: ['*'] }],
    }
    expect((await call('PATCH', '/api/v1/deployments/2/ai-engineer-settings', keys.scoped, policies)).status).toBe(200)
    expect(
      (await call('GET', '/api/v1/deployments/2/ai-engineer-settings', keys.scoped)).body.chatThreadPolicies,
    ).toHaveLength(1)
    for (const method of ['GET', 'PATCH']) {
      const outside = await call(
        method,
        '/api/v1/deployments/1/ai-engineer-settings',
        keys.scoped,
        method === 'PATCH' ? policies : undefined,
      )
      expect(outside.status).toBe(403)
      expect(outside.body.code).toBe('DEPLOYMENT_OUT_OF_SCOPE')
      expect(
        (
          await call(
            method,
            '/api/v1/deployments/3/ai-engineer-settings',
            keys.scoped,
            method === 'PATCH' ? policies : undefined,
          )
        ).status,
      ).toBe(404)
    }
    expect(
      (await call('GET', '/api/v1/deployments/1/ai-engineer-settings', keys.admin)).body.chatThreadPolicies,
    ).toEqual([])
    // A key without SettingsManage (not admin: editor) cannot change them even in scope.
    expect((await call('PATCH', '/api/v1/deployments/2/ai-engineer-settings', scopedKeys.two, policies)).status).toBe(
      403,
    )
  })

  it('returns 403 when a scoped key deletes an embed tenant or one of its groups, which span deployments', async () => {
    const { call } = setup()
    const session = await call('POST', '/api/v1/embed/generate-session', keys.admin, {
      deploymentId: 1,
      externalId: 'tenant-user',
      embedTenantName: 'tenant-one',
      creatorMode: true,
      groupDefinitions: [{ name: 'tenant-sales' }],
    })
    expect(session.status).toBe(200)
    const groups = await call('GET', '/api/v1/embed-tenants/tenant-one/groups', keys.scoped)
    expect(groups.status).toBe(200)
    const groupId = groups.body.items[0].id
    for (const key of [scopedKeys.scoped, scopedKeys.wide]) {
      const group = await call('DELETE', `/api/v1/embed-tenants/tenant-one/groups/${groupId}`, key)
      expect(group).toMatchObject({ status: 403, body: { code: 'ACCOUNT_WIDE_KEY_REQUIRED' } })
      const tenant = await call('DELETE', '/api/v1/embed-tenants/tenant-one', key)
      expect(tenant).toMatchObject({ status: 403, body: { code: 'ACCOUNT_WIDE_KEY_REQUIRED' } })
    }
    expect((await call('DELETE', '/api/v1/embed-tenants/tenant-one', scopedKeys.member)).status).toBe(403)
    expect((await call('GET', '/api/v1/embed-tenants/tenant-one/groups', keys.admin)).body.items).toHaveLength(1)
    expect((await call('DELETE', `/api/v1/embed-tenants/tenant-one/groups/${groupId}`, keys.admin)).status).toBe(204)
    expect((await call('DELETE', '/api/v1/embed-tenants/tenant-one', keys.admin)).status).toBe(204)
    expect((await call('DELETE', '/api/v1/embed-tenants/tenant-one', keys.otherAdmin)).status).toBe(404)
  })

  it('leaves sessions of other deployments alone when a scoped key revokes them, and revokes its own', async () => {
    const { call } = setup()
    const mint = async (deploymentId: number, key: string) =>
      (await call('POST', '/api/v1/embed/generate-session', key, { deploymentId, externalId: 'revoke-user' })).body
        .sessionId as string
    const onOne = await mint(1, keys.admin)
    const onTwo = await mint(2, keys.scoped)
    expect(
      (
        await call('POST', '/api/v1/embed/generate-session', keys.scoped, {
          deploymentId: 1,
          externalId: 'revoke-user',
        })
      ).status,
    ).toBe(403)
    expect((await call('POST', '/api/v1/embed/session/revoke', keys.scoped, { sessionId: onOne })).status).toBe(204)
    expect((await call('POST', '/api/v1/embed/session/revoke', keys.scoped, { sessionId: onTwo })).status).toBe(204)
    expect((await call('POST', '/api/v1/embed/session/token', keys.scoped, { sessionId: onOne })).status).toBe(200)
    expect((await call('POST', '/api/v1/embed/session/token', keys.scoped, { sessionId: onTwo })).status).toBe(401)
  })
})
