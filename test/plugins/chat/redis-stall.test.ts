import { afterEach, describe, expect, it } from 'bun:test'
import { createLogger } from '../../../lib/logger'
import { RedisRunRegistry } from '../../../plugins/chat/redis-run-registry'
import { apiKey, createTestApp, testAppStorage, type TestApp } from '../../helpers/app'
import { chatBase, finalAnswer, mergeLines, messageId, readLines } from '../../helpers/chat'
import { warnSkipped } from '../../helpers/database-servers'
import { embedSession } from '../../helpers/embed-sessions'
import { keys } from '../../helpers/fixtures'
import { redisAvailable, startRedisServer, type RedisServer } from '../../helpers/redis-server'

const admin = apiKey(keys.admin)

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
    registry: new RedisRunRegistry({
      url: redis.url,
      storage,
      logger,
      clock: Date.now,
      prefix: 'test:stall:',
      leaseMs,
    }),
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
  })
