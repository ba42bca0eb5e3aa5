import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createPlatformClient, type FetchLike, type StreamLine } from '../../client'
import type { Agent } from '../../plugins/chat/run/agent'
import { createTestApp, type TestApp } from '../helpers/app'
import { keys } from '../helpers/fixtures'

/**
 * An agent that answers in two parts and waits between them until the test opens the gate, so a client can be
 * disconnected while the run is still going.
 */
let openGate: () => void = () => {}
const gatedAgent: Agent = {
  async *run() {
    const gate = new Promise<void>((resolve) => (openGate = resolve))
    yield { type: 'message-start', id: 'look', graphPath: ['analyst'] }
    yield { type: 'text-delta', id: 'look', delta: 'Looking at orders.' }
    yield { type: 'message-end', id: 'look' }
    yield { type: 'message-start', id: 'answer', graphPath: ['final'] }
    yield { type: 'text-delta', id: 'answer', delta: 'There are ' }
    await gate
    yield { type: 'text-delta', id: 'answer', delta: '3 order statuses.' }
    yield { type: 'message-end', id: 'answer' }
  },
}

let test: TestApp
let baseUrl: string
beforeAll(() => {
  test = createTestApp({ agents: () => gatedAgent })
  test.app.listen({ port: 0, hostname: '127.0.0.1', reusePort: false })
  baseUrl = `http://127.0.0.1:${test.app.server!.port}`
})
afterAll(async () => {
  await test.app.stop(true)
  await test.close()
})

/**
 * A fetch whose first chat stream response breaks after `keepLines` complete lines, as a dropped connection
 * would; the run goes on on the server. When the rejoin's response arrives, the agent's gate opens.
 */
function disconnectingFetch(keepLines: number) {
  const chatBodies: Record<string, unknown>[] = []
  const fetch: FetchLike = async (input, init) => {
    const response = await globalThis.fetch(input, init)
    if (!input.endsWith('/chat/stream-chat-state')) return response
    chatBodies.push(JSON.parse(String(init?.body)))
    if (chatBodies.length > 1) {
      openGate()
      return response
    }
    const upstream = response.body!.getReader()
    let newlines = 0
    const cut = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await upstream.read()
        if (done) return controller.close()
        const end = value.findIndex((byte) => byte === 10 && ++newlines === keepLines)
        if (end < 0) return controller.enqueue(value)
        controller.enqueue(value.slice(0, end + 1))
        await upstream.cancel()
        controller.error(new TypeError('connection reset'))
      },
    })
    return new Response(cut, { status: response.status, headers: response.headers })
  }
  return { fetch, chatBodies }
}

describe('client embed sessions and chat against a listening server', () => {
  it('generates a session, exchanges it, and chats with the embed token through a forced disconnect and rejoin', async () => {
    const admin = createPlatformClient({ baseUrl, apiKey: keys.admin })
    const { sessionId } = await admin.embed.generateSession({
      deploymentId: 1,
      externalId: 'viewer-7',
      email: 'viewer7@example.com',
    })
    expect(sessionId).toEqual(expect.any(String))
    const { token } = await createPlatformClient({ baseUrl }).embed.exchangeSession(sessionId)

    const { fetch, chatBodies } = disconnectingFetch(4)
    const viewer = createPlatformClient({ baseUrl, embedToken: token, fetch })
    const run = viewer.chat.stream({ accountName: 'acme', agentId: 1, input: 'How many order statuses are there?' })
    const lines: StreamLine[] = []
    for await (const event of run) lines.push(event.line)

    expect(chatBodies).toHaveLength(2)
    expect(chatBodies[1]).toMatchObject({
      chatId: run.chatId,
      messageId: run.messageId,
      input: 'How many order statuses are there?',
    })
    expect(run.rejoins).toBe(1)
    const serialized = lines.map((line) => JSON.stringify(line))
    expect(new Set(serialized).size).toBe(serialized.length)
    expect(lines.filter((line) => 'id' in line && line.id === '__cutoff__')).toHaveLength(1)
    expect(lines.filter((line) => 'role' in line && line.role === 'user')).toHaveLength(1)
    expect(lines.at(-1)).toMatchObject({ id: '__state__' })
    expect(run.finalAnswer?.content).toBe('There are 3 order statuses.')
    expect(run.messages.map((message) => message.content)).toEqual([
      'How many order statuses are there?',
      'Looking at orders.',
      'There are 3 order statuses.',
    ])
  })

  it('reads the thread state back and aborts through the client', async () => {
    const admin = createPlatformClient({ baseUrl, apiKey: keys.admin })
    const sessionSettings = { externalId: 'viewer-8' }
    const started = admin.chat.stream({ accountName: 'acme', agentId: 1, input: 'Hello?', sessionSettings })
    const iterator = started[Symbol.asyncIterator]()
    await iterator.next()
    expect(started.chatId).toEqual(expect.any(String))
    await started.abort()
    await iterator.return?.()
    openGate()
    const state = await admin.chat
      .stream({ accountName: 'acme', agentId: 1, chatId: started.chatId, sessionSettings })
      .done()
    expect(state.chatId).toBe(started.chatId!)
    expect(state.messages[0]).toMatchObject({ role: 'user', content: 'Hello?' })
    await admin.chat.abort({ accountName: 'acme', agentId: 1, chatId: started.chatId!, sessionSettings })
  })
})
