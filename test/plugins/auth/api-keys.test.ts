import { afterEach, describe, expect, it } from 'bun:test'
import type { Storage } from '../../../db/client'
import { MemoryClusterBus, type ClusterBus, type ClusterEvent } from '../../../lib/cluster-bus'
import { API_KEYS_MAX_AGE_MS, createApiKeyAuthenticator } from '../../../plugins/auth/api-keys'
import { applyBootstrap } from '../../../src/bootstrap/apply'
import { testAppStorage, testClock } from '../../helpers/app'
import { keys, testBootstrap } from '../../helpers/fixtures'

/** The bus of a node with others beside it: what it is told goes to its listeners, as Redis would bring it. */
function sharedBus(): Pick<ClusterBus, 'shared' | 'subscribe'> & { hear(event: ClusterEvent): void } {
  const local = new MemoryClusterBus()
  return {
    shared: true,
    subscribe: (listener) => local.subscribe(listener),
    hear: (event) => void local.publish(event),
  }
}

/** What another node's start with a changed bootstrap file stores: the admin key revoked, the member key made admin. */
async function applyChangedBootstrap(storage: Storage): Promise<void> {
  const file = testBootstrap()
  for (const key of file.accounts[0].apiKeys!) {
    if (key.key === keys.admin) key.revoked = true
    if (key.key === keys.member) key.admin = true
  }
  await applyBootstrap(storage, file, 'bootstrap.yaml')
}

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
    await applyChangedBootstrap(storage)
    bus.hear({ type: 'bootstrap-applied' })
    expect(await outcome(authenticate(keys.admin))).toBe('INVALID_API_KEY')
    expect(await outcome(authenticate(keys.member))).toBe('admin')
  })

  it('reads a key again once it is older than API_KEYS_MAX_AGE_MS, should the announcement be lost', async () => {
    storage = testAppStorage()
    const clock = testClock()
    const authenticate = createApiKeyAuthenticator(storage, { bus: sharedBus(), clock })
    expect(await outcome(authenticate(keys.admin))).toBe('admin')
    await applyChangedBootstrap(storage)
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
    await applyChangedBootstrap(storage)
    bus.hear({ type: 'embed-sessions-recheck' })
    expect(await outcome(authenticate(keys.member))).toBe('admin')
  })
})
