import { describe, expect, it } from 'bun:test'
import { createLogger } from '../../../../lib/logger'
import { randomToken } from '../../../../lib/secrets'
import { userChangesOver, type UserChange } from '../../../../plugins/auth/user-changes'
import { RedisClusterBus } from '../../../../lib/redis-cluster-bus'
import { createUserProvisioner } from '../../../../plugins/embed/provisioning'
import { testAppStorage } from '../../../helpers/app'
import { warnSkipped } from '../../../helpers/database-servers'
import { redisAvailable, redisServer } from '../../../helpers/redis-server'
import { settle } from '../../../plugins/chat/registry/run-registry-contract'

if (!redisAvailable) warnSkipped('the user change announcements between nodes')
else
  describe('user changes between nodes (Redis)', () => {
    it('tells the other node of a changed user, which reads it again at its next request', async () => {
      const url = await redisServer()
      // One database for both nodes, as several nodes share Postgres.
      const storage = testAppStorage()
      const prefix = `test:${randomToken(6)}:`
      const logger = createLogger('silent')
      const [a, b] = [0, 1].map(() => new RedisClusterBus({ url, logger, prefix }))
      try {
        await Promise.all([a.check(), b.check()])
        const heard: Array<UserChange | undefined> = []
        userChangesOver(b, () => {}).listen((change) => heard.push(change))
        const nodeA = createUserProvisioner(
          storage,
          Date.now,
          userChangesOver(a, () => {}),
        )
        const nodeB = createUserProvisioner(
          storage,
          Date.now,
          userChangesOver(b, () => {}),
        )
        const groups = async () => (await nodeB.fromSessionSettings(1, { externalId: 'shared' })).access.groups
        await nodeA.fromSessionSettings(1, { externalId: 'shared' })
        await settle(async () => heard.length === 1)
        // Kept in node B's memory from its second request on.
        expect(await groups()).toEqual([])
        expect(await groups()).toEqual([])
        const changed = await nodeA.fromSessionSettings(1, { externalId: 'shared', groups: ['sales'] })
        await settle(async () => heard.length === 2)
        expect(heard[1]).toEqual({ accountId: 1, userId: changed.userId })
        expect(await groups()).toEqual(['sales'])
      } finally {
        await Promise.all([a.close(), b.close()])
        await storage.close()
      }
    })
  })
