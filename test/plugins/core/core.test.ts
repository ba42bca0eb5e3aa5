import { afterEach, describe, expect, it } from 'bun:test'
import { Elysia, t } from 'elysia'
import { corePlugin } from '../../../plugins/core'
import { makePrintable } from '../../../plugins/core/printable-values'
import { apiKey, createTestApp, type TestApp } from '../../helpers/app'
import { keys } from '../../helpers/fixtures'

let test: TestApp
afterEach(() => test?.close())

function withProbe(test: TestApp) {
  const app = new Elysia()
    .use(corePlugin(test.deps))
    .post('/probe', ({ body }) => body, {
      body: t.Object({
        messageId: t.String({ pattern: '^\\d{13,}-message$' }),
        nested: t.Optional(t.Object({ count: t.Integer() })),
      }),
    })
    .get('/boom', () => {
      throw new Error('secret database detail')
    })
  return (path: string, init?: RequestInit) => app.handle(new Request(`http://localhost${path}`, init))
}

describe('corePlugin', () => {
  it('answers /healthz with 200', async () => {
    test = createTestApp()
    const response = await test.request('GET', '/healthz')
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ status: 'ok' })
  })

  it('returns a JSON 404 for unknown routes', async () => {
    test = createTestApp()
    const response = await test.request('GET', '/no/such/route')
    expect(response.status).toBe(404)
    expect(response.headers.get('content-type')).toContain('application/json')
    expect(await response.json()).toEqual({ error: 'No such route', code: 'ROUTE_NOT_FOUND' })
  })

  it('answers 405 with Allow for a known address asked with another method', async () => {
    test = createTestApp()
    const cases: Array<[string, string, string]> = [
      ['DELETE', '/api/v1/app-config', 'GET, HEAD, PATCH'],
      ['PUT', '/api/v1/deployments/1/folders/7', 'GET, HEAD, PATCH, DELETE'],
      ['GET', '/api/v1/embed/generate-session', 'POST'],
      ['OPTIONS', '/api/v1/deployments/1/folders', 'GET, HEAD, POST'],
      ['GET', '/api/v1/public/acme/agents/1/chat/stream-chat-state/', 'POST'],
      // The WebSocket is opened with a GET.
      ['POST', '/api/v1/public/acme/agents/1/chat/ws', 'GET'],
      // Addresses the API document leaves out of itself are addresses all the same.
      ['POST', '/openapi', 'GET, HEAD'],
      ['DELETE', '/openapi/json', 'GET, HEAD'],
    ]
    for (const [method, path, allow] of cases) {
      const response = await test.request(method, path)
      expect({ method, path, status: response.status, allow: response.headers.get('allow') }).toEqual({
        method,
        path,
        status: 405,
        allow,
      })
      expect(await response.json()).toEqual({
        error: `${method} is not allowed here: this address answers ${allow}`,
        code: 'METHOD_NOT_ALLOWED',
      })
    }
    // A removed operation's address offers no method: it is 404, as its own method answers.
    const removed = await test.request('POST', '/api/v1/embed-tenants/tenant-one/user-attributes')
    expect(removed.status).toBe(404)
    expect(removed.headers.get('allow')).toBeNull()
    // An address no route has is still 404, whatever the method.
    const unknown = await test.request('DELETE', '/api/v1/no-such-thing')
    expect(unknown.status).toBe(404)
    expect(unknown.headers.get('allow')).toBeNull()
  })

  it('returns 400 for malformed JSON', async () => {
    test = createTestApp()
    const send = withProbe(test)
    const response = await send('/probe', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"messageId":',
    })
    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({
      error: 'Malformed request body: expected valid JSON',
      code: 'MALFORMED_JSON',
    })
  })

  it('returns 400 naming the field for schema failures, never 422', async () => {
    test = createTestApp()
    const send = withProbe(test)
    const bad = await send('/probe', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"messageId":"abc"}',
    })
    expect(bad.status).toBe(400)
    const body = (await bad.json()) as { error: string; code: string }
    expect(body.code).toBe('VALIDATION_FAILED')
    expect(body.error).toStartWith('messageId: ')
    const nested = await send('/probe', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messageId: '1700000000000-message', nested: { count: 'x' } }),
    })
    expect(nested.status).toBe(400)
    expect(((await nested.json()) as { error: string }).error).toStartWith('nested.count: ')
  })

  it('names the path or query number that is out of range or not an integer, with its bounds', async () => {
    test = createTestApp()
    const answer = async (path: string) => {
      const response = await test.request('GET', path, { headers: apiKey(keys.admin) })
      return { status: response.status, body: await response.json() }
    }
    const refused = (error: string) => ({ status: 400, body: { error, code: 'VALIDATION_FAILED' } })
    const first = refused('query first: expected an integer from 1 to 100')
    // Text that is no integer, and integers out of bounds, read the same.
    for (const value of ['0', '101', '-3', 'abc', '1.5', ''])
      expect(await answer(`/api/v1/deployments/1/reports?first=${value}`)).toEqual(first)
    for (const list of ['folders', 'workbooks', 'dashboards', 'notifications', 'reports/1/snapshots'])
      expect(await answer(`/api/v1/deployments/1/${list}?first=500`)).toEqual(first)
    expect(await answer('/api/v1/deployments/1/reports?first=20&folderId=0')).toEqual(
      refused('query folderId: expected an integer of at least 1'),
    )
    expect(await answer('/api/v1/deployments/1/reports/0')).toEqual(
      refused('path reportId: expected an integer of at least 1'),
    )
    expect(await answer('/api/v1/api-keys/x/policy')).toEqual(refused('path keyId: expected an integer of at least 1'))
    expect((await answer('/api/v1/deployments/1/reports?first=100')).status).toBe(200)
    // A body integer takes JSON numbers only (text is the wrong type, not a number to convert); a missing one is
    // still "required".
    const generate = async (body: object) => {
      const response = await test.request('POST', '/api/v1/embed/generate-session', {
        headers: apiKey(keys.admin),
        body: { externalId: 'u1', ...body },
      })
      return { status: response.status, body: await response.json() }
    }
    for (const value of ['0', 'x', '1'])
      expect(await generate({ deploymentId: value })).toEqual(
        refused('deploymentId: expected an integer of at least 1'),
      )
    expect(await generate({ deploymentId: 0 })).toEqual(refused('deploymentId: expected an integer of at least 1'))
    expect(await generate({})).toEqual(refused('deploymentId: required'))
  })

  it('says a query flag takes true or false, where it named the text format the framework checks', async () => {
    test = createTestApp()
    for (const [list, flag] of [
      ['workbooks', 'shared'],
      ['dashboards', 'published'],
    ]) {
      for (const value of ['maybe', '1', '']) {
        const response = await test.request('GET', `/api/v1/deployments/1/${list}?${flag}=${value}`, {
          headers: apiKey(keys.admin),
        })
        expect({ status: response.status, body: await response.json() }).toEqual({
          status: 400,
          body: { error: `query ${flag}: expected true or false`, code: 'VALIDATION_FAILED' },
        })
      }
      const accepted = await test.request('GET', `/api/v1/deployments/1/${list}?${flag}=false`, {
        headers: apiKey(keys.admin),
      })
      expect(accepted.status).toBe(200)
    }
  })

  it('returns 400, not 500, when a failing field is an object with its own toString', async () => {
    test = createTestApp()
    const send = withProbe(test)
    const cases: Array<[string, string]> = [
      ['{"messageId":{"toString":false}}', 'messageId: '],
      ['{"messageId":{"valueOf":1,"toString":{}}}', 'messageId: '],
      ['{"messageId":"1700000000000-message","nested":{"count":{"toString":null}}}', 'nested.count: '],
    ]
    for (const [body, field] of cases) {
      const response = await send('/probe', { method: 'POST', headers: { 'content-type': 'application/json' }, body })
      expect(response.status).toBe(400)
      const answer = (await response.json()) as { error: string; code: string }
      expect(answer.code).toBe('VALIDATION_FAILED')
      expect(answer.error).toStartWith(field)
    }
  })

  it('returns 400 NUL_CHARACTER for the NUL character anywhere in the path, query or body, on every storage', async () => {
    // Postgres cannot hold it in text: each of these reached a query there and failed as a 500.
    test = createTestApp()
    const chat = (account: string, body: object, query = '') =>
      test.request('POST', `/api/v1/public/${account}/agents/1/chat/stream-chat-state${query}`, {
        headers: apiKey(keys.admin),
        body: { input: 'Hello', sessionSettings: { externalId: 'alice' }, ...body },
      })
    const refused = [
      await chat('%00', {}),
      await chat('acme', {}, '?x=%00'),
      await chat('acme', { sessionSettings: { externalId: 'al\u0000ice' } }),
      await chat('acme', { input: 'Hel\u0000lo' }),
      await chat('acme', { sessionSettings: { externalId: 'alice', userAttributes: [{ name: '\u0000', value: 1 }] } }),
    ]
    for (const response of refused) {
      expect(response.status).toBe(400)
      expect(await response.json()).toEqual({
        error: 'Text must not contain the NUL character (U+0000)',
        code: 'NUL_CHARACTER',
      })
    }
    expect((await chat('acme', {})).status).toBe(200)
  })

  it('keeps the data of objects it makes printable, however deep', () => {
    const text = '{"a":[{"toString":false,"valueOf":{"toString":1}}],"b":"x"}'
    const value = JSON.parse(text) as { a: Array<Record<string, unknown>> }
    makePrintable(value)
    expect(JSON.stringify(value)).toBe(text)
    expect(Object.keys(value.a[0])).toEqual(['toString', 'valueOf'])
    expect(`${value.a[0]} ${value.a[0].valueOf}`).toBe('[object Object] [object Object]')
    let deep: unknown = { toString: 0 }
    for (let depth = 0; depth < 100_000; depth++) deep = [deep]
    expect(() => makePrintable(deep)).not.toThrow()
  })

  it('returns 413 for bodies over the configured limit', async () => {
    test = createTestApp({ config: { maxBodyBytes: 2048 } })
    const send = withProbe(test)
    const body = 'x'.repeat(4096)
    const headers = { 'content-type': 'application/json', 'content-length': String(body.length) }
    const response = await send('/probe', { method: 'POST', headers, body })
    expect(response.status).toBe(413)
    expect(await response.json()).toEqual({
      error: 'Request body is larger than 2048 bytes',
      code: 'PAYLOAD_TOO_LARGE',
    })
  })

  it('answers 500 without details for bugs and echoes the request id', async () => {
    test = createTestApp()
    const send = withProbe(test)
    const response = await send('/boom', { headers: { 'x-request-id': 'req-123' } })
    expect(response.status).toBe(500)
    expect(response.headers.get('x-request-id')).toBe('req-123')
    const text = await response.text()
    expect(JSON.parse(text)).toEqual({ error: 'Internal server error', code: 'INTERNAL' })
    expect(text).not.toContain('secret')
  })

  it('counts requests by route and status on /metrics', async () => {
    test = createTestApp()
    await test.request('GET', '/healthz')
    await test.request('GET', '/missing')
    // The access log and metrics are written after the response is handed over.
    await Bun.sleep(10)
    const response = await test.request('GET', '/metrics')
    expect(response.headers.get('content-type')).toContain('text/plain')
    const text = await response.text()
    expect(text).toContain('http_requests_total{method="GET",route="/healthz",status="200"} 1')
    expect(text).toContain('status="404"')
    expect(text).toContain('# TYPE acs_http_request_duration_seconds histogram')
  })

  it('serves the OpenAPI 3.1 document', async () => {
    test = createTestApp()
    const response = await test.request('GET', '/openapi/json')
    expect(response.status).toBe(200)
    const document = (await response.json()) as {
      openapi: string
      components: { securitySchemes: Record<string, unknown> }
    }
    expect(document.openapi).toStartWith('3.1')
    expect(Object.keys(document.components.securitySchemes).sort()).toEqual([
      'ApiKey',
      'EmbedToken',
      'ServiceAuthToken',
    ])
  })
})
