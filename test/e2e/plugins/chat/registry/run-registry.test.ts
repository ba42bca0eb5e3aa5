import { describe, expect, it } from 'bun:test'
import { createLogger } from '../../../../../lib/logger'
import { randomToken } from '../../../../../lib/secrets'
import { NODE_LOST_MESSAGE } from '../../../../../plugins/chat/registry/interrupted-runs'
import { encodeLine, encodedLine, errorLine } from '../../../../../plugins/chat/stream/lines'
import { FollowedRun } from '../../../../../plugins/chat/stream/redis-stream-follower'
import { MemoryRunRegistry } from '../../../../../plugins/chat/registry/memory-run-registry'
import { RunLimitReached, RunRegistryUnavailableError } from '../../../../../plugins/chat/registry/run-registry'
import { CLAIM } from '../../../../../plugins/chat/registry/redis/redis-scripts'
import { RedisRunRegistry } from '../../../../../plugins/chat/registry/redis/redis-run-registry'
import { redisNode, testAppStorage } from '../../../../helpers/app'
import { warnSkipped } from '../../../../helpers/database-servers'
import { redisAvailable, redisServer } from '../../../../helpers/redis-server'
import { newRun, readRun, runRegistryContract, settle } from '../../../../plugins/chat/registry/run-registry-contract'

runRegistryContract('in-memory', async () => {
  const registry = new MemoryRunRegistry()
  return { a: registry, b: registry, close: () => registry.close() }
})

/** Registries of one deployment on the run's Redis (a key prefix of their own), as separate nodes would have. */
async function redisNodes(count: number, leaseMs?: number | number[]) {
  const url = await redisServer()
  const storage = testAppStorage()
  const prefix = `test:${randomToken(6)}:`
  const logger = createLogger('silent')
  const shared = Array.from({ length: count }, (_, index) =>
    redisNode({ url, storage, logger, prefix, leaseMs: Array.isArray(leaseMs) ? leaseMs[index] : leaseMs }),
  )
  const nodes = shared.map((node) => node.registry)
  return {
    nodes,
    url,
    prefix,
    async close() {
      await Promise.all(nodes.map((node) => node.close()))
      await Promise.all(shared.map((node) => node.bus.close()))
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
    it('leaves the thread and the message free when a claim is over a limit, so a claim within it takes them', async () => {
      const { nodes, close } = await redisNodes(2)
      const [a, b] = nodes
      try {
        const limits = { keyId: 7, maxRunsPerUser: 1, maxRunsPerKey: 5 }
        const first = (await a.start({ ...newRun(), limits }))!
        const wanted = { ...newRun(), clientMessageId: true }
        await expect(b.start({ ...wanted, limits })).rejects.toBeInstanceOf(RunLimitReached)
        expect(await a.forChat(wanted.chatId)).toBeUndefined()
        expect(await a.forMessage(wanted.userId, wanted.agentId, wanted.messageId)).toBeUndefined()
        a.end(first)
        await settle(async () => (await b.forChat(first.key.chatId)) === undefined)
        const second = await b.start({ ...wanted, limits })
        expect(second?.key.chatId).toBe(wanted.chatId)
        b.end(second!)
      } finally {
        await close()
      }
    })

    it('runs its scripts by their digest: once Redis holds a script, a turn sends none of its text', async () => {
      const { nodes, url, prefix, close } = await redisNodes(1)
      const [a] = nodes
      const redis = new Bun.RedisClient(url)
      const calls = async () => {
        const text = String(await redis.send('INFO', ['commandstats']))
        const count = (name: string) => Number(new RegExp(`cmdstat_${name}:calls=(\\d+)`).exec(text)?.[1] ?? 0)
        return { eval: count('eval'), evalsha: count('evalsha') }
      }
      const turn = async () => {
        const run = (await a.start(newRun()))!
        a.end(run)
        await settle(async () => (await redis.send('ZCARD', [`${prefix}runs`])) === 0)
      }
      try {
        // Forgotten by Redis (a restart empties its cache): the first turn sends each script's text once.
        await redis.send('SCRIPT', ['FLUSH'])
        await turn()
        const before = await calls()
        for (let index = 0; index < 5; index++) await turn()
        const after = await calls()
        expect(after.eval - before.eval).toBe(0)
        // Its claim and its release, each a script.
        expect(after.evalsha - before.evalsha).toBe(10)
      } finally {
        redis.close()
        await close()
      }
    })

    describe('claims made together, sent as one script call', () => {
      const evalshaCalls = async (redis: Bun.RedisClient) =>
        Number(/cmdstat_evalsha:calls=(\d+)/.exec(String(await redis.send('INFO', ['commandstats'])))?.[1] ?? 0)

      it('gives a thread claimed twice in one call to the first claim only', async () => {
        const { nodes, url, close } = await redisNodes(2)
        const [a, b] = nodes
        const redis = new Bun.RedisClient(url)
        try {
          const key = newRun()
          const before = await evalshaCalls(redis)
          const [first, second] = await Promise.all([
            a.start(key),
            a.start({ ...key, runId: 'second', messageId: '1700000000009-message' }),
          ])
          // Both claims went in one call (the second's look at the holder is a plain GET).
          expect((await evalshaCalls(redis)) - before).toBe(1)
          expect(first?.key.messageId).toBe(key.messageId)
          expect(second).toBeUndefined()
          expect((await b.forChat(key.chatId))?.key.messageId).toBe(key.messageId)
          a.end(first!)
          await settle(async () => (await b.forChat(key.chatId)) === undefined)
        } finally {
          redis.close()
          await close()
        }
      })

      it('fails only the claim over its limit, counting the claims before it in the same call', async () => {
        const { nodes, url, close } = await redisNodes(1)
        const [a] = nodes
        const redis = new Bun.RedisClient(url)
        try {
          const limits = { keyId: 7, maxRunsPerUser: 1, maxRunsPerKey: 2 }
          const starts = [
            { ...newRun(1), limits },
            { ...newRun(1), limits, clientMessageId: true },
            { ...newRun(2), limits },
            { ...newRun(3), limits },
          ]
          const before = await evalshaCalls(redis)
          const outcomes = await Promise.allSettled(starts.map((start) => a.start(start)))
          expect((await evalshaCalls(redis)) - before).toBe(1)
          const [first, overUser, other, overKey] = outcomes
          expect(first.status).toBe('fulfilled')
          expect(other.status).toBe('fulfilled')
          expect(overUser.status === 'rejected' && (overUser.reason as RunLimitReached).limit).toBe('user')
          expect(overKey.status === 'rejected' && (overKey.reason as RunLimitReached).limit).toBe('key')
          // The refused ones left their threads and messages free.
          for (const refused of [starts[1], starts[3]]) {
            expect(await a.forChat(refused.chatId)).toBeUndefined()
            expect(await a.forMessage(refused.userId, refused.agentId, refused.messageId)).toBeUndefined()
          }
          for (const outcome of outcomes) if (outcome.status === 'fulfilled') a.end(outcome.value!)
          // Their runs ended, the places in the limits are free again.
          await settle(async () => (await a.forChat(starts[2].chatId)) === undefined)
          expect(await a.start({ ...newRun(3), limits })).toBeDefined()
        } finally {
          redis.close()
          await close()
        }
      })

      it('sends the releases still gathering when the node closes, before it closes', async () => {
        const { nodes, url, prefix, close } = await redisNodes(1)
        const [a] = nodes
        const redis = new Bun.RedisClient(url)
        try {
          const key = newRun()
          const run = (await a.start(key))!
          // Ended and closed in one turn of the event loop, as a node shutting down does with its last run.
          a.end(run)
          await a.close()
          expect(await redis.send('EXISTS', [`${prefix}thread:${key.chatId}`])).toBe(0)
          expect(await redis.send('ZCARD', [`${prefix}runs`])).toBe(0)
        } finally {
          redis.close()
          await close()
        }
      })

      it('fails every claim of a call Redis refuses with 503, and none of them waits', async () => {
        const { nodes, close } = await redisNodes(1)
        const [a] = nodes
        const commands = (a as unknown as { commands: { send(command: string, args: string[]): Promise<unknown> } })
          .commands
        const send = commands.send.bind(commands)
        let refused = 0
        commands.send = (command, args) => {
          if (command !== 'EVAL' || args[0] !== CLAIM) return send(command, args)
          refused++
          return Promise.reject(new Error('ERR Error running script: out of memory'))
        }
        try {
          const outcomes = await Promise.allSettled([a.start(newRun()), a.start(newRun()), a.start(newRun())])
          expect(refused).toBe(1)
          for (const outcome of outcomes) {
            expect(outcome.status).toBe('rejected')
            expect((outcome as PromiseRejectedResult).reason).toBeInstanceOf(RunRegistryUnavailableError)
          }
        } finally {
          commands.send = send
          await close()
        }
      })
    })

    it('interrupts the run of a node that stopped renewing its lease: joiners get an error line, the thread is free', async () => {
      const { nodes, url, prefix, close } = await redisNodes(2, 300)
      const [a, b] = nodes
      const redis = new Bun.RedisClient(url)
      try {
        const key = newRun()
        const run = (await a.start(key))!
        run.append(encodedLine('{"id":"m","content":"one"}'))
        const joined = readRun((await b.forChat(key.chatId))!)
        // Node A heard that node B wants the run and sent its line (a node dying before that sends none).
        await settle(async () => (await redis.send('XLEN', [`${prefix}log:${key.runId}`])) === 1)
        // The node dies: it neither renews nor releases anything.
        await a.close()
        expect(await joined).toEqual(['{"id":"m","content":"one"}', encodeLine(errorLine(NODE_LOST_MESSAGE)).json])
        await settle(async () => (await b.forChat(key.chatId)) === undefined)
        const next = await b.start({ ...key, runId: 'after', messageId: '1700000000009-message' })
        expect(next).toBeDefined()
        b.end(next!)
      } finally {
        redis.close()
        await close()
      }
    })

    it('fences a run whose lease another node took: it stops, and sends nothing more to its log', async () => {
      const { nodes, url, prefix, close } = await redisNodes(2, 300)
      const [a, b] = nodes
      const redis = new Bun.RedisClient(url)
      const log = (runId: string) => `${prefix}log:${runId}`
      try {
        const key = newRun()
        const run = (await a.start(key))!
        run.append(encodedLine('{"id":"m","content":"one"}'))
        void readRun((await b.forChat(key.chatId))!)
        await settle(async () => (await redis.send('XLEN', [log(key.runId)])) === 1)
        // Another node takes the lease, as its sweep does once the lease has run out.
        await redis.send('ZREMRANGEBYSCORE', [`${prefix}runs`, '-inf', '+inf'])
        await settle(async () => run.fenced !== undefined)
        expect(run.signal.aborted).toBe(true)
        // Its own error line is for its own readers: neither it nor the end goes to the log that node ends.
        run.append(encodeLine(errorLine(run.fenced!)))
        a.end(run)
        await Bun.sleep(200)
        expect(await redis.send('XLEN', [log(key.runId)])).toBe(1)
      } finally {
        redis.close()
        await close()
      }
    })

    it('writes nothing of a run to Redis until a reader on another node wants it, then every line from the first', async () => {
      const { nodes, url, prefix, close } = await redisNodes(2)
      const [a, b] = nodes
      const redis = new Bun.RedisClient(url)
      const log = (runId: string) => `${prefix}log:${runId}`
      try {
        const unread = newRun()
        const alone = (await a.start(unread))!
        alone.append(encodedLine('{"id":"m","content":"alone"}'))
        a.end(alone)
        // Ended unread: the thread is free at once, and no log was ever written.
        await settle(async () => (await b.forChat(unread.chatId)) === undefined)
        expect(await redis.send('EXISTS', [log(unread.runId)])).toBe(0)

        const key = newRun()
        const run = (await a.start(key))!
        run.append(encodedLine('{"id":"m","content":"one"}'))
        run.append(encodedLine('{"id":"m","content":"two"}'))
        expect(await redis.send('EXISTS', [log(key.runId)])).toBe(0)
        const joined = readRun((await b.forMessage(key.userId, key.agentId, key.messageId))!)
        await settle(async () => (await redis.send('EXISTS', [log(key.runId)])) === 1)
        run.append(encodedLine('{"id":"m","content":"three"}'))
        a.end(run)
        expect(await joined).toEqual([
          '{"id":"m","content":"one"}',
          '{"id":"m","content":"two"}',
          '{"id":"m","content":"three"}',
        ])
      } finally {
        redis.close()
        await close()
      }
    })

    it('sends the whole log of a wanted run whose node missed the news, by its next renewal or at its end', async () => {
      const { nodes, url, prefix, close } = await redisNodes(1, 300)
      const [a] = nodes
      const redis = new Bun.RedisClient(url)
      const log = (runId: string) => `${prefix}log:${runId}`
      // Wanted as a reader elsewhere would mark it, without the message on the events channel (lost on its way).
      const wantQuietly = (runId: string) => redis.send('SET', [`${prefix}wanted:${runId}`, '1', 'PX', '60000'])
      const entries = async (runId: string) =>
        ((await redis.send('XRANGE', [log(runId), '-', '+'])) as Array<[string, string[]]>).map(([, fields]) => fields)
      try {
        const running = newRun()
        const run = (await a.start(running))!
        run.append(encodedLine('{"id":"m","content":"one"}'))
        await wantQuietly(running.runId)
        // The renewal (every 100 ms here) finds the mark.
        await settle(async () => (await redis.send('EXISTS', [log(running.runId)])) === 1)
        expect(await entries(running.runId)).toEqual([['i', '0', 'l', '{"id":"m","content":"one"}\n']])
        a.end(run)

        const ending = newRun()
        const short = (await a.start(ending))!
        short.append(encodedLine('{"id":"m","content":"short"}'))
        await wantQuietly(ending.runId)
        a.end(short)
        // Its end finds the mark: the lines and the end go to the log, then the thread is free.
        await settle(async () => (await redis.send('EXISTS', [`${prefix}thread:${ending.chatId}`])) === 0)
        expect(await entries(ending.runId)).toEqual([['i', '0', 'l', '{"id":"m","content":"short"}\n', 'e', '1']])
      } finally {
        redis.close()
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
      // Three leases long. Renewed every third of a lease, so only a test process stalled for a whole lease (600 ms:
      // a machine busy with other work can stall it for a good part of 200 ms) loses it.
      const { nodes, close } = await redisNodes(2, 600)
      const [a, b] = nodes
      try {
        const key = newRun()
        const run = (await a.start(key))!
        await Bun.sleep(1800)
        expect(run.signal.aborted).toBe(false)
        expect(await b.start({ ...key, runId: 'second' })).toBeUndefined()
        expect((await b.forChat(key.chatId))?.key.chatId).toBe(key.chatId)
        a.end(run)
      } finally {
        await close()
      }
    })
  })
}

describe("a followed run's log, filled from its Redis stream", () => {
  const followed = () =>
    new FollowedRun(
      { chatId: 'c', messageId: 'm', userId: 1, agentId: 1, threadId: 'c' },
      'run',
      'log',
      undefined as never,
    )
  const text = (run: FollowedRun) => run.lines.map((line) => line.json)

  it('skips lines it has, and leaves lines past a gap for the entry that fills it', () => {
    const run = followed()
    run.receive(['i', '0', 'l', 'a\nb\n'])
    // Sent again after Redis lost them, ahead of the lines before them: not taken as the next ones.
    run.receive(['i', '5', 'l', 'f\n'])
    expect(text(run)).toEqual(['a', 'b'])
    run.receive(['i', '1', 'l', 'b\nc\nd\ne\nf\n'])
    run.receive(['i', '5', 'l', 'f\ng\n'])
    expect(text(run)).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g'])
    expect(run.published).toBe(7)
    // A line without an index (another node's end of the run) is always new.
    run.receive(['l', 'error\n', 'e', '1'])
    expect(text(run)).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'error'])
    expect(run.done).toBe(true)
  })
})
