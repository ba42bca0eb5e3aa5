import { afterEach, describe, expect, it } from 'bun:test'
import type { ClusterEvent } from '../../../lib/cluster-bus'
import { MemoryClusterBus } from '../../../lib/cluster-bus'
import { createEmbedTokens } from '../../../plugins/embed/embed-tokens'
import { createUserProvisioner } from '../../../plugins/embed/provisioning'
import { createTestApp, testAppStorage, type TestApp } from '../../helpers/app'
import { admin, exchange, mint } from './helpers'

let test: TestApp
afterEach(() => test?.close())

describe('embedPlugin with the app dependencies', () => {
  it("signs exchanged sessions' tokens with the app's embed tokens, the instance that also checks them", async () => {
    const storage = testAppStorage()
    const tokens = createEmbedTokens(storage, Date.now)
    const signed: string[] = []
    test = createTestApp({
      storage,
      embedTokens: {
        verify: (token) => tokens.verify(token),
        async sign(session) {
          const token = await tokens.sign(session)
          signed.push(token)
          return token
        },
      },
    })
    const response = await exchange(test, await mint(test, { externalId: 'ann' }))
    expect(response.status).toBe(200)
    expect(signed).toEqual([response.body.token as string])
  })

  it("provisions generate-session's user with the app's provisioning rules, the instance chat requests use", async () => {
    const storage = testAppStorage()
    const users = createUserProvisioner(storage, Date.now)
    const provisioned: string[] = []
    test = createTestApp({
      storage,
      users: {
        ...users,
        provision(tx, request) {
          provisioned.push(
            request.identity.kind === 'external' ? request.identity.externalId : request.identity.username,
          )
          return users.provision(tx, request)
        },
      },
    })
    await mint(test, { externalId: 'bea' })
    expect(provisioned).toEqual(['bea'])
  })

  it('announces a revoked session on the cluster bus, naming its account', async () => {
    const bus = new MemoryClusterBus()
    const heard: ClusterEvent[] = []
    bus.subscribe((event) => heard.push(event))
    test = createTestApp({ bus })
    const sessionId = await mint(test, { externalId: 'cid' })
    // Minting provisioned the user, and says so.
    expect(heard.map((event) => event.type)).toEqual(['user-changed'])
    heard.length = 0
    const response = await test.request('POST', '/api/v1/embed/session/revoke', { headers: admin, body: { sessionId } })
    expect(response.status).toBe(204)
    expect(heard).toEqual([{ type: 'embed-session-revoked', accountId: 1 }])
  })
})
