import { describe, expect, it } from 'bun:test'
import type { ClusterEvent } from '../../../lib/cluster-bus'
import { createLogger } from '../../../lib/logger'
import { RedisClusterBus } from '../../../lib/redis-cluster-bus'
import { randomToken } from '../../../lib/secrets'
import { freePort, warnSkipped } from '../../helpers/database-servers'
import { redisAvailable, redisServer } from '../../helpers/redis-server'
import { clusterBusContract } from '../../lib/cluster-bus-contract'

const logger = createLogger('silent')

/** The buses of two nodes of one service on the run's Redis (a channel of their own), subscribed. */
async function twoNodes() {
  const url = await redisServer()
  const prefix = `test:${randomToken(6)}:`
  const a = new RedisClusterBus({ url, logger, prefix })
  const b = new RedisClusterBus({ url, logger, prefix })
  await Promise.all([a.check(), b.check()])
  return { a, b, close: async () => void (await Promise.all([a.close(), b.close()])) }
}

if (!redisAvailable) warnSkipped('the cluster bus over Redis')
else {
  clusterBusContract('Redis pub/sub', twoNodes)

  describe('RedisClusterBus', () => {
    it("does not tell the publishing node twice (its own event's echo from Redis is left unheard)", async () => {
      const { a, close } = await twoNodes()
      try {
        const heard: ClusterEvent[] = []
        a.subscribe((event) => heard.push(event))
        await a.publish({ type: 'policies-changed', deploymentId: 3 })
        await Bun.sleep(200)
        expect(heard).toEqual([{ type: 'policies-changed', deploymentId: 3 }])
      } finally {
        await close()
      }
    })

    it('keeps the services that share one Redis apart, by their prefix', async () => {
      const url = await redisServer()
      const ours = new RedisClusterBus({ url, logger, prefix: `test:${randomToken(6)}:` })
      const theirs = new RedisClusterBus({ url, logger, prefix: `test:${randomToken(6)}:` })
      try {
        await Promise.all([ours.check(), theirs.check()])
        const heard: ClusterEvent[] = []
        theirs.subscribe((event) => heard.push(event))
        await ours.publish({ type: 'embed-session-revoked', accountId: 2 })
        await Bun.sleep(200)
        expect(heard).toEqual([])
      } finally {
        await Promise.all([ours.close(), theirs.close()])
      }
    })

    it('rejects a publish while Redis does not answer, after telling its own node', async () => {
      const bus = new RedisClusterBus({ url: `redis://127.0.0.1:${await freePort()}`, logger })
      try {
        const heard: ClusterEvent[] = []
        bus.subscribe((event) => heard.push(event))
        await expect(bus.publish({ type: 'embed-session-revoked', accountId: 4 })).rejects.toThrow()
        expect(heard).toEqual([{ type: 'embed-session-revoked', accountId: 4 }])
        await expect(bus.check()).rejects.toThrow()
      } finally {
        await bus.close()
      }
    })
  })
}
