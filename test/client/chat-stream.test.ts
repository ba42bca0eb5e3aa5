import { describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import {
  ChatConnectionError,
  createPlatformClient,
  finalAnswerOf,
  mergeLine,
  readNdjson,
  type ChatMessage,
  type FetchLike,
  type StreamLine,
} from '../../client'

const encoder = new TextEncoder()

/** A body that delivers `chunks` and then ends, or breaks (a dropped connection) when `breakAfter` is set. */
function body(chunks: string[], options: { breakAfter?: boolean } = {}): ReadableStream<Uint8Array> {
  let index = 0
  return new ReadableStream({
    pull(controller) {
      if (index < chunks.length) controller.enqueue(encoder.encode(chunks[index++]))
      else if (options.breakAfter) controller.error(new TypeError('network connection lost'))
      else controller.close()
    },
  })
}

const ndjson = (lines: StreamLine[]) => lines.map((line) => `${JSON.stringify(line)}\n`).join('')

const assistant = (id: string, content: string, extra: Partial<ChatMessage> = {}): StreamLine => ({
  id,
  role: 'assistant',
  content,
  isDelta: false,
  isInProcess: true,
  sort: 2,
  graphPath: ['analyst'],
  ...extra,
})

/** The lines of one turn: cutoff, user echo, an analyst message, a tool call, the final answer in deltas, state. */
function turn(messageId: string): StreamLine[] {
  const user: ChatMessage = {
    id: messageId,
    role: 'user',
    content: 'Orders by status?',
    isDelta: false,
    isInProcess: false,
    sort: 1,
  }
  const tool: ChatMessage = {
    id: 'tool-1',
    role: 'assistant',
    content: '',
    isDelta: false,
    isInProcess: false,
    sort: 3,
    graphPath: ['analyst', 'tools'],
    toolCall: { name: 'serviceSqlApi', input: '{}', result: '{"totalRows":3}' },
  }
  const final: ChatMessage = {
    id: 'final-1',
    role: 'assistant',
    content: 'There are 3 statuses.',
    isDelta: false,
    isInProcess: false,
    sort: 4,
    graphPath: ['final'],
  }
  return [
    { id: '__cutoff__', sort: 0, state: { chatId: 'chat-1', isStreaming: false } },
    user,
    assistant('a-1', 'Let me look.', { isInProcess: false }),
    { ...tool, isInProcess: true, toolCall: { name: 'serviceSqlApi', input: '{}' } },
    tool,
    assistant('final-1', '', { sort: 4, graphPath: ['final'] }),
    assistant('final-1', 'There are ', { sort: 4, graphPath: ['final'], isDelta: true }),
    assistant('final-1', '3 statuses.', { sort: 4, graphPath: ['final'], isDelta: true }),
    assistant('final-1', '', { sort: 4, graphPath: ['final'], isDelta: true, isInProcess: false }),
    {
      id: '__state__',
      sort: 5,
      state: {
        messages: [user, { ...(assistant('a-1', 'Let me look.', { isInProcess: false }) as ChatMessage) }, tool, final],
      },
    },
  ]
}

interface Call {
  url: string
  init: RequestInit | undefined
  body: Record<string, unknown>
}

/** A fake fetch answering each call with the next scripted body. */
function scripted(responses: (() => ReadableStream<Uint8Array> | Response)[]) {
  const calls: Call[] = []
  const fetch: FetchLike = async (url, init) => {
    calls.push({ url, init, body: init?.body ? JSON.parse(String(init.body)) : {} })
    const next = responses[calls.length - 1]
    if (!next) throw new Error(`unexpected call ${calls.length}`)
    const answer = next()
    return answer instanceof Response
      ? answer
      : new Response(answer, { headers: { 'content-type': 'application/json' } })
  }
  return { calls, fetch }
}

describe('readNdjson', () => {
  it('yields the same lines however the bytes are split into chunks (property)', async () => {
    const lines = turn('1784548800000-message')
    const text = ndjson(lines)
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 1, max: text.length - 1 }), { maxLength: 40 }), async (cuts) => {
        const points = [...new Set(cuts)].sort((left, right) => left - right)
        const chunks = [0, ...points].map((start, index) => text.slice(start, points[index] ?? text.length))
        const read: StreamLine[] = []
        for await (const line of readNdjson(body(chunks))) read.push(line)
        expect(read).toEqual(lines)
      }),
    )
  })

  it('does not yield a trailing fragment without its newline', async () => {
    const read: StreamLine[] = []
    for await (const line of readNdjson(body(['{"error":"a"}\n{"error":', '"b"']))) read.push(line)
    expect(read).toEqual([{ error: 'a' }])
  })

  it('decodes multi-byte characters split across chunks', async () => {
    const bytes = encoder.encode('{"error":"Größe 😀"}\n')
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const byte of bytes) controller.enqueue(new Uint8Array([byte]))
        controller.close()
      },
    })
    const read: StreamLine[] = []
    for await (const line of readNdjson(stream)) read.push(line)
    expect(read).toEqual([{ error: 'Größe 😀' }])
  })
})

describe('mergeLine and finalAnswerOf', () => {
  it('appends deltas to the message with the same id and replaces whole lines', () => {
    const messages = new Map<string, ChatMessage>()
    for (const line of turn('1784548800000-message').slice(0, -1)) mergeLine(messages, line)
    expect(messages.get('final-1')).toMatchObject({ content: 'There are 3 statuses.', isInProcess: false })
    expect(messages.get('tool-1')?.toolCall?.result).toBe('{"totalRows":3}')
    expect(messages.size).toBe(4)
  })

  it('picks the last assistant message whose graphPath starts with final and has at most 2 entries', () => {
    const message = (
      id: string,
      sort: number,
      graphPath: string[],
      role: 'user' | 'assistant' = 'assistant',
    ): ChatMessage => ({
      id,
      role,
      content: id,
      isDelta: false,
      isInProcess: false,
      sort,
      graphPath,
    })
    expect(
      finalAnswerOf([message('a', 1, ['analyst']), message('b', 2, ['final']), message('c', 3, ['analyst'])])?.id,
    ).toBe('b')
    expect(finalAnswerOf([message('b', 2, ['final']), message('d', 4, ['final', 'x'])])?.id).toBe('d')
    expect(finalAnswerOf([message('e', 5, ['final', 'x', 'y']), message('f', 1, ['final'], 'user')])).toBeUndefined()
    expect(finalAnswerOf([message('late', 9, ['final']), message('early', 2, ['final'])])?.id).toBe('late')
  })
})

describe('client.chat.stream', () => {
  const target = { accountName: 'acme', agentId: 1 }

  it('posts to the chat endpoint with a generated messageId and yields each line with its merged message', async () => {
    const { calls, fetch } = scripted([() => body([ndjson(turn('x'))])])
    const client = createPlatformClient({ baseUrl: 'http://service.test/base', apiKey: 'ak_test', fetch })
    const run = client.chat.stream({ ...target, input: 'Orders by status?', sessionSettings: { externalId: 'u1' } })
    const events = []
    for await (const event of run) events.push(event)
    expect(calls[0].url).toBe('http://service.test/base/api/v1/public/acme/agents/1/chat/stream-chat-state')
    expect(calls[0].body).toEqual({
      input: 'Orders by status?',
      sessionSettings: { externalId: 'u1' },
      messageId: run.messageId,
    })
    expect(run.messageId).toMatch(/^\d{13,}-message$/)
    expect(events).toHaveLength(10)
    expect(events[7].message?.content).toBe('There are 3 statuses.')
    expect(run.chatId).toBe('chat-1')
    expect(run.finalAnswer?.content).toBe('There are 3 statuses.')
    expect(run.messages.map((message) => message.id)).toEqual(['x', 'a-1', 'tool-1', 'final-1'])
  })

  it('rejoins a dropped run with the same chatId and messageId and yields every line exactly once', async () => {
    const messageId = '1784548800000-message'
    const lines = turn(messageId)
    const joined = [
      { id: '__cutoff__', sort: 0, state: { chatId: 'chat-1', isStreaming: true } } as StreamLine,
      ...lines.slice(1),
    ]
    const { calls, fetch } = scripted([
      // Drops in the middle of the seventh line.
      () => body([ndjson(lines.slice(0, 6)), JSON.stringify(lines[6]).slice(0, 10)], { breakAfter: true }),
      () => body([ndjson(joined)]),
    ])
    const client = createPlatformClient({ baseUrl: 'http://service.test', apiKey: 'ak_test', fetch })
    const run = client.chat.stream({
      ...target,
      input: 'Orders by status?',
      messageId,
      sessionSettings: { externalId: 'u1' },
    })
    const seen: StreamLine[] = []
    for await (const event of run) seen.push(event.line)
    expect(calls).toHaveLength(2)
    expect(calls[1].body).toMatchObject({ chatId: 'chat-1', messageId, input: 'Orders by status?' })
    expect(seen).toEqual(lines)
    expect(run.rejoins).toBe(1)
    expect(run.finalAnswer?.content).toBe('There are 3 statuses.')
  })

  it('takes the state of a run that finished before the rejoin', async () => {
    const lines = turn('1784548800000-message')
    const { fetch } = scripted([
      () => body([ndjson(lines.slice(0, 4))], { breakAfter: true }),
      () => body([ndjson([{ id: '__cutoff__', sort: 0, state: { chatId: 'chat-1', isStreaming: false } }, lines[9]])]),
    ])
    const client = createPlatformClient({ baseUrl: 'http://service.test', apiKey: 'ak_test', fetch })
    const run = client.chat.stream({ ...target, input: 'Orders by status?', sessionSettings: { externalId: 'u1' } })
    const seen: StreamLine[] = []
    for await (const event of run) seen.push(event.line)
    expect(seen).toEqual([...lines.slice(0, 4), lines[9]])
    expect(run.finalAnswer?.content).toBe('There are 3 statuses.')
  })

  it('gives up with ChatConnectionError after maxRejoins drops', async () => {
    const lines = turn('1784548800000-message')
    const drop = () => body([ndjson(lines.slice(0, 2))], { breakAfter: true })
    const { calls, fetch } = scripted([drop, drop, drop])
    const client = createPlatformClient({ baseUrl: 'http://service.test', apiKey: 'ak_test', fetch })
    const run = client.chat.stream({ ...target, input: 'hi', sessionSettings: { externalId: 'u1' }, maxRejoins: 2 })
    await expect(run.done()).rejects.toBeInstanceOf(ChatConnectionError)
    expect(calls).toHaveLength(3)
  })

  it('tries a rejoin again after a 503 or 502 on the way back (a restarting server or its proxy), not after a 404', async () => {
    const messageId = '1784548800000-message'
    const lines = turn(messageId)
    const joined = [
      { id: '__cutoff__', sort: 0, state: { chatId: 'chat-1', isStreaming: false } } as StreamLine,
      lines[9],
    ]
    const refused = (status: number) => () =>
      new Response(JSON.stringify({ error: 'down', code: 'SHUTTING_DOWN' }), {
        status,
        headers: { 'content-type': 'application/json' },
      })
    const { calls, fetch } = scripted([
      () => body([ndjson(lines.slice(0, 4))], { breakAfter: true }),
      refused(503),
      refused(502),
      () => body([ndjson(joined)]),
    ])
    const client = createPlatformClient({ baseUrl: 'http://service.test', apiKey: 'ak_test', fetch })
    const base = { ...target, input: 'hi', messageId, sessionSettings: { externalId: 'u1' }, rejoinDelayMs: 1 }
    const run = client.chat.stream({ ...base, maxRejoins: 4 })
    expect((await run.done()).finalAnswer?.content).toBe('There are 3 statuses.')
    expect(calls).toHaveLength(4)
    const lost = scripted([() => body([ndjson(lines.slice(0, 4))], { breakAfter: true }), refused(404)])
    const gone = createPlatformClient({ baseUrl: 'http://service.test', apiKey: 'ak_test', fetch: lost.fetch })
    await expect(gone.chat.stream({ ...base, maxRejoins: 4 }).done()).rejects.toMatchObject({ status: 404 })
  })

  it('pauses before each rejoin, twice as long each time, so a restarting server has time to come back', async () => {
    const lines = turn('1784548800000-message')
    const sentAt: number[] = []
    const drop = () => {
      sentAt.push(performance.now())
      return body([ndjson(lines.slice(0, 2))], { breakAfter: true })
    }
    const { fetch } = scripted([drop, drop, drop])
    const client = createPlatformClient({ baseUrl: 'http://service.test', apiKey: 'ak_test', fetch })
    const run = client.chat.stream({
      ...target,
      input: 'hi',
      sessionSettings: { externalId: 'u1' },
      maxRejoins: 2,
      rejoinDelayMs: 40,
    })
    await expect(run.done()).rejects.toBeInstanceOf(ChatConnectionError)
    // A timer never fires early: at least 40 ms, then at least 80 ms (a lower bound only, never a speed limit).
    expect(sentAt[1] - sentAt[0]).toBeGreaterThanOrEqual(39)
    expect(sentAt[2] - sentAt[1]).toBeGreaterThanOrEqual(79)
  })

  it('reports an error line as the run error and stops there', async () => {
    const { fetch } = scripted([
      () =>
        body([
          ndjson([
            { id: '__cutoff__', sort: 0, state: { chatId: 'c', isStreaming: false } },
            { error: 'Unknown branch "x"' },
          ]),
        ]),
    ])
    const client = createPlatformClient({ baseUrl: 'http://service.test', apiKey: 'ak_test', fetch })
    const result = await client.chat
      .stream({ ...target, input: 'hi', activeBranchName: 'x', sessionSettings: { externalId: 'u1' } })
      .done()
    expect(result).toMatchObject({ chatId: 'c', error: 'Unknown branch "x"', messages: [] })
  })

  it('throws PlatformApiError for a non-2xx answer without retrying', async () => {
    const { calls, fetch } = scripted([
      () => new Response(JSON.stringify({ error: 'Agent 9 not found', code: 'AGENT_NOT_FOUND' }), { status: 404 }),
    ])
    const client = createPlatformClient({ baseUrl: 'http://service.test', apiKey: 'ak_test', fetch })
    await expect(client.chat.stream({ ...target, input: 'hi' }).done()).rejects.toMatchObject({
      status: 404,
      code: 'AGENT_NOT_FOUND',
    })
    expect(calls).toHaveLength(1)
  })

  it('aborts through POST .../chat/abort with the chatId and stops reading', async () => {
    const lines = turn('1784548800000-message')
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    const { calls, fetch } = scripted([
      () =>
        new ReadableStream<Uint8Array>({
          async start(controller) {
            controller.enqueue(encoder.encode(ndjson(lines.slice(0, 3))))
            await gate
            controller.error(new DOMException('aborted', 'AbortError'))
          },
        }),
      () => new Response(null, { status: 204 }),
    ])
    const client = createPlatformClient({ baseUrl: 'http://service.test', apiKey: 'ak_test', fetch })
    const run = client.chat.stream({ ...target, input: 'hi', sessionSettings: { externalId: 'u1' } })
    const seen: StreamLine[] = []
    for await (const event of run) {
      seen.push(event.line)
      if (seen.length === 3) {
        await run.abort()
        release()
      }
    }
    expect(seen).toHaveLength(3)
    expect(calls[1]).toMatchObject({
      url: 'http://service.test/api/v1/public/acme/agents/1/chat/abort',
      body: { chatId: 'chat-1', sessionSettings: { externalId: 'u1' } },
    })
  })
})
