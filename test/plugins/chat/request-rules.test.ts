import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'bun:test'
import { createScriptedAgent, type Script } from '../../../plugins/chat/run/scripted-agent'
import { apiKey, createTestApp, testClock, type TestApp } from '../../helpers/app'
import { storedMessages, threadOwners } from '../../helpers/chat-rows'
import { chatBase, lineReader, messageId, readLines } from '../../helpers/chat'
import { keys, tokenSecrets } from '../../helpers/fixtures'
import { embedSession } from '../../helpers/embed-sessions'
import { gate } from '../../helpers/gates'
import { serviceToken } from '../../helpers/tokens'

let test: TestApp
let script: Script
beforeEach(() => {
  script = { steps: [{ kind: 'text', chunks: ['ok'] }] }
  test = createTestApp({ agents: () => createScriptedAgent(() => script) })
})
afterEach(() => test.close())

const stream = (body: unknown, headers: Record<string, string> = apiKey(keys.admin), base = chatBase()) =>
  test.request('POST', `${base}/stream-chat-state`, { headers, body })

async function expectError(response: Response, status: number, pattern?: RegExp) {
  expect(response.status).toBe(status)
  const body = (await response.json()) as { error: string; code: string }
  expect(body).toEqual({ error: expect.any(String), code: expect.any(String) })
  if (pattern) expect(body.error).toMatch(pattern)
}

describe('POST {chat_base_url}/chat/stream-chat-state before the stream starts', () => {
  it('answers 400 for a messageId that breaks the pattern', async () => {
    for (const bad of ['123-message', '1700000000000', '1700000000000-msg', 'abc1700000000000-message'])
      await expectError(
        await stream({ input: 'x', messageId: bad, sessionSettings: { externalId: 'a' } }),
        400,
        /^messageId: /,
      )
  })

  it('answers 400 for wrong types and malformed JSON', async () => {
    await expectError(await stream({ input: 42, sessionSettings: { externalId: 'a' } }), 400, /^input: /)
    await expectError(
      await stream({ input: 'x', isDefaultBranch: 'yes', sessionSettings: { externalId: 'a' } }),
      400,
      /^isDefaultBranch: /,
    )
    await expectError(
      await stream({ input: 'x', images: [{ data: 'abc' }], sessionSettings: { externalId: 'a' } }),
      400,
      /^images\[0\]\.mimeType: /,
    )
    await expectError(await stream('{"input": '), 400, /JSON/)
  })

  it('answers 400 without sessionSettings when an API key is used', async () => {
    await expectError(await stream({ input: 'x' }), 400, /^sessionSettings: required/)
  })

  it('answers 400 for internalId combined with groups, userAttributes or securityContext', async () => {
    for (const field of ['groups', 'userAttributes', 'securityContext']) {
      const value =
        field === 'groups' ? ['sales'] : field === 'userAttributes' ? [{ name: 'region', value: 'West' }] : { a: 1 }
      const response = await stream({ input: 'x', sessionSettings: { internalId: 'bob', [field]: value } })
      await expectError(response, 400, new RegExp(field))
    }
  })

  it('answers 400 when both or neither of externalId and internalId are given', async () => {
    await expectError(await stream({ input: 'x', sessionSettings: { externalId: 'a', internalId: 'bob' } }), 400)
    await expectError(await stream({ input: 'x', sessionSettings: { email: 'a@b.c' } }), 400)
  })

  it('answers 401 without credentials or with a wrong key, 403 without the right, 404 for unknown account or agent', async () => {
    await expectError(await stream({ input: 'x' }, {}), 401)
    await expectError(await stream({ input: 'x' }, apiKey('ak_wrong_0123456789abcdef')), 401)
    const disabled = await serviceToken(tokenSecrets.deployment1, { sub: 'u', scope: ['chat'] })
    await expectError(await stream({ input: 'x' }, { 'x-service-auth-token': disabled }), 403)
    const noChat = await serviceToken(tokenSecrets.deployment2, { sub: 'u', scope: ['read'] })
    await expectError(await stream({ input: 'x' }, { 'x-service-auth-token': noChat }, chatBase('acme', 2)), 403)
    await expectError(await stream({ input: 'x', sessionSettings: { externalId: 'a' } }, apiKey(keys.scoped)), 403)
    await expectError(
      await stream({ input: 'x', sessionSettings: { externalId: 'a' } }, undefined, chatBase('nobody', 1)),
      404,
    )
    await expectError(
      await stream({ input: 'x', sessionSettings: { externalId: 'a' } }, undefined, chatBase('acme', 99)),
      404,
    )
  })

  it('checks credentials before the body: 401 for a bad body without valid credentials', async () => {
    await expectError(await stream({ input: 42, messageId: 'bad' }, {}), 401)
    await expectError(await stream({ input: 42 }, apiKey('ak_wrong_0123456789abcdef')), 401)
    const generate = await test.request('POST', '/api/v1/embed/generate-session', {
      body: { deploymentId: 'x', unknownField: 1 },
    })
    await expectError(generate, 401)
    const member = await test.request('POST', '/api/v1/embed/generate-session', {
      headers: apiKey(keys.member),
      body: { unknownField: 1 },
    })
    await expectError(member, 403)
  })

  it('answers 400 for images without input, with or without a chatId, since there is no message to attach them to', async () => {
    const images = [{ mimeType: 'image/png', data: 'aGVsbG8=' }]
    await expectError(await stream({ images, sessionSettings: { externalId: 'a' } }), 400, /^images: /)
    const created = await readLines(await stream({ input: 'x', sessionSettings: { externalId: 'a' } }))
    const chatId = (created[0].state as { chatId: string }).chatId
    await expectError(await stream({ chatId, images, sessionSettings: { externalId: 'a' } }), 400, /^images: /)
  })

  it('answers an absent body under an API key with 400 for the missing sessionSettings, not 500', async () => {
    const response = await test.request('POST', `${chatBase()}/stream-chat-state`, { headers: apiKey(keys.admin) })
    await expectError(response, 400)
  })
})

describe('POST {chat_base_url}/chat/stream-chat-state message ids', () => {
  it('gives each turn without a messageId an id of its own, also within one millisecond', async () => {
    const clock = testClock()
    const timed = createTestApp({ clock, agents: () => createScriptedAgent(() => script) })
    try {
      const ids: string[] = []
      for (let index = 0; index < 3; index++) {
        const lines = await readLines(
          await timed.request('POST', `${chatBase()}/stream-chat-state`, {
            headers: apiKey(keys.admin),
            body: { input: `Question ${index}`, sessionSettings: { externalId: 'same-ms' } },
          }),
        )
        ids.push(lines[1].id!)
      }
      expect(ids).toEqual([clock(), clock() + 1, clock() + 2].map((ms) => `${ms}-message`))
    } finally {
      await timed.close()
    }
  })
})

describe('POST {chat_base_url}/chat/stream-chat-state with the messageId of another thread', () => {
  const user = { externalId: 'two-threads' }
  const newThread = async (input: string) => {
    const lines = await readLines(await stream({ input, sessionSettings: user }))
    return (lines[0].state as { chatId: string }).chatId
  }

  it('joins the run of that message in the other thread while it runs, and answers it from there once finished', async () => {
    const idle = await newThread('An idle thread')
    const hold = gate()
    onTestFinished(() => hold.open())
    script = { steps: [{ kind: 'text', chunks: ['Partial ', 'answer'], hold: { after: 1, until: hold.promise } }] }
    const original = lineReader(
      await stream({ input: 'Busy question', messageId: messageId(7), sessionSettings: user }),
    )
    const cutoff = (await original.next())!
    const busy = (cutoff.state as { chatId: string }).chatId
    const echo = (await original.next())!
    // The same message named with the idle thread's chatId: the run it belongs to, not a busy thread or a new run.
    const joined = lineReader(
      await stream({ chatId: idle, input: 'Busy question', messageId: messageId(7), sessionSettings: user }),
    )
    expect((await joined.next())!.state).toEqual({ chatId: busy, isStreaming: true })
    hold.open()
    const rest = await original.rest()
    expect(await joined.rest()).toEqual([echo, ...rest])
    // Finished: answered from its thread, and the idle thread gets no second copy of it.
    const again = await readLines(
      await stream({ chatId: idle, input: 'Busy question', messageId: messageId(7), sessionSettings: user }),
    )
    expect(again.map((line) => line.id)).toEqual(['__cutoff__', '__state__'])
    expect(again[0].state).toEqual({ chatId: busy, isStreaming: false })
    const idleThread = await readLines(await stream({ chatId: idle, sessionSettings: user }))
    expect((idleThread.at(-1)!.state as { messages: unknown[] }).messages).toHaveLength(2)
  })

  it('answers a messageId of no run and no answer, without input or chatId, with a new empty thread', async () => {
    const lines = await readLines(await stream({ messageId: messageId(8), sessionSettings: user }))
    expect(lines.map((line) => line.id)).toEqual(['__cutoff__', '__state__'])
    expect(lines[1].state).toEqual({ messages: [] })
  })
})

describe('POST {chat_base_url}/chat/stream-chat-state without input or chatId', () => {
  it('creates an empty thread: __cutoff__ with its new chatId, then __state__ without messages', async () => {
    const lines = await readLines(await stream({ sessionSettings: { externalId: 'starter' } }))
    expect(lines).toEqual([
      { id: '__cutoff__', sort: 0, state: { chatId: expect.any(String), isStreaming: false } },
      { id: '__state__', sort: 1, state: { messages: [] } },
    ])
    const chatId = (lines[0].state as { chatId: string }).chatId
    // The thread is stored: it reads back empty, takes its first message, and stays its user's alone.
    const read = await readLines(await stream({ chatId, sessionSettings: { externalId: 'starter' } }))
    expect(read).toEqual(lines)
    const turn = await readLines(await stream({ chatId, input: 'Hello', sessionSettings: { externalId: 'starter' } }))
    expect(turn[0].state).toEqual({ chatId, isStreaming: false })
    expect(turn[1]).toMatchObject({ role: 'user', content: 'Hello', sort: 1 })
    expect(turn.at(-1)!.id).toBe('__state__')
    const foreign = await readLines(await stream({ chatId, sessionSettings: { externalId: 'someone-else' } }))
    expect(foreign).toEqual([{ error: `Chat ${chatId} not found` }])
  })

  it('gives a new thread to a request without a body under an embed token, as the body is optional', async () => {
    const { token } = await embedSession(test, 'embedded-starter')
    const response = await test.request('POST', `${chatBase()}/stream-chat-state`, {
      headers: { authorization: `Embed-Token ${token}` },
    })
    expect(response.status).toBe(200)
    const lines = await readLines(response)
    expect(lines.map((line) => line.id)).toEqual(['__cutoff__', '__state__'])
    expect(lines[1].state).toEqual({ messages: [] })
  })
})

describe('POST {chat_base_url}/chat/stream-chat-state identities', () => {
  it('chats as the service token user and keeps the thread theirs', async () => {
    const token = await serviceToken(tokenSecrets.deployment2, { externalId: 'token-user', scope: ['chat'] })
    const response = await stream(
      { input: 'Hi', messageId: messageId(1) },
      { 'x-service-auth-token': token },
      chatBase('acme', 2),
    )
    expect(response.headers.get('content-type')).toBe('application/json')
    const lines = await readLines(response)
    expect(lines.at(-1)?.id).toBe('__state__')
    const [owner] = await threadOwners(test.storage)
    expect(owner).toEqual({ identity: 'token-user', kind: 'external' })
    const chatId = (lines[0].state as { chatId: string }).chatId
    const other = await serviceToken(tokenSecrets.deployment2, { sub: 'someone-else', scope: ['chat'] })
    const denied = await readLines(await stream({ chatId }, { 'x-service-auth-token': other }, chatBase('acme', 2)))
    expect(denied).toEqual([{ error: `Chat ${chatId} not found` }])
  })

  it('holds sessionSettings to its rules under a service token too, though the token names the user', async () => {
    const token = await serviceToken(tokenSecrets.deployment2, { sub: 'token-user', scope: ['chat'] })
    const headers = { 'x-service-auth-token': token }
    for (const sessionSettings of [
      { internalId: 'alice@acme.com', groups: ['sales'] },
      { externalId: 'a', internalId: 'b' },
      { externalId: 'UPPER' },
      {},
    ]) {
      const response = await stream({ input: 'x', sessionSettings }, headers, chatBase('acme', 2))
      expect([sessionSettings, response.status]).toEqual([sessionSettings, 400])
    }
    const lines = await readLines(
      await stream({ input: 'x', sessionSettings: { externalId: 'someone' } }, headers, chatBase('acme', 2)),
    )
    expect(lines.at(-1)?.id).toBe('__state__')
    expect((await threadOwners(test.storage))[0]).toEqual({ identity: 'token-user', kind: 'external' })
  })

  it('chats as an existing internal user, with an email beside internalId, which is allowed and ignored', async () => {
    const sessionSettings = { internalId: ' Alice@ACME.com ', email: 'alice@example.com', roles: ['x'] }
    const lines = await readLines(await stream({ input: 'Hi', sessionSettings }))
    expect(lines.at(-1)?.id).toBe('__state__')
    const [owner] = await threadOwners(test.storage)
    expect(owner).toEqual({ identity: 'alice@acme.com', kind: 'internal' })
  })

  it('commits the user message before the first assistant line goes out', async () => {
    const hold = gate()
    script = {
      steps: [
        { kind: 'wait', until: hold.promise },
        { kind: 'text', chunks: ['late'] },
      ],
    }
    const response = await stream({
      input: 'Stored first?',
      messageId: messageId(5),
      sessionSettings: { externalId: 'a' },
    })
    const reader = lineReader(response)
    await reader.next()
    const echo = await reader.next()
    expect(echo?.id).toBe(messageId(5))
    const stored = (await storedMessages(test.storage, 'user')).map(({ content }) => ({ content }))
    expect(stored).toEqual([{ content: 'Stored first?' }])
    expect(await storedMessages(test.storage, 'assistant')).toEqual([])
    hold.open()
    expect((await reader.rest()).at(-1)?.id).toBe('__state__')
  })
})
