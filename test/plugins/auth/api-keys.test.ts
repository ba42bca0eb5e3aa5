import { afterEach, describe, expect, it } from 'bun:test'
import type { Storage } from '../../../db/client'
import { API_KEYS_MAX_AGE_MS, createApiKeyAuthenticator } from '../../../plugins/auth/api-keys'
import { testAppStorage, testClock } from '../../helpers/app'
import { applyChangedBootstrap, sharedBus } from '../../helpers/shared-bus'
import { keys } from '../../helpers/fixtures'

/** What another node's start with a changed bootstrap file stores: the admin key revoked, the member key made admin. */
const revokeAdminKey = (storage: Storage) =>
  applyChangedBootstrap(storage, (file) => {
    for (const key of file.accounts[0].apiKeys!) {
      if (key.key === keys.admin) key.revoked = true
      if (key.key === keys.member) key.admin = true
    }
  })

const outcome = (attempt: Promise<{ admin: boolean }>) =>
  attempt.then(
    (caller) => (caller.admin ? 'admin' : 'member'),
    (error: { code?: string }) => error.code,
  )

let storage: Storage
afterEach(() => storage?.close())

describe('createApiKeyAuthenticator', () => {
  it('refuses a key another node’s bootstrap revoked as soon as that start is announced', async () => {
    storage = testAppStorage()
    const bus = sharedBus()
    const authenticate = createApiKeyAuthenticator(storage, { bus, clock: testClock() })
    expect(await outcome(authenticate(keys.admin))).toBe('admin')
    expect(await outcome(authenticate(keys.member))).toBe('member')
    await revokeAdminKey(storage)
    bus.hear({ type: 'bootstrap-applied' })
    expect(await outcome(authenticate(keys.admin))).toBe('INVALID_API_KEY')
    expect(await outcome(authenticate(keys.member))).toBe('admin')
  })

  it('reads a key again once it is older than API_KEYS_MAX_AGE_MS, should the announcement be lost', async () => {
    storage = testAppStorage()
    const clock = testClock()
    const authenticate = createApiKeyAuthenticator(storage, { bus: sharedBus(), clock })
    expect(await outcome(authenticate(keys.admin))).toBe('admin')
    await revokeAdminKey(storage)
    clock.advance(API_KEYS_MAX_AGE_MS - 1)
    expect(await outcome(authenticate(keys.admin))).toBe('admin')
    clock.advance(1)
    expect(await outcome(authenticate(keys.admin))).toBe('INVALID_API_KEY')
  })

  it('reads a key again after the node was cut off from the others (embed-sessions-recheck)', async () => {
    storage = testAppStorage()
    const bus = sharedBus()
    const authenticate = createApiKeyAuthenticator(storage, { bus, clock: testClock() })
    expect(await outcome(authenticate(keys.member))).toBe('member')
    await revokeAdminKey(storage)
    bus.hear({ type: 'embed-sessions-recheck' })
    expect(await outcome(authenticate(keys.member))).toBe('admin')
  })
})
