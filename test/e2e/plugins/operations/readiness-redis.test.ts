import { afterEach, describe, expect, it } from 'bun:test'
import { createLogger } from '../../../../lib/logger'
import { createTestApp, testAppStorage, type TestApp, redisNode } from '../../../helpers/app'
import { freePort, warnSkipped } from '../../../helpers/database-servers'
import { redisAvailable, redisServer } from '../../../helpers/redis-server'

let test: TestApp | undefined
afterEach(async () => {
  await test?.close()
  test = undefined
})

async function appOnRedis(url: string) {
  const storage = testAppStorage()
  const logger = createLogger('silent')
  return createTestApp({
    storage,
    logger,
    ...redisNode({ url, storage, logger, prefix: 'test:readiness:' }),
  })
}

type Body = { status: string; checks: Record<string, { status: string; error?: string }> }

if (!redisAvailable) warnSkipped('the readiness tests with Redis')
else
  describe('GET /readyz with runs shared through Redis', () => {
    it('answers 200 with a redis check while Redis answers', async () => {
      test = await appOnRedis(await redisServer())
      const response = await test.request('GET', '/readyz')
      expect(response.status).toBe(200)
      expect(await response.json()).toMatchObject({
        status: 'ready',
        checks: { storage: { status: 'ok' }, redis: { status: 'ok' } },
      })
    })

    it('answers 503 naming the redis check when Redis does not answer', async () => {
      test = await appOnRedis(`redis://127.0.0.1:${await freePort()}`)
      const response = await test.request('GET', '/readyz')
      expect(response.status).toBe(503)
      const body = (await response.json()) as Body
      expect(body.status).toBe('unready')
      expect(body.checks.storage.status).toBe('ok')
      expect(body.checks.redis.status).toBe('failing')
      expect(body.checks.redis.error).toBeString()
    })
  })

describe('GET /readyz with runs in this process', () => {
  it('has no redis check', async () => {
    test = createTestApp({ registry: undefined })
    const body = (await (await test.request('GET', '/readyz')).json()) as Body
    // Only the storage's own checks: `storage`, and `postgres` with TEST_STORAGE=postgres.
    const storageChecks = ['storage', ...Object.keys(test.storage.readinessChecks ?? {})]
    expect(Object.keys(body.checks).sort()).toEqual(storageChecks.sort())
  })
})
