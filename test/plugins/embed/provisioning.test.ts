import { afterEach, describe, expect, it } from 'bun:test'
import { AppError } from '../../../lib/errors'
import { createTestApp, type TestApp } from '../../helpers/app'
import { testBootstrap } from '../../helpers/fixtures'
import { groupsOf, userRow, valuesOf } from './helpers'
import type { SessionSettings } from '../../../plugins/auth/session-settings'
import type { UserAccess } from '../../../plugins/auth/user-provisioner'

let test: TestApp
afterEach(() => test?.close())

const ACME = 1

async function failure(run: () => Promise<unknown>): Promise<{ status: number; error: string; code: string }> {
  try {
    await run()
  } catch (error) {
    if (error instanceof AppError) return { status: error.status, error: error.message, code: error.code }
    throw error
  }
  throw new Error('expected an AppError')
}

describe('createUserProvisioner fromSessionSettings', () => {
  it('creates the external user with groups, attributes and security context', async () => {
    test = createTestApp()
    const resolved = await test.deps.users.fromSessionSettings(ACME, {
      externalId: 'user-1',
      email: 'u1@example.com',
      groups: ['sales', 'ops'],
      userAttributes: [
        { name: 'region', value: 'EU' },
        { name: 'beta', value: true },
      ],
      securityContext: { tenant: 7 },
    })
    expect(resolved.kind).toBe('external')
    expect(resolved.access).toEqual({
      userId: resolved.userId,
      groups: ['ops', 'sales'],
      userAttributes: { beta: true, region: 'EU' },
      securityContext: { tenant: 7 },
    })
    expect(await userRow(test, 'user-1')).toMatchObject({ email: 'u1@example.com', kind: 'external' })
    expect(await test.deps.users.accessOf(resolved.userId)).toEqual(resolved.access)
  })

  it('resolves a stored user named again without provisioning fields with the access it has, read-only', async () => {
    test = createTestApp()
    const first = await test.deps.users.fromSessionSettings(ACME, {
      externalId: 'user-2',
      groups: ['sales'],
      userAttributes: [{ name: 'region', value: 'EU' }],
      securityContext: { tenant: 3 },
    })
    const bare = await test.deps.users.fromSessionSettings(ACME, { externalId: 'user-2' })
    expect(bare).toEqual(first)
    expect(bare.access).toEqual({
      userId: first.userId,
      groups: ['sales'],
      userAttributes: { region: 'EU' },
      securityContext: { tenant: 3 },
    })
    const none = await test.deps.users.fromSessionSettings(ACME, { externalId: 'user-3' })
    expect(await test.deps.users.fromSessionSettings(ACME, { externalId: 'user-3' })).toEqual(none)
    expect(none.access).toEqual({ userId: none.userId, groups: [], userAttributes: {}, securityContext: {} })
  })

  it('applies each later change of a known user, and answers an unchanged one as stored', async () => {
    test = createTestApp()
    const users = test.deps.users
    const first = await users.fromSessionSettings(ACME, {
      externalId: 'user-2',
      groups: ['sales'],
      userAttributes: [{ name: 'region', value: 'EU' }],
    })
    const same = await users.fromSessionSettings(ACME, { externalId: 'user-2', groups: ['sales'] })
    expect(same).toEqual(first)
    const steps: Array<{ settings: Omit<SessionSettings, 'externalId'>; access: Omit<UserAccess, 'userId'> }> = [
      {
        settings: { email: 'u2@example.com' },
        access: { groups: ['sales'], userAttributes: { region: 'EU' }, securityContext: {} },
      },
      {
        settings: { groups: ['ops'] },
        access: { groups: ['ops'], userAttributes: { region: 'EU' }, securityContext: {} },
      },
      {
        settings: { userAttributes: [{ name: 'region', value: 'US' }] },
        access: { groups: ['ops'], userAttributes: { region: 'US' }, securityContext: {} },
      },
      {
        settings: { userAttributes: [{ name: 'region', value: null }] },
        access: { groups: ['ops'], userAttributes: {}, securityContext: {} },
      },
      {
        settings: { securityContext: { tenant: 9 } },
        access: { groups: ['ops'], userAttributes: {}, securityContext: { tenant: 9 } },
      },
    ]
    for (const step of steps) {
      const resolved = await users.fromSessionSettings(ACME, { externalId: 'user-2', ...step.settings })
      expect(resolved.userId).toBe(first.userId)
      expect(resolved.access).toEqual({ userId: first.userId, ...step.access })
      expect(await users.accessOf(first.userId)).toEqual(resolved.access)
    }
    expect(await userRow(test, 'user-2')).toMatchObject({ email: 'u2@example.com' })
  })

  it('resolves an internal user by lowercased, trimmed username and refuses provisioning fields with it', async () => {
    test = createTestApp()
    const resolved = await test.deps.users.fromSessionSettings(ACME, { internalId: ' ALICE@acme.com ' })
    expect(resolved.kind).toBe('internal')
    for (const field of ['groups', 'userAttributes', 'securityContext'] as const) {
      const settings = { internalId: 'bob', groups: [], userAttributes: [], securityContext: {} }
      const only = { internalId: 'bob', [field]: settings[field] }
      expect(await failure(() => test.deps.users.fromSessionSettings(ACME, only))).toEqual({
        status: 400,
        error: `${field} is not allowed with internalId`,
        code: 'NOT_ALLOWED_WITH_INTERNAL_ID',
      })
    }
    // Chat allows `email` with `internalId` (generate-session does not) and ignores it: the stored profile stays.
    const emailed = await test.deps.users.fromSessionSettings(ACME, { internalId: 'alice@acme.com', email: 'x@y.z' })
    expect(emailed).toEqual(resolved)
    expect((await userRow(test, 'alice@acme.com', 'internal'))?.email).not.toBe('x@y.z')
  })

  it('refuses an email that is not an address before provisioning anyone', async () => {
    test = createTestApp()
    expect(
      await failure(() => test.deps.users.fromSessionSettings(ACME, { externalId: 'dora', email: 'dora at acme' })),
    ).toEqual({
      status: 400,
      error: 'email must be an email address, such as name@example.com',
      code: 'INVALID_EMAIL',
    })
    expect(await userRow(test, 'dora')).toBeUndefined()
  })

  it("never resolves an external user's id given as internalId", async () => {
    test = createTestApp()
    await test.deps.users.fromSessionSettings(ACME, { externalId: 'carol' })
    expect(await failure(() => test.deps.users.fromSessionSettings(ACME, { internalId: 'carol' }))).toEqual({
      status: 400,
      error: 'Internal user carol not found',
      code: 'INTERNAL_USER_NOT_FOUND',
    })
  })

  it('writes nothing when any part of the call fails', async () => {
    test = createTestApp()
    const bad = () =>
      test.deps.users.fromSessionSettings(ACME, {
        externalId: 'dave',
        groups: ['sales', 'marketing-eu', 'ops', 'nope'],
        userAttributes: [{ name: 'region', value: 'EU' }],
      })
    expect(await failure(bad)).toEqual({
      status: 400,
      error: 'Groups with names marketing-eu, nope not found',
      code: 'GROUPS_NOT_FOUND',
    })
    expect(await userRow(test, 'dave')).toBeUndefined()
  })
})

describe('createUserProvisioner fromExternalId', () => {
  it('creates a missing user and leaves an existing one as stored, applying the token context to the access only', async () => {
    test = createTestApp()
    const created = await test.deps.users.fromSessionSettings(ACME, {
      externalId: 'erin',
      groups: ['sales'],
      securityContext: { a: 1 },
    })
    const again = await test.deps.users.fromExternalId(ACME, ' ERIN ', { b: 2 })
    expect(again.userId).toBe(created.userId)
    expect(again.access.securityContext).toEqual({ b: 2 })
    expect(again.access.groups).toEqual(['sales'])
    expect((await userRow(test, 'erin'))?.securityContext).toBe('{"a":1}')
    const fresh = await test.deps.users.fromExternalId(ACME, 'frank')
    expect(fresh.access).toEqual({ userId: fresh.userId, groups: [], userAttributes: {}, securityContext: {} })
    expect(await groupsOf(test, fresh.userId)).toEqual([])
    expect(await valuesOf(test, fresh.userId)).toEqual({})
  })

  it('returns 403 for a new user beyond the external-user limit, but still resolves existing ones', async () => {
    const bootstrap = testBootstrap()
    bootstrap.accounts[0].maxExternalUsers = 1
    test = createTestApp({ bootstrap })
    const first = await test.deps.users.fromExternalId(ACME, 'gina')
    expect(await failure(() => test.deps.users.fromExternalId(ACME, 'hank'))).toEqual({
      status: 403,
      error: 'External user limit reached: the account may have at most 1 external users',
      code: 'EXTERNAL_USER_LIMIT',
    })
    expect(await userRow(test, 'hank')).toBeUndefined()
    expect((await test.deps.users.fromExternalId(ACME, 'GINA')).userId).toBe(first.userId)
  })

  it('returns 400 for a blank id', async () => {
    test = createTestApp()
    expect(await failure(() => test.deps.users.fromExternalId(ACME, '  '))).toEqual({
      status: 400,
      error: 'externalId must not be blank',
      code: 'BLANK_IDENTITY',
    })
    expect(await failure(() => test.deps.users.fromSessionSettings(ACME, { internalId: ' ' }))).toEqual({
      status: 400,
      error: 'internalId must not be blank',
      code: 'BLANK_IDENTITY',
    })
  })
})
