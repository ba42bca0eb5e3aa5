import { afterEach, beforeEach, describe, expect, it } from 'bun:test'
import { createScriptedAgent, type Script } from '../../../plugins/chat/run/scripted-agent'
import { apiKey, createTestApp, type TestApp } from '../../helpers/app'
import { storedMessages, storedRuns } from '../../helpers/chat-rows'
import { chatBase, messageId, type Line } from '../../helpers/chat'
import { keys } from '../../helpers/fixtures'
import { gate } from '../../helpers/gates'
import { listen } from '../../helpers/transports'

let test: TestApp
let script: Script
let origin: string
beforeEach(() => {
  script = { steps: [{ kind: 'text', chunks: ['Hello'] }] }
  test = createTestApp({ agents: () => createScriptedAgent(() => script) })
  origin = `ws://127.0.0.1:${listen(test.app).port}`
})
afterEach(async () => {
  await test.app.stop(true)
  await test.close()
})

/** A socket of user `a` whose turn sends `first`, then holds until `hold` opens and sends `rest`. */
async function heldTurn(first: string, rest: string) {
  const hold = gate()
  script = { steps: [{ kind: 'text', chunks: [first, rest], hold: { after: 1, until: hold.promise } }] }
  const client = await connect()
  client.send({ input: 'Slow', sessionSettings: { externalId: 'a' } })
  await client.waitFor((line) => line.content === first)
  return { hold, client }
}

/** A socket that collects every line it receives. */
async function connect(headers: Record<string, string> = apiKey(keys.admin), path = `${chatBase()}/ws`) {
  const socket = new WebSocket(`${origin}${path}`, { headers } as never)
  const lines: Line[] = []
  let notify: (() => void) | undefined
  socket.onmessage = (event) => {
    lines.push(JSON.parse(String(event.data)))
    notify?.()
  }
  await new Promise<void>((resolve, reject) => {
    socket.onopen = () => resolve()
    socket.onerror = () => reject(new Error('failed to open'))
  })
  return {
    socket,
    lines,
    send: (value: unknown) => socket.send(typeof value === 'string' ? value : JSON.stringify(value)),
    /** Resolves when `count` lines matching `predicate` have arrived. */
    async waitFor(predicate: (line: Line) => boolean, count = 1) {
      while (lines.filter(predicate).length < count) await new Promise<void>((resolve) => (notify = resolve))
    },
  }
}

const ended = (line: Line) => line.id === '__state__' || 'error' in line

describe('GET {chat_base_url}/chat/ws', () => {
  it('runs many turns on one socket, each ending with __state__', async () => {
    const client = await connect()
    client.send({ input: 'First', messageId: messageId(1), sessionSettings: { externalId: 'a' } })
    await client.waitFor(ended)
    const chatId = (client.lines[0].state as { chatId: string }).chatId
    client.send({ chatId, input: 'Second', messageId: messageId(2), sessionSettings: { externalId: 'a' } })
    await client.waitFor(ended, 2)
    const states = client.lines.filter((line) => line.id === '__state__')
    expect((states[1].state as { messages: Line[] }).messages.map((message) => message.content)).toEqual([
      'First',
      'Hello',
      'Second',
      'Hello',
    ])
    expect(client.lines.filter((line) => line.id === '__cutoff__')).toHaveLength(2)
    client.socket.close()
  })

  it('answers 426 UPGRADE_REQUIRED to a plain GET of its address, and still upgrades a WebSocket there', async () => {
    const plain = await test.request('GET', `${chatBase()}/ws`, { headers: apiKey(keys.admin) })
    expect(plain.status).toBe(426)
    expect(await plain.json()).toEqual({
      error: 'This is the chat WebSocket: open it with a WebSocket upgrade',
      code: 'UPGRADE_REQUIRED',
    })
    const client = await connect()
    client.send({ input: 'Still a socket', sessionSettings: { externalId: 'a' } })
    await client.waitFor(ended)
    expect(client.lines.at(-1)?.id).toBe('__state__')
    client.socket.close()
  })

  it('answers invalid messages with an error line and keeps the socket open', async () => {
    const client = await connect()
    client.send('not json')
    client.send({ input: 5 })
    client.send({ input: 'x', messageId: 'bad' })
    client.send({ input: 'x' })
    await client.waitFor((line) => 'error' in line, 4)
    expect(client.lines.map((line) => line.error)).toEqual([
      'Malformed message: expected one JSON chat request',
      expect.stringMatching(/^input: /),
      expect.stringMatching(/^messageId: /),
      expect.stringMatching(/^sessionSettings: required/),
    ])
    client.send({ input: 'Valid now', sessionSettings: { externalId: 'a' } })
    await client.waitFor((line) => line.id === '__state__')
    expect(client.socket.readyState).toBe(WebSocket.OPEN)
    client.socket.close()
  })

  it('answers a message that is JSON but no object as HTTP answers such a body, naming no internal path', async () => {
    const client = await connect()
    for (const message of ['null', '5', '[]', 'true', '[{"type":"abort"}]']) client.send(message)
    await client.waitFor((line) => 'error' in line, 5)
    expect(client.lines).toEqual(Array(5).fill({ error: 'Invalid message: expected object' }))
    client.socket.close()
  })

  it('closes with 1009 for a message over the body limit, as HTTP answers 413', async () => {
    const limit = test.deps.config.maxBodyBytes
    const client = await connect()
    const closed = new Promise<number>((resolve) => (client.socket.onclose = (event) => resolve(event.code)))
    client.send({ input: 'x'.repeat(limit), sessionSettings: { externalId: 'a' } })
    expect(await closed).toBe(1009)
    expect(client.lines).toEqual([])
    // At the limit itself, a message is read (and this one refused for its input's length, on an open socket).
    const next = await connect()
    const body = JSON.stringify({ input: '', sessionSettings: { externalId: 'a' } })
    next.send(body.replace('""', `"${'x'.repeat(limit - body.length)}"`))
    await next.waitFor((line) => 'error' in line)
    expect(next.socket.readyState).toBe(WebSocket.OPEN)
    next.socket.close()
  })

  it('aborts the current run when the client asks', async () => {
    const { client } = await heldTurn('Partial', ' never')
    client.send({ type: 'abort' })
    await client.waitFor(ended)
    expect(client.lines.at(-1)).toEqual({ error: 'Run aborted' })
    expect(
      (await storedMessages(test.storage, 'assistant')).map(({ content, status }) => ({ content, status })),
    ).toEqual([{ content: 'Partial', status: 'interrupted' }])
    client.socket.close()
  })

  it('answers an upgrade it cannot complete with the JSON error body: 426 for another version, 400 for a bad key', async () => {
    const upgrade = (headers: Record<string, string>) =>
      fetch(`${origin.replace('ws:', 'http:')}${chatBase()}/ws`, {
        headers: { ...apiKey(keys.admin), connection: 'Upgrade', upgrade: 'websocket', ...headers },
      })
    const key = 'dGhlIHNhbXBsZSBub25jZQ=='
    const old = await upgrade({ 'sec-websocket-version': '8', 'sec-websocket-key': key })
    expect(old.status).toBe(426)
    expect(old.headers.get('sec-websocket-version')).toBe('13')
    expect(await old.json()).toMatchObject({ code: 'UNSUPPORTED_WEBSOCKET_VERSION' })
    const badKeys: Array<Record<string, string>> = [
      { 'sec-websocket-version': '13' },
      { 'sec-websocket-version': '13', 'sec-websocket-key': 'x' },
    ]
    for (const headers of badKeys) {
      const refused = await upgrade(headers)
      expect({ status: refused.status, type: refused.headers.get('content-type') }).toEqual({
        status: 400,
        type: 'application/json; charset=utf-8',
      })
      expect(await refused.json()).toMatchObject({ code: 'INVALID_WEBSOCKET_HANDSHAKE' })
    }
  })

  it('aborts a run asked for in the same breath as its request, before its turn has opened', async () => {
    const hold = gate()
    script = { steps: [{ kind: 'text', chunks: ['Partial', ' never'], hold: { after: 1, until: hold.promise } }] }
    const client = await connect()
    client.send({ input: 'Slow', sessionSettings: { externalId: 'a' } })
    client.send({ type: 'abort' })
    await client.waitFor(ended)
    expect(client.lines.at(-1)).toEqual({ error: 'Run aborted' })
    expect(client.lines.filter((line) => 'error' in line)).toHaveLength(1)
    expect(await storedRuns(test.storage)).toEqual([{ status: 'aborted', error: 'Run aborted' }])
    client.socket.close()
  })

  it('tells a failed abort after the turn in progress ends, never among its lines', async () => {
    const { hold, client } = await heldTurn('Partial', ' done')
    client.send({ type: 'abort', chatId: 'no-such-chat' })
    client.send({ type: 'abort', chatId: 5 })
    await Bun.sleep(50)
    expect(client.lines.some((line) => 'error' in line)).toBe(false)
    hold.open()
    await client.waitFor((line) => 'error' in line, 2)
    const ids = client.lines.map((line) => line.id ?? line.error)
    // Both after the turn's __state__; between themselves in the order they were decided (the unknown chat is
    // looked up in the storage, the malformed one is refused at once).
    const after = ids.slice(ids.indexOf('__state__'))
    expect(after[0]).toBe('__state__')
    expect(after.slice(1).sort()).toEqual(['Chat no-such-chat not found', expect.stringMatching(/^chatId/)])
    client.socket.close()
  })

  it('aborts as the user the abort message names: another user’s run is refused and goes on', async () => {
    const { hold, client: owner } = await heldTurn('Partial', ' done')
    const chatId = (owner.lines[0].state as { chatId: string }).chatId
    await test.request('POST', `${chatBase()}/stream-chat-state`, {
      headers: apiKey(keys.admin),
      body: { input: 'Hello', sessionSettings: { externalId: 'b' } },
    })

    // A second socket of the same API key, naming user b: b does not own a's thread (403 over HTTP too).
    const other = await connect()
    other.send({ type: 'abort', chatId, sessionSettings: { externalId: 'b' } })
    await other.waitFor((line) => 'error' in line)
    expect(other.lines).toEqual([{ error: 'This chat belongs to another user' }])
    other.send({ type: 'abort', chatId, sessionSettings: 5 })
    await other.waitFor((line) => 'error' in line, 2)
    expect(other.lines[1].error).toMatch(/^sessionSettings/)
    hold.open()
    await owner.waitFor(ended)
    expect(owner.lines.at(-1)?.id).toBe('__state__')

    // Naming the owner, the same message stops the owner's next run.
    const again = gate()
    script = { steps: [{ kind: 'text', chunks: ['More', ' never'], hold: { after: 1, until: again.promise } }] }
    owner.send({ chatId, input: 'Again', sessionSettings: { externalId: 'a' } })
    await owner.waitFor((line) => line.content === 'More')
    other.send({ type: 'abort', chatId, sessionSettings: { externalId: 'a' } })
    await owner.waitFor(ended, 2)
    expect(owner.lines.at(-1)).toEqual({ error: 'Run aborted' })
    owner.socket.close()
    other.socket.close()
  })

  it("answers a message over the key's request rate with an error line, as HTTP answers 429, and stays open", async () => {
    await test.app.stop(true)
    await test.close()
    let now = Date.UTC(2026, 6, 20, 12, 0, 0)
    // The upgrade and each turn are a request of the key: a burst of 2 lets the upgrade and one turn through.
    test = createTestApp({
      agents: () => createScriptedAgent(() => script),
      config: { apiKeyRateLimit: { perSecond: 1, burst: 2 } },
      clock: () => now,
    })
    origin = `ws://127.0.0.1:${listen(test.app).port}`
    const client = await connect()
    const request = { input: 'Hi', sessionSettings: { externalId: 'a' } }
    client.send(request)
    client.send(request)
    await client.waitFor(ended, 2)
    expect(client.lines.filter(ended)).toEqual([
      expect.objectContaining({ id: '__state__' }),
      { error: 'Too many requests for this API key; retry in 1 s' },
    ])
    expect(client.socket.readyState).toBe(WebSocket.OPEN)
    now += 1_000
    client.send(request)
    await client.waitFor(ended, 3)
    expect(client.lines.filter(ended).at(-1)).toEqual(expect.objectContaining({ id: '__state__' }))
    client.socket.close()
  })

  it('holds at most 16 requests waiting behind a turn: one more gets an error line in its turn', async () => {
    const { hold, client } = await heldTurn('A', 'B')
    for (let index = 0; index < 18; index++) client.send({ input: `Q${index}`, sessionSettings: { externalId: 'b' } })
    await Bun.sleep(20)
    hold.open()
    await client.waitFor(ended, 19)
    const ends = client.lines.filter(ended)
    expect(ends.slice(0, 17).every((line) => line.id === '__state__')).toBe(true)
    expect(ends.slice(17)).toEqual(
      Array(2).fill({ error: 'Too many requests waiting on this socket (16): send the next once a turn has ended' }),
    )
    expect(client.socket.readyState).toBe(WebSocket.OPEN)
    client.socket.close()
  })

  it('closes a socket that floods it with over a thousand messages waiting (1008), and the run goes on', async () => {
    const { hold, client } = await heldTurn('A', 'B')
    const closed = new Promise<number>((resolve) => (client.socket.onclose = (event) => resolve(event.code)))
    for (let index = 0; index < 1_100; index++) client.send('not json')
    expect(await closed).toBe(1008)
    hold.open()
    const completed = async () => (await storedRuns(test.storage)).filter((run) => run.status === 'completed').length
    for (let index = 0; index < 200 && (await completed()) === 0; index++) await Bun.sleep(5)
    expect(await completed()).toBe(1)
  })

  it('keeps the run going when the socket closes', async () => {
    const { hold, client } = await heldTurn('A', 'B')
    client.socket.close()
    await Bun.sleep(20)
    hold.open()
    const completed = async () => (await storedRuns(test.storage)).filter((run) => run.status === 'completed').length
    for (let index = 0; index < 200 && (await completed()) === 0; index++) await Bun.sleep(5)
    expect((await storedMessages(test.storage, 'assistant')).map(({ content }) => ({ content }))).toEqual([
      { content: 'AB' },
    ])
  })

  it('refuses the upgrade without credentials (401)', async () => {
    const response = await fetch(`${origin.replace('ws', 'http')}${chatBase()}/ws`, {
      headers: {
        upgrade: 'websocket',
        connection: 'Upgrade',
        'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
        'sec-websocket-version': '13',
      },
    })
    expect(response.status).toBe(401)
    expect(((await response.json()) as { code: string }).code).toBe('MISSING_CREDENTIALS')
  })
})
