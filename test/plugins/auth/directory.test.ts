import { afterEach, describe, expect, it } from 'bun:test'
import type { Storage } from '../../../db/client'
import { createDirectory, DIRECTORY_MAX_AGE_MS } from '../../../plugins/auth/directory'
import { testAppStorage, testClock } from '../../helpers/app'
import { applyChangedBootstrap, sharedBus } from '../../helpers/shared-bus'

const rotatedSecret = 'a-new-secret-of-deployment-2-0123456789'

/** What another node's start with a changed bootstrap file stores: deployment 2 takes no service tokens, and signs with a new secret. */
const disableTokenAuth = (storage: Storage) =>
  applyChangedBootstrap(storage, (file) => {
    const deployment = file.accounts[0].deployments!.find((candidate) => candidate.id === 2)!
    deployment.tokenAuth = { enabled: false, secret: rotatedSecret }
  })

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
    await disableTokenAuth(storage)
    bus.hear({ type: 'bootstrap-applied' })
    expect(await tokenAuth(directory)).toEqual({ enabled: false, secret: rotatedSecret, listed: rotatedSecret })
  })

  it('reads them again once they are older than DIRECTORY_MAX_AGE_MS, should the announcement be lost', async () => {
    storage = testAppStorage()
    const clock = testClock()
    const directory = createDirectory(storage, { bus: sharedBus(), clock })
    const before = await tokenAuth(directory)
    await disableTokenAuth(storage)
    clock.advance(DIRECTORY_MAX_AGE_MS - 1)
    expect(await tokenAuth(directory)).toEqual(before)
    clock.advance(1)
    expect(await tokenAuth(directory)).toEqual({ enabled: false, secret: rotatedSecret, listed: rotatedSecret })
  })
})
