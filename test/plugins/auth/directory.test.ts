import { afterEach, describe, expect, it } from 'bun:test'
import type { Storage } from '../../../db/client'
import { MemoryClusterBus, type ClusterBus, type ClusterEvent } from '../../../lib/cluster-bus'
import { createDirectory, DIRECTORY_MAX_AGE_MS } from '../../../plugins/auth/directory'
import { applyBootstrap } from '../../../src/bootstrap/apply'
import { testAppStorage, testClock } from '../../helpers/app'
import { testBootstrap } from '../../helpers/fixtures'

/** The bus of a node with others beside it: what it is told goes to its listeners, as Redis would bring it. */
function sharedBus(): Pick<ClusterBus, 'shared' | 'subscribe'> & { hear(event: ClusterEvent): void } {
  const local = new MemoryClusterBus()
  return {
    shared: true,
    subscribe: (listener) => local.subscribe(listener),
    hear: (event) => void local.publish(event),
  }
}

const rotatedSecret = 'a-new-secret-of-deployment-2-0123456789'

/** What another node's start with a changed bootstrap file stores: deployment 2 takes no service tokens, and signs with a new secret. */
async function applyChangedBootstrap(storage: Storage): Promise<void> {
  const file = testBootstrap()
  const deployment = file.accounts[0].deployments!.find((candidate) => candidate.id === 2)!
  deployment.tokenAuth = { enabled: false, secret: rotatedSecret }
  await applyBootstrap(storage, file, 'bootstrap.yaml')
}

const tokenAuth = async (directory: ReturnType<typeof createDirectory>) => {
  const deployment = await directory.deployment(2)
  const secrets = await directory.tokenSecrets()
  return {
    enabled: deployment?.tokenAuthEnabled,
    secret: deployment?.tokenAuthSecret,
    listed: secrets.find((entry) => entry.id === 2)?.secret,
  }
}

let storage: Storage
afterEach(() => storage?.close())

describe('createDirectory', () => {
  it('reads deployments again as soon as another node’s start announces it applied the bootstrap', async () => {
    storage = testAppStorage()
    const bus = sharedBus()
    const directory = createDirectory(storage, { bus, clock: testClock() })
    const before = await tokenAuth(directory)
    expect(before.enabled).toBe(true)
    await applyChangedBootstrap(storage)
    bus.hear({ type: 'bootstrap-applied' })
    expect(await tokenAuth(directory)).toEqual({ enabled: false, secret: rotatedSecret, listed: rotatedSecret })
  })

  it('reads them again once they are older than DIRECTORY_MAX_AGE_MS, should the announcement be lost', async () => {
    storage = testAppStorage()
    const clock = testClock()
    const directory = createDirectory(storage, { bus: sharedBus(), clock })
    const before = await tokenAuth(directory)
    await applyChangedBootstrap(storage)
    clock.advance(DIRECTORY_MAX_AGE_MS - 1)
    expect(await tokenAuth(directory)).toEqual(before)
    clock.advance(1)
    expect(await tokenAuth(directory)).toEqual({ enabled: false, secret: rotatedSecret, listed: rotatedSecret })
  })
})
