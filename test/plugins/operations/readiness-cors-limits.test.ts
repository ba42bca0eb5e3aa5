import { afterEach, describe, expect, it } from 'bun:test'
import { apiKey, createTestApp, testClock, type TestApp } from '../../helpers/app'
import { keys } from '../../helpers/fixtures'

let test: TestApp | undefined
afterEach(async () => {
  await test?.close()
  test = undefined
})

describe('GET /readyz', () => {
  it('answers 200 ready with the storage check while the database answers', async () => {
    test = createTestApp()
    const response = await test.request('GET', '/readyz')
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({ status: 'ready', checks: { storage: { status: 'ok' } } })
  })

  it('answers 503 naming the failing check when the database is gone, while /healthz stays 200', async () => {
    test = createTestApp()
    await test.ready
    await test.storage.close()
    const response = await test.request('GET', '/readyz')
    expect(response.status).toBe(503)
    const body = (await response.json()) as {
      status: string
      checks: Record<string, { status: string; error?: string }>
      error: string
      code: string
    }
    expect(body.status).toBe('unready')
    // The { error, code } every error answer carries, naming the failing checks (on Postgres the
    // `postgres` check fails beside `storage`).
    const failing = Object.keys(body.checks).filter((name) => body.checks[name].status === 'failing')
    expect(failing).toContain('storage')
    expect([body.error, body.code]).toEqual([`Not ready: ${failing.join(', ')}`, 'NOT_READY'])
    expect(body.checks.storage.status).toBe('failing')
    expect(body.checks.storage.error).toBeString()
    expect((await test.request('GET', '/healthz')).status).toBe(200)
  })

  it('answers 503 while the node shuts down', async () => {
    test = createTestApp()
    const stopping = test.deps.lifecycle.shutdown()
    const response = await test.request('GET', '/readyz')
    expect(response.status).toBe(503)
    const body = (await response.json()) as { checks: Record<string, unknown>; error: string; code: string }
    expect(body.checks.shutdown).toMatchObject({ status: 'failing' })
    expect([body.error, body.code]).toEqual(['Not ready: shutdown', 'NOT_READY'])
    await stopping
  })
})

const ALLOWED = 'https://app.example.com'
const preflight = (app: TestApp, origin: string, path = '/api/v1/embed/generate-session') =>
  app.request('OPTIONS', path, {
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization, content-type',
    },
  })

describe('CORS_ORIGINS', () => {
  it('answers a preflight from a listed origin with the methods and the credential headers', async () => {
    test = createTestApp({ config: { corsOrigins: [ALLOWED, 'http://localhost:5173'] } })
    const response = await preflight(test, ALLOWED)
    expect(response.status).toBe(204)
    expect(response.headers.get('access-control-allow-origin')).toBe(ALLOWED)
    const allowedHeaders = (response.headers.get('access-control-allow-headers') ?? '').toLowerCase()
    for (const header of ['authorization', 'x-service-auth-token', 'content-type'])
      expect(allowedHeaders).toContain(header)
    expect(response.headers.get('access-control-allow-methods')).toContain('POST')
    expect(response.headers.get('vary')).toContain('Origin')
  })

  it('gives no CORS header to another origin, on a preflight or a request', async () => {
    test = createTestApp({ config: { corsOrigins: [ALLOWED] } })
    const response = await preflight(test, 'https://evil.example.com')
    expect([...response.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([])
    const request = await test.request('GET', '/healthz', { headers: { origin: 'https://evil.example.com' } })
    expect(request.headers.get('access-control-allow-origin')).toBeNull()
    // It still varies by origin, with no origin too: a shared cache must not give this answer to a listed origin.
    expect(request.headers.get('vary')).toContain('Origin')
    const plain = await test.request('GET', '/api/v1/deployments/1/meta', { headers: apiKey(keys.admin) })
    expect(plain.headers.get('vary')).toContain('Origin')
  })

  it('names the listed origin on responses, errors included, and exposes the request id', async () => {
    test = createTestApp({ config: { corsOrigins: [ALLOWED] } })
    const ok = await test.request('GET', '/api/v1/deployments/1/meta', {
      headers: { origin: ALLOWED, ...apiKey(keys.admin) },
    })
    expect(ok.status).toBe(200)
    expect(ok.headers.get('access-control-allow-origin')).toBe(ALLOWED)
    expect(ok.headers.get('access-control-expose-headers')).toContain('X-Request-Id')
    const denied = await test.request('GET', '/api/v1/deployments/1/meta', { headers: { origin: ALLOWED } })
    expect(denied.status).toBe(401)
    expect(denied.headers.get('access-control-allow-origin')).toBe(ALLOWED)
  })

  it('sends no CORS header at all by default', async () => {
    test = createTestApp()
    const response = await preflight(test, ALLOWED)
    expect(response.headers.get('access-control-allow-origin')).toBeNull()
  })
})

describe('request rate limits', () => {
  it('answers 429 RATE_LIMITED with Retry-After once an API key spends its burst, and again after the refill', async () => {
    const clock = testClock()
    test = createTestApp({ clock, config: { apiKeyRateLimit: { perSecond: 1, burst: 3 } } })
    const meta = (key: string) => test!.request('GET', '/api/v1/deployments/1/meta', { headers: apiKey(key) })
    for (let index = 0; index < 3; index++) expect((await meta(keys.admin)).status).toBe(200)
    const refused = await meta(keys.admin)
    expect(refused.status).toBe(429)
    expect(refused.headers.get('retry-after')).toBe('1')
    expect(await refused.json()).toMatchObject({ code: 'RATE_LIMITED' })
    // Another key has its own bucket.
    expect((await meta(keys.member)).status).toBe(200)
    clock.advance(1000)
    expect((await meta(keys.admin)).status).toBe(200)
    expect((await meta(keys.admin)).status).toBe(429)
    expect(await (await test.request('GET', '/metrics')).text()).toContain('acs_rate_limited_total{scope="api_key"} 2')
  })

  it('limits each embed session on its own', async () => {
    const clock = testClock()
    test = createTestApp({ clock, config: { embedSessionRateLimit: { perSecond: 1, burst: 2 } } })
    const token = async (externalId: string) => {
      const session = await test!.request('POST', '/api/v1/embed/generate-session', {
        headers: apiKey(keys.admin),
        body: { deploymentId: 1, externalId },
      })
      const { sessionId } = (await session.json()) as { sessionId: string }
      const exchanged = await test!.request('POST', '/api/v1/embed/session/token', { body: { sessionId } })
      return { authorization: `Embed-Token ${((await exchanged.json()) as { token: string }).token}` }
    }
    const first = await token('first-viewer')
    const second = await token('second-viewer')
    const meta = (headers: Record<string, string>) => test!.request('GET', '/api/v1/deployments/1/meta', { headers })
    expect((await meta(first)).status).toBe(200)
    expect((await meta(first)).status).toBe(200)
    const refused = await meta(first)
    expect(refused.status).toBe(429)
    expect(refused.headers.get('retry-after')).toBe('1')
    expect((await meta(second)).status).toBe(200)
  })
})

describe('RateLimiter', () => {
  it('neither drains nor refills a bucket when the clock goes back', async () => {
    const { RateLimiter } = await import('../../../src/rate-limiter')
    let now = 1_000_000
    const limiter = new RateLimiter({ perSecond: 1, burst: 2 }, () => now)
    expect(limiter.take('key')).toBe(0)
    now -= 86_400_000
    expect(limiter.take('key')).toBe(0)
    expect(limiter.take('key')).toBe(1)
    now += 1000
    expect(limiter.take('key')).toBe(0)
  })

  it('remembers the 100,000 most recently used keys and forgets the least recent one beyond them', async () => {
    const { RateLimiter } = await import('../../../src/rate-limiter')
    const limiter = new RateLimiter({ perSecond: 1, burst: 1 }, () => 1_000_000)
    // Each key's one token is taken: a remembered key is refused, a forgotten one starts with a full bucket.
    for (let key = 0; key < 100_000; key++) expect(limiter.take(key)).toBe(0)
    expect(limiter.take(0)).toBe(1)
    // Key 0 was just used again: key 1 is now the least recent, and the 100,001st key pushes it out.
    expect(limiter.take(100_000)).toBe(0)
    expect(limiter.take(1)).toBe(0)
    expect(limiter.take(0)).toBe(1)
    expect(limiter.take(99_999)).toBe(1)
  })
})
