import { describe, expect, it } from 'bun:test'
import { openStorage } from '../../../db/client'
import { createLogger } from '../../../lib/logger'
import { randomToken } from '../../../lib/secrets'
import { NODE_LOST_MESSAGE } from '../../../plugins/chat/interrupted-runs'
import { encodeLine, encodedLine, errorLine } from '../../../plugins/chat/lines'
import { RedisRunRegistry } from '../../../plugins/chat/redis-run-registry'
import { MemoryRunRegistry } from '../../../plugins/chat/run-registry'
import { warnSkipped } from '../../helpers/database-servers'
import { redisAvailable, redisServer } from '../../helpers/redis-server'
import { newRun, readRun, runRegistryContract, settle } from './run-registry-contract'

runRegistryContract('in-memory', async () => {
  const registry = new MemoryRunRegistry()
  return { a: registry, b: registry, close: () => registry.close() }
})

/** Registries of one deployment on the run's Redis (a key prefix of their own), as separate nodes would have. */
async function redisNodes(count: number, leaseMs?: number | number[]) {
  const url = await redisServer()
  const storage = openStorage(':memory:')
  const prefix = `test:${randomToken(6)}:`
  const logger = createLogger('silent')
  const nodes = Array.from(
    { length: count },
    (_, index) =>
      new RedisRunRegistry({
        url,
        storage,
        logger,
        clock: Date.now,
        prefix,
        leaseMs: Array.isArray(leaseMs) ? leaseMs[index] : leaseMs,
      }),
  )
  return {
    nodes,
    url,
    prefix,
    async close() {
      await Promise.all(nodes.map((node) => node.close()))
      await storage.close()
    },
  }
}

if (!redisAvailable) warnSkipped('the Redis run registry tests')
else {
  runRegistryContract('Redis', async () => {
    const { nodes, close } = await redisNodes(2)
    return { a: nodes[0], b: nodes[1], close }
  })

  describe('the Redis run registry', () => {
    it('interrupts the run of a node that stopped renewing its lease: joiners get an error line, the thread is free', async () => {
      const { nodes, close } = await redisNodes(2, 300)
      const [a, b] = nodes
      try {
        const key = newRun()
        const run = (await a.start(key))!
        run.append(encodedLine('{"id":"m","content":"one"}'))
        const joined = readRun((await b.forChat(key.chatId))!)
        // The node dies: it neither renews nor releases anything.
        await a.close()
        expect(await joined).toEqual(['{"id":"m","content":"one"}', encodeLine(errorLine(NODE_LOST_MESSAGE)).json])
        await settle(async () => (await b.forChat(key.chatId)) === undefined)
        const next = await b.start({ ...key, runId: 'after', messageId: '1700000000009-message' })
        expect(next).toBeDefined()
        b.end(next!)
      } finally {
        await close()
      }
    })

    it('keeps the thread of a dead node’s run busy until another node has ended that run', async () => {
      // Node A's lease ends 1 s after its last renewal; node B sweeps every 100 ms.
      const { nodes, url, prefix, close } = await redisNodes(2, [1000, 400])
      const [a, b] = nodes
      const redis = new Bun.RedisClient(url)
      try {
        const key = newRun()
        const run = (await a.start(key))!
        run.append(encodedLine('{"id":"m","content":"one"}'))
        await a.close()
        // Read together: whether the thread is held, and the last entry of the run's log.
        const look = async () =>
          (await redis.send('EVAL', [
            "return { redis.call('EXISTS', KEYS[1]), redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1) }",
            '2',
            `${prefix}thread:${key.chatId}`,
            `${prefix}log:${key.runId}`,
          ])) as [number, Array<[string, string[]]>]
        const deadline = Date.now() + 10_000
        let [held, last] = await look()
        while (held === 1) {
          expect(Date.now()).toBeLessThan(deadline)
          ;[held, last] = await look()
        }
        // The moment the thread is free, the run has been ended by node B: its log closes with the error line.
        expect(last[0][1]).toContain(`${encodeLine(errorLine(NODE_LOST_MESSAGE)).json}\n`)
        const next = await b.start({ ...key, runId: 'after', messageId: '1700000000009-message' })
        expect(next).toBeDefined()
        b.end(next!)
      } finally {
        redis.close()
        await close()
      }
    })

    it('renews the lease of a live run, so a run longer than the lease keeps its thread', async () => {
      const { nodes, close } = await redisNodes(2, 200)
      const [a, b] = nodes
      try {
        const key = newRun()
        const run = (await a.start(key))!
        await Bun.sleep(700)
        expect(run.signal.aborted).toBe(false)
        expect(await b.start({ ...key, runId: 'second' })).toBeUndefined()
        expect((await b.forChat(key.chatId))?.key.chatId).toBe(key.chatId)
        a.end(run)
      } finally {
        await close()
      }
    })

    it('sends broadcast events to every node', async () => {
      const { nodes, close } = await redisNodes(2)
      try {
        await Promise.all(nodes.map((node) => node.check()))
        const received: unknown[] = []
        for (const node of nodes) node.onBroadcast((event) => received.push(event))
        await nodes[0].broadcast({ type: 'embed-session-revoked', accountId: 1 })
        await settle(async () => received.length === 2)
        expect(received).toEqual([
          { type: 'embed-session-revoked', accountId: 1 },
          { type: 'embed-session-revoked', accountId: 1 },
        ])
      } finally {
        await close()
      }
    })
  })
}
