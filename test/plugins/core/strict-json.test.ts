import { afterEach, describe, expect, it } from 'bun:test'
import { apiKey, createTestApp, type TestApp } from '../../helpers/app'
import { keys } from '../../helpers/fixtures'

let test: TestApp
afterEach(() => test?.close())

const admin = apiKey(keys.admin)
const json = { 'content-type': 'application/json' }
const CHAT = '/api/v1/public/acme/agents/1/chat'

async function answer(response: Response) {
  return { status: response.status, body: await response.json() }
}

describe('JSON request bodies', () => {
  it('refuses a body that is not an object, also where every field is optional', async () => {
    test = createTestApp()
    const folder = await test.request('POST', '/api/v1/deployments/1/folders', { headers: admin, body: { name: 'F' } })
    const { id, updatedAt } = await folder.json()
    for (const sent of ['[]', '5', 'null', '"text"', 'true']) {
      const response = await test.request('PATCH', `/api/v1/deployments/1/folders/${id}`, {
        headers: { ...admin, ...json },
        body: sent,
      })
      expect(await answer(response)).toEqual({
        status: 400,
        body: { error: 'Invalid request body: expected object', code: 'VALIDATION_FAILED' },
      })
    }
    const report = await test.request('POST', '/api/v1/deployments/1/reports', {
      headers: admin,
      body: { name: 'R', query: 'SELECT MEASURE(orders.count) FROM orders' },
    })
    expect(report.status).toBe(201)
    const patched = await test.request('PATCH', `/api/v1/deployments/1/reports/${(await report.json()).id}`, {
      headers: { ...admin, ...json },
      body: '5',
    })
    expect(patched.status).toBe(400)
    // An optional body may be absent, but a body that is there must be an object.
    const duplicate = await test.request('POST', '/api/v1/deployments/1/workbooks/1/duplicate', {
      headers: { ...admin, ...json },
      body: '5',
    })
    expect(duplicate.status).toBe(400)
    // Nothing was written by the refused updates.
    const read = await test.request('GET', `/api/v1/deployments/1/folders/${id}`, { headers: admin })
    expect((await read.json()).updatedAt).toBe(updatedAt)
  })

  it('refuses unknown fields on management writes instead of dropping them', async () => {
    test = createTestApp()
    const folder = await test.request('POST', '/api/v1/deployments/1/folders', { headers: admin, body: { name: 'F' } })
    const { id } = await folder.json()
    const typo = await test.request('PATCH', `/api/v1/deployments/1/folders/${id}`, {
      headers: admin,
      body: { nmae: 'G' },
    })
    expect(await answer(typo)).toEqual({ status: 400, body: { error: 'nmae: unknown field', code: 'UNKNOWN_FIELD' } })
    const config = await test.request('PATCH', '/api/v1/app-config', {
      headers: admin,
      body: { applyThemeGloballyy: true },
    })
    expect(await answer(config)).toEqual({
      status: 400,
      body: { error: 'applyThemeGloballyy: unknown field', code: 'UNKNOWN_FIELD' },
    })
    const abort = await test.request('POST', `${CHAT}/abort`, { headers: admin, body: { chatId: 'x', force: true } })
    expect(await answer(abort)).toEqual({ status: 400, body: { error: 'force: unknown field', code: 'UNKNOWN_FIELD' } })
    // Inside one of several shapes (a recipient is a console user or an embed user): named, not "expected union".
    const notification = await test.request('POST', '/api/v1/deployments/1/notifications', {
      headers: admin,
      body: {
        dashboardPublicId: 'x',
        name: 'N',
        schedule: { frequency: 'daily', timeOfDay: '08:00' },
        recipients: [{ kind: 'user', email: 'a@example.com', foo: 1 }],
      },
    })
    expect(await answer(notification)).toEqual({
      status: 400,
      body: { error: 'recipients[0].foo: unknown field', code: 'UNKNOWN_FIELD' },
    })
  })

  it('reads JSON whatever the content type says, and refuses form bodies as malformed JSON', async () => {
    test = createTestApp()
    const untyped = await test.request('POST', '/api/v1/deployments/1/folders', {
      headers: { ...admin, 'content-type': 'text/plain' },
      body: '{"name":"plain"}',
    })
    expect(untyped.status).toBe(201)
    const malformed = { error: 'Malformed request body: expected valid JSON', code: 'MALFORMED_JSON' }
    const form = await test.request('POST', '/api/v1/deployments/1/folders', {
      headers: { ...admin, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'name=form',
    })
    expect(await answer(form)).toEqual({ status: 400, body: malformed })
    const sql = await test.request('POST', '/api/v1/deployments/1/sql', {
      headers: { ...admin, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'query=SELECT+1',
    })
    expect(await answer(sql)).toEqual({ status: 400, body: malformed })
  })

  it('generate-session requires Content-Type: application/json', async () => {
    test = createTestApp()
    const body = JSON.stringify({ deploymentId: 1, externalId: 'typed' })
    for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
      const response = await test.request('POST', '/api/v1/embed/generate-session', {
        headers: { ...admin, 'content-type': type },
        body,
      })
      expect(await answer(response)).toEqual({
        status: 400,
        body: { error: 'Content-Type must be application/json', code: 'UNSUPPORTED_CONTENT_TYPE' },
      })
    }
    const typed = await test.request('POST', '/api/v1/embed/generate-session', {
      headers: { ...admin, 'content-type': 'application/json; charset=utf-8' },
      body,
    })
    expect(typed.status).toBe(200)
  })

  it('answers credentials before the body: 401 and 403 whatever was sent', async () => {
    test = createTestApp()
    const cases: Array<[string, string, Record<string, string>, number]> = [
      ['POST', '/api/v1/embed/generate-session', {}, 401],
      ['POST', '/api/v1/embed/generate-session', apiKey(keys.member), 403],
      ['POST', '/api/v1/embed/session/revoke', {}, 401],
      ['POST', `${CHAT}/stream-chat-state`, {}, 401],
      ['POST', `${CHAT}/stream-chat-state`, apiKey('ak_test_wrong_0123456789'), 401],
      ['POST', `${CHAT}/abort`, {}, 401],
      ['POST', '/api/v1/deployments/1/sql', {}, 401],
      ['PATCH', '/api/v1/deployments/1/folders/1', {}, 401],
      ['POST', '/api/v1/deployments/1/folders', apiKey(keys.scoped), 403],
      // The deletes take no body: whatever is sent is not read, before or after the credentials.
      ['DELETE', '/api/v1/deployments/1/folders/1', {}, 401],
      ['DELETE', '/api/v1/deployments/1/reports/1', apiKey('ak_test_wrong_0123456789'), 401],
      ['DELETE', '/api/v1/embed-tenants/tenant-a/groups/1', {}, 401],
      ['DELETE', '/api/v1/embed-tenants/tenant-a', apiKey(keys.member), 403],
    ]
    for (const [method, path, headers, status] of cases)
      for (const body of ['{', '[]', '{"unknown":1}', '{"name":"nul \\u0000"}']) {
        const response = await test.request(method, path, { headers: { ...headers, ...json }, body })
        expect({ method, path, body, status: response.status }).toEqual({ method, path, body, status })
      }
    // With them, the NUL character is refused as ever.
    const nul = await test.request('POST', '/api/v1/deployments/1/folders', {
      headers: { ...admin, ...json },
      body: '{"name":"nul \\u0000"}',
    })
    expect((await answer(nul)).body.code).toBe('NUL_CHARACTER')
    // With them, a delete's body is ignored, as it is without them (a malformed one too).
    const folder = await test.request('POST', '/api/v1/deployments/1/folders', { headers: admin, body: { name: 'G' } })
    const deleted = await test.request('DELETE', `/api/v1/deployments/1/folders/${(await folder.json()).id}`, {
      headers: { ...admin, ...json },
      body: '{"name":"nul \\u0000"',
    })
    expect(deleted.status).toBe(204)
    // Without credentials to check first, the body's fault is told at once.
    const exchange = await test.request('POST', '/api/v1/embed/session/token', { headers: json, body: '{' })
    expect((await answer(exchange)).body.code).toBe('MALFORMED_JSON')
  })

  it('refuses a body nested deeper than 64 levels with 400, however deep (validation would run out of stack)', async () => {
    test = createTestApp()
    const deep = (levels: number) => '['.repeat(levels) + ']'.repeat(levels)
    const tooDeep = { error: 'Request body is nested deeper than 64 levels', code: 'BODY_TOO_DEEP' }
    for (const [method, path] of [
      ['POST', `${CHAT}/stream-chat-state`],
      ['POST', `${CHAT}/abort`],
      ['POST', '/api/v1/embed/generate-session'],
      ['POST', '/api/v1/deployments/1/sql'],
    ]) {
      const response = await test.request(method, path, { headers: { ...admin, ...json }, body: deep(50_000) })
      expect({ path, ...(await answer(response)) }).toEqual({ path, status: 400, body: tooDeep })
    }
    // Deep inside a field, too; brackets inside strings do not count.
    const nested = (levels: number): unknown => (levels === 0 ? 'leaf [[[[' : { a: nested(levels - 1) })
    const body = (levels: number) => ({
      input: 'Hello ' + '['.repeat(200),
      sessionSettings: { externalId: 'deep', securityContext: nested(levels) },
    })
    const refused = await test.request('POST', `${CHAT}/stream-chat-state`, { headers: admin, body: body(70) })
    expect(await answer(refused)).toEqual({ status: 400, body: tooDeep })
    const accepted = await test.request('POST', `${CHAT}/stream-chat-state`, { headers: admin, body: body(60) })
    expect(accepted.status).toBe(200)
    await accepted.text()
  })

  it('keeps the chat stream lenient about unknown fields', async () => {
    test = createTestApp()
    const response = await test.request('POST', `${CHAT}/stream-chat-state`, {
      headers: admin,
      body: { input: 'How many orders?', sessionSettings: { externalId: 'u1' }, clientVersion: '2.1' },
    })
    expect(response.status).toBe(200)
    const lines = (await response.text()).trim().split('\n')
    expect(JSON.parse(lines.at(-1)!).id).toBe('__state__')
    // Also fields named like an Object.prototype member, which the schema's own cleaning took for known ones.
    const named = await test.request('POST', `${CHAT}/stream-chat-state`, {
      headers: { ...admin, ...json },
      body: '{"input":"How many orders?","toString":1,"__proto__":{"x":1},"sessionSettings":{"externalId":"u1","constructor":2,"valueOf":"v"}}',
    })
    expect(named.status).toBe(200)
    expect(JSON.parse((await named.text()).trim().split('\n').at(-1)!).id).toBe('__state__')
  })
})

describe('text a request cannot be stored as', () => {
  const bytes = (...parts: Array<string | number[]>) =>
    new Uint8Array(parts.flatMap((part) => (typeof part === 'string' ? [...new TextEncoder().encode(part)] : part)))
  const send = (path: string, body: Uint8Array<ArrayBuffer>) =>
    test.app.handle(new Request(`http://localhost${path}`, { method: 'POST', headers: { ...admin, ...json }, body }))

  it('refuses a body that is not UTF-8 instead of reading its bytes as U+FFFD, where two ids would be one user', async () => {
    test = createTestApp()
    await test.ready
    for (const invalid of [[0xff, 0xfe], [0xfe, 0xff], [0xc3]]) {
      const minted = await send(
        '/api/v1/embed/generate-session',
        bytes('{"deploymentId":1,"externalId":"', invalid, '"}'),
      )
      expect(await answer(minted)).toEqual({
        status: 400,
        body: { error: 'Malformed request body: expected JSON in UTF-8', code: 'MALFORMED_JSON' },
      })
      const chat = await send(
        `${CHAT}/stream-chat-state`,
        bytes('{"input":"Hi","sessionSettings":{"externalId":"', invalid, '"}}'),
      )
      expect(chat.status).toBe(400)
    }
    // The same text well-formed (U+FFFD itself, sent as UTF-8) is an id like any other.
    const replaced = await send('/api/v1/embed/generate-session', bytes('{"deploymentId":1,"externalId":"\uFFFD"}'))
    expect(replaced.status).toBe(200)
  })

  it('refuses an unpaired surrogate in any field, naming where, and stores nothing', async () => {
    test = createTestApp()
    const folder = await test.request('POST', '/api/v1/deployments/1/folders', {
      headers: admin,
      body: { name: 'Team \uD800' },
    })
    expect(await answer(folder)).toEqual({
      status: 400,
      body: { error: 'Text must be well-formed Unicode: name has an unpaired surrogate', code: 'UNPAIRED_SURROGATE' },
    })
    const minted = await test.request('POST', '/api/v1/embed/generate-session', {
      headers: admin,
      body: { deploymentId: 1, externalId: 'ok-user', groups: ['sales', 'team\uDBFF'] },
    })
    expect((await answer(minted)).body.error).toBe(
      'Text must be well-formed Unicode: groups[1] has an unpaired surrogate',
    )
    const key = await test.request('POST', '/api/v1/deployments/1/folders', {
      headers: { ...admin, ...json },
      body: '{"name":"F","\\udc00":1}',
    })
    expect(await answer(key)).toMatchObject({ status: 400, body: { code: 'UNPAIRED_SURROGATE' } })
    const folders = await test.request('GET', '/api/v1/deployments/1/folders', { headers: admin })
    expect((await folders.json()).items).toEqual([])
    // The chat's question is free text: it is stored, and echoed, with U+FFFD in its place.
    const chat = await test.request('POST', `${CHAT}/stream-chat-state`, {
      headers: admin,
      body: { input: 'Hi \uD800', sessionSettings: { externalId: 'ok-user', securityContext: { team: 'a\uD800' } } },
    })
    expect((await answer(chat)).body.error).toBe(
      'Text must be well-formed Unicode: sessionSettings.securityContext.team has an unpaired surrogate',
    )
  })
})
