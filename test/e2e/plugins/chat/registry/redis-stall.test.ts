import { afterEach, describe, expect, it } from 'bun:test'
import { createLogger } from '../../../../../lib/logger'
import type { RedisLink } from '../../../../../lib/redis-link'
import { CLAIM } from '../../../../../plugins/chat/registry/redis/redis-scripts'
import { apiKey, createTestApp, testAppStorage, type TestApp, redisNode } from '../../../../helpers/app'
import { chatBase, finalAnswer, mergeLines, messageId, readLines } from '../../../../helpers/chat'
import { warnSkipped } from '../../../../helpers/database-servers'
import { embedSession } from '../../../../helpers/embed-sessions'
import { keys } from '../../../../helpers/fixtures'
import { redisAvailable, startRedisServer, type RedisServer } from '../../../../helpers/redis-server'

const admin = apiKey(keys.admin)
const prefix = 'test:stall:'

let test: TestApp | undefined
let redis: RedisServer | undefined
afterEach(async () => {
  redis?.resume()
  await test?.close()
  await redis?.stop()
  test = undefined
  redis = undefined
})

/** An app whose runs are shared through a Redis of its own, which the test may pause. */
async function appOnOwnRedis(leaseMs?: number): Promise<TestApp> {
  redis = await startRedisServer()
  const storage = testAppStorage()
  const logger = createLogger('silent')
  test = createTestApp({
    storage,
    logger,
    ...redisNode({ url: redis.url, storage, logger, prefix, leaseMs }),
  })
  return test
}

/** The response, or a failed test after 10 s: a request that hangs must not hang the test run. */
async function answered(response: Promise<Response>): Promise<Response> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('no answer within 10 s')), 10_000)
  })
  try {
    return await Promise.race([response, late])
  } finally {
    clearTimeout(timer)
  }
}

const chat = (app: TestApp, offset: number, chatId?: string) =>
  answered(
    app.request('POST', `${chatBase()}/stream-chat-state`, {
      headers: admin,
      body: { input: 'Hello', chatId, messageId: messageId(offset), sessionSettings: { externalId: 'alice' } },
    }),
  )

/** Asserts a whole answered turn: the stream ends with a final answer and no error line. */
async function expectAnswer(response: Response) {
  expect(response.status).toBe(200)
  const lines = await readLines(response)
  expect(lines.filter((line) => line.error !== undefined)).toEqual([])
  expect(finalAnswer(mergeLines(lines))?.content).toBeString()
}

async function expectUnavailable(response: Response) {
  expect(response.status).toBe(503)
  expect(response.headers.get('retry-after')).toBe('2')
  expect(await response.json()).toEqual({
    error: 'The run registry (Redis) does not answer; please retry shortly',
    code: 'RUN_REGISTRY_UNAVAILABLE',
  })
}

/** Polls Redis until whether a key matches `pattern` is `exists`, for at most `ms`; returns whether it came to be. */
async function waitForKeys(url: string, pattern: string, exists: boolean, ms: number) {
  const client = new Bun.RedisClient(url, { autoReconnect: false, connectionTimeout: 1000 })
  try {
    const deadline = Date.now() + ms
    for (;;) {
      if (((await client.send('KEYS', [pattern])) as string[]).length > 0 === exists) return true
      if (Date.now() > deadline) return false
      await Bun.sleep(50)
    }
  } finally {
    client.close()
  }
}

if (!redisAvailable) warnSkipped('the tests of a Redis that stops answering')
else
  describe('requests while Redis accepts connections but does not answer', () => {
    it('answer 503 RUN_REGISTRY_UNAVAILABLE with Retry-After instead of hanging, and succeed once Redis answers', async () => {
      const app = await appOnOwnRedis()
      await expectAnswer(await chat(app, 0))
      const { sessionId } = await embedSession(app, 'bob')

      redis!.pause()
      await expectUnavailable(await chat(app, 1))
      // The revocation is stored (its tokens stop working here at once); only the news to other nodes is lost.
      const revoked = await answered(
        app.request('POST', '/api/v1/embed/session/revoke', { headers: admin, body: { sessionId } }),
      )
      expect(revoked.status).toBe(204)
      await expectUnavailable(await chat(app, 2))

      redis!.resume()
      // No restart: the link to Redis comes back by itself.
      await expectAnswer(await chat(app, 3))
      await expectAnswer(await chat(app, 4))
    }, 30_000)

    it('frees a thread whose claim Redis ran after its deadline long before the lease ends', async () => {
      // A lease far longer than the test waits: the thread must be freed by ending the lease, not by its expiry.
      const app = await appOnOwnRedis(30_000)
      const first = await chat(app, 0)
      const chatId = ((await readLines(first))[0].state as { chatId: string }).chatId
      // Redis stops just as the next turn's claim of the thread leaves: it reads the claim, but only once it resumes.
      const commands = (app.deps.registry as unknown as { commands: { send: RedisLink['send'] } }).commands
      const send = commands.send.bind(commands)
      commands.send = (command, args, deadlineMs) => {
        if (command === 'EVAL' && args[0] === CLAIM) {
          commands.send = send
          redis!.pause()
        }
        return send(command, args, deadlineMs)
      }
      await expectUnavailable(await chat(app, 1, chatId))
      redis!.resume()
      // The claim runs after the request was answered: the thread is held by a run that never started...
      const threadKey = `${prefix}thread:${chatId}`
      expect(await waitForKeys(redis!.url, threadKey, true, 10_000)).toBe(true)
      // ...until the node ends that lease at its next sweep (every quarter lease), which frees the thread.
      expect(await waitForKeys(redis!.url, threadKey, false, 20_000)).toBe(true)
      await expectAnswer(await chat(app, 2, chatId))
    }, 45_000)
  })
