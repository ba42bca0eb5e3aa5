import { afterEach, describe, expect, it } from 'bun:test'
import { createLogger, type Logger } from '../../../lib/logger'
import { createAgentFactory } from '../../../plugins/agent/agent-factory'
import {
  ANSWER_CUT_SHORT,
  ANSWER_FILTERED,
  ANSWER_LIMIT_BEFORE_TEXT,
  HISTORY_MAX_CHARS,
} from '../../../plugins/agent/analyst-agent'
import type { AnalystTools } from '../../../plugins/agent/analyst-tools'
import { apiKey, createTestApp, type TestApp } from '../../helpers/app'
import { chatBase, finalAnswer, mergeLines, readLines, type Line } from '../../helpers/chat'
import { startFakeOpenAI, type FakeTurn } from '../../helpers/fake-openai'
import { keys } from '../../helpers/fixtures'

/** More than the system prompt and the small model of these tests take. */
const SYSTEM_PROMPT_LENGTH_BOUND = 20_000

const meta = { cubes: [{ name: 'orders', measures: [{ name: 'orders.count', type: 'count' }], dimensions: [] }] }
const tools: AnalystTools = {
  serviceMeta: async () => meta,
  serviceSqlApi: async (input) =>
    input.sqlQuery.includes('MEASURE')
      ? { schema: [{ name: 'count', column_type: 'number' }], data: [['42']], totalRows: 1 }
      : { error: 'Use MEASURE() for measures' },
}

let test: TestApp | undefined
let fake: ReturnType<typeof startFakeOpenAI> | undefined
afterEach(async () => {
  await test?.close()
  fake?.stop()
})

function appWith(turns: FakeTurn[], logger?: Logger) {
  fake = startFakeOpenAI(turns)
  test = createTestApp({
    ...(logger ? { logger } : {}),
    agents: createAgentFactory({
      llm: { baseUrl: fake.url, apiKey: 'sk-test', model: 'fake-model' },
      analystDelayMs: 0,
      tools: () => tools,
    }),
  })
  return test
}

const ask = (app: TestApp, input: string) =>
  app.request('POST', `${chatBase()}/stream-chat-state`, {
    headers: apiKey(keys.admin),
    body: { input, sessionSettings: { externalId: 'llm-user' } },
  })

describe('the analyst on an OpenAI-compatible model', () => {
  it('streams tool calls, their results and the final answer in the same line shape as the offline path', async () => {
    const app = appWith([
      { toolCalls: [{ name: 'serviceMeta', arguments: {} }] },
      { toolCalls: [{ name: 'serviceSqlApi', arguments: { sqlQuery: 'SELECT count FROM orders' } }] },
      { toolCalls: [{ name: 'serviceSqlApi', arguments: { sqlQuery: 'SELECT MEASURE(orders.count) FROM orders' } }] },
      { text: ['There are ', '42', ' orders.'] },
    ])
    const lines = await readLines(await ask(app, 'How many orders?'))
    const kinds = lines.map((line) =>
      line.toolCall
        ? `tool:${line.toolCall.name}:${line.toolCall.result ? 'result' : 'call'}`
        : (line.id as string).startsWith('__')
          ? line.id
          : line.role,
    )
    expect(kinds).toEqual([
      '__cutoff__',
      'user',
      'tool:serviceMeta:call',
      'tool:serviceMeta:result',
      'tool:serviceSqlApi:call',
      'tool:serviceSqlApi:result',
      'tool:serviceSqlApi:call',
      'tool:serviceSqlApi:result',
      'assistant',
      'assistant',
      'assistant',
      'assistant',
      'assistant',
      '__state__',
    ])
    const sqlResults = lines.filter((line) => line.toolCall?.name === 'serviceSqlApi' && line.toolCall.result)
    expect(JSON.parse((sqlResults[0].toolCall as { result: string }).result)).toEqual({
      error: 'Use MEASURE() for measures',
    })
    expect(JSON.parse((sqlResults[1].toolCall as { result: string }).result)).toMatchObject({ data: [['42']] })
    for (const line of lines.filter((entry) => entry.toolCall)) expect(line.graphPath).toEqual(['analyst', 'tools'])
    const answer = finalAnswer(mergeLines(lines))
    expect(answer?.content).toBe('There are 42 orders.')
    expect(answer?.graphPath).toEqual(['final'])
    // The model was asked with the system prompt, both tools and the tool results of earlier steps.
    const last = fake!.requests.at(-1)!
    expect((last.tools as Array<{ function: { name: string } }>).map((tool) => tool.function.name).sort()).toEqual([
      'serviceMeta',
      'serviceSqlApi',
    ])
    expect(JSON.stringify(last.messages)).toContain('Use MEASURE() for measures')
    expect(last.model).toBe('fake-model')
    expect(last.stream).toBe(true)
  })

  it('relabels text of a step that goes on to call tools as the analyst’s own message', async () => {
    const app = appWith([
      { text: ['Let me check ', 'the model.'], toolCalls: [{ name: 'serviceMeta', arguments: {} }] },
      { text: ['Answer: 42'] },
    ])
    const lines = await readLines(await ask(app, 'How many orders?'))
    const state = (lines.at(-1)!.state as { messages: Line[] }).messages
    expect(state.map((message) => [message.content, message.graphPath])).toEqual([
      ['How many orders?', undefined],
      ['Let me check the model.', ['analyst']],
      ['', ['analyst', 'tools']],
      ['Answer: 42', ['final']],
    ])
    expect(finalAnswer(state as never)?.content).toBe('Answer: 42')
  })

  it('keeps every tool call of a provider that names each one call_1: the stored thread is the one streamed', async () => {
    const app = appWith([
      { toolCalls: [{ name: 'serviceMeta', arguments: {}, id: 'call_1' }] },
      { toolCalls: [{ name: 'serviceSqlApi', arguments: { sqlQuery: 'SELECT count FROM orders' }, id: 'call_1' }] },
      { text: ['Answer: 42'] },
    ])
    const lines = await readLines(await ask(app, 'How many orders?'))
    const streamed = (lines.at(-1)!.state as { messages: Line[] }).messages
    expect(streamed.map((message) => message.toolCall?.name ?? message.content)).toEqual([
      'How many orders?',
      'serviceMeta',
      'serviceSqlApi',
      'Answer: 42',
    ])
    expect(new Set(streamed.map((message) => message.id)).size).toBe(4)
    const chatId = (lines[0].state as { chatId: string }).chatId
    const read = await readLines(
      await app.request('POST', `${chatBase()}/stream-chat-state`, {
        headers: apiKey(keys.admin),
        body: { chatId, sessionSettings: { externalId: 'llm-user' } },
      }),
    )
    expect((read.at(-1)!.state as { messages: Line[] }).messages).toEqual(streamed)
  })

  it('ends the stream with an error line when the provider fails, without leaking details', async () => {
    const logged: string[] = []
    const logger = createLogger('info', {}, (line) => void logged.push(line))
    const app = appWith([{ status: 500, body: '{"error":{"message":"internal secret detail"}}' }], logger)
    const lines = await readLines(await ask(app, 'How many orders?'))
    expect(lines.at(-1)).toEqual({ error: 'The model provider failed (HTTP 500)' })
    expect(JSON.stringify(lines)).not.toContain('secret')
    // The operator is told too, as a warning with what the user was told: no key, no provider body.
    const warnings = logged.map((line) => JSON.parse(line)).filter((entry) => entry.level === 'warn')
    expect(warnings).toContainEqual(
      expect.objectContaining({
        msg: 'chat run ended with an agent error',
        reason: 'The model provider failed (HTTP 500)',
      }),
    )
    expect(logged.join('\n')).not.toContain('secret')
    expect(logged.join('\n')).not.toContain('sk-test')
  })

  it('ends a rate-limited turn at once with the provider status when the provider asks to wait long', async () => {
    const app = appWith([
      { status: 429, body: '{"error":{"message":"Rate limit reached"}}', headers: { 'retry-after': '30' } },
    ])
    const startedAt = performance.now()
    const lines = await readLines(await ask(app, 'How many orders?'))
    expect(lines.at(-1)).toEqual({ error: 'The model provider failed (HTTP 429)' })
    expect(fake!.requests).toHaveLength(1)
    expect(performance.now() - startedAt).toBeLessThan(3000)
  })

  it('retries a rate-limited call once after the short wait the provider asks for', async () => {
    const app = appWith([
      { status: 429, body: '{"error":{"message":"Rate limit reached"}}', headers: { 'retry-after-ms': '50' } },
      { text: ['Answer: 42'] },
    ])
    const lines = await readLines(await ask(app, 'How many orders?'))
    expect(finalAnswer(mergeLines(lines))?.content).toBe('Answer: 42')
    expect(fake!.requests).toHaveLength(2)
  })

  it("keeps a long thread's prompt within its history limit, its latest turns first", async () => {
    const app = appWith([{ text: ['Noted.'] }])
    const long = (word: string) => `${word} ${'x'.repeat(HISTORY_MAX_CHARS / 2 - 20)}`
    const send = (input: string, chatId?: string) =>
      app.request('POST', `${chatBase()}/stream-chat-state`, {
        headers: apiKey(keys.admin),
        body: { input, ...(chatId ? { chatId } : {}), sessionSettings: { externalId: 'llm-user' } },
      })
    const first = await readLines(await send(long('first')))
    const chatId = (first[0].state as { chatId: string }).chatId
    for (const word of ['second', 'third', 'fourth']) await readLines(await send(long(word), chatId))
    const prompt = fake!.requests.at(-1)!.messages as Array<{ role: string; content: string }>
    const text = JSON.stringify(prompt)
    expect(text).not.toContain('first x')
    expect(text).toContain('third x')
    expect(text).toContain('fourth x')
    expect(prompt[1].role).toBe('user')
    expect(text.length).toBeLessThan(SYSTEM_PROMPT_LENGTH_BOUND + 2 * HISTORY_MAX_CHARS)
  })

  it('stops a model that keeps calling tools at the step limit and still gives a final word', async () => {
    const app = appWith([{ toolCalls: [{ name: 'serviceMeta', arguments: {} }] }])
    const lines = await readLines(await ask(app, 'Loop forever'))
    expect(fake!.requests).toHaveLength(8)
    expect(lines.filter((line) => line.toolCall && line.toolCall.result)).toHaveLength(8)
    expect(finalAnswer(mergeLines(lines))?.content).toBe(
      'I could not finish the analysis within 8 steps. Please ask a narrower question.',
    )
    expect(lines.at(-1)?.id).toBe('__state__')
  })

  it('says so under an answer the model stopped at its output limit, in the stream and the stored thread', async () => {
    const app = appWith([{ text: ['There are ', '42 orders, of which'], finishReason: 'length' }])
    const lines = await readLines(await ask(app, 'How many orders?'))
    const answer = finalAnswer(mergeLines(lines))
    expect(answer?.content).toBe(`There are 42 orders, of which\n\n${ANSWER_CUT_SHORT}`)
    expect(finalAnswer((lines.at(-1)!.state as { messages: Line[] }).messages as never)?.content).toBe(answer!.content)
  })

  it('says the model ran out of output before answering when its reasoning used the whole limit', async () => {
    const app = appWith([
      { text: ['<think>Weighing ', 'the options at length'], finishReason: 'length' },
      { text: [], reasoning: ['Weighing the options'], finishReason: 'length' },
    ])
    for (let turn = 0; turn < 2; turn++) {
      const lines = await readLines(await ask(app, 'How many orders?'))
      expect(finalAnswer(mergeLines(lines))?.content).toBe(ANSWER_LIMIT_BEFORE_TEXT)
      expect(JSON.stringify(lines)).not.toContain(ANSWER_CUT_SHORT)
    }
  })

  it('says the provider withheld the answer when its content filter stopped it', async () => {
    const app = appWith([{ text: [], finishReason: 'content_filter' }])
    const lines = await readLines(await ask(app, 'How many orders?'))
    expect(finalAnswer(mergeLines(lines))?.content).toBe(ANSWER_FILTERED)
    expect(lines.at(-1)?.id).toBe('__state__')
  })

  it('keeps reasoning a model writes in <think> tags out of the answer, and shows it only on a development branch', async () => {
    const turn: FakeTurn = { text: ['<thi', 'nk>Weighing ', 'the options.</th', 'ink>\n\nThere are ', '42 orders.'] }
    const app = appWith([turn])
    const lines = await readLines(await ask(app, 'How many orders?'))
    expect(finalAnswer(mergeLines(lines))?.content).toBe('There are 42 orders.')
    expect(JSON.stringify(lines)).not.toContain('Weighing')
    const dev = await readLines(
      await app.request('POST', `${chatBase()}/stream-chat-state`, {
        headers: apiKey(keys.admin),
        body: {
          input: 'How many orders?',
          activeBranchName: 'dev',
          isDefaultBranch: false,
          sessionSettings: { externalId: 'llm-user' },
        },
      }),
    )
    const messages = (dev.at(-1)!.state as { messages: Line[] }).messages
    expect(messages.find((message) => message.thinking)?.thinking).toBe('Weighing the options.')
    expect(finalAnswer(messages as never)?.content).toBe('There are 42 orders.')
  })

  it('ends the stream with the provider error line when the provider drops the connection mid-answer', async () => {
    const app = appWith([{ cut: ['There are ', '42'] }])
    const lines = await readLines(await ask(app, 'How many orders?'))
    expect(lines.at(-1)).toEqual({ error: 'The model provider failed' })
    expect(lines.filter((line) => line.content === '42')).toHaveLength(1)
  })

  it('ends the stream with an error line on a malformed provider stream', async () => {
    const app = appWith([{ malformed: true }])
    const lines = await readLines(await ask(app, 'How many orders?'))
    expect(lines.at(-1)).toHaveProperty('error')
    expect(lines.some((line) => line.id === '__state__')).toBe(false)
  })
})

describe('images on an OpenAI-compatible model', () => {
  // A 1×1 PNG.
  const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='
  const imageUrls = (request: Record<string, unknown>) =>
    (request.messages as Array<{ role: string; content: unknown }>).flatMap((message) =>
      Array.isArray(message.content)
        ? (message.content as Array<{ type: string; image_url?: { url: string } }>).flatMap((part) =>
            part.type === 'image_url' ? [`${message.role}:${part.image_url!.url}`] : [],
          )
        : [],
    )
  const send = (app: TestApp, body: Record<string, unknown>) =>
    app.request('POST', `${chatBase()}/stream-chat-state`, {
      headers: apiKey(keys.admin),
      body: { sessionSettings: { externalId: 'llm-user' }, ...body },
    })

  it('refuses an image given as a link with 400, and nothing fetches it', async () => {
    let fetched = 0
    const target = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      reusePort: false,
      fetch: () => {
        fetched++
        return new Response('not an image', { headers: { 'content-type': 'image/png' } })
      },
    })
    try {
      const app = appWith([{ text: ['An image.'] }])
      for (const data of [`http://${target.hostname}:${target.port}/internal`, `HTTPS://example.com/a.png`]) {
        const response = await send(app, { input: 'Describe it', images: [{ mimeType: 'image/png', data }] })
        expect(response.status).toBe(400)
        expect(await response.json()).toMatchObject({ code: 'INVALID_IMAGE' })
      }
      expect(fetched).toBe(0)
      expect(fake!.requests).toHaveLength(0)
    } finally {
      target.stop(true)
    }
  })

  it('refuses data that is not base64 nor a data: URL with 400', async () => {
    const app = appWith([{ text: ['An image.'] }])
    const response = await send(app, {
      input: 'Describe it',
      images: [{ mimeType: 'image/png', data: 'not base64 !!!' }],
    })
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({ code: 'INVALID_IMAGE' })
  })

  it('leaves out of the prompt what is no image a model reads, so the thread goes on', async () => {
    const app = appWith([{ text: ['No image.'] }])
    // Valid base64 of "hello": stored with the message, but no PNG, JPEG, GIF or WebP.
    const first = await readLines(
      await send(app, { input: 'What is this?', images: [{ mimeType: 'image/png', data: 'aGVsbG8=' }] }),
    )
    expect(first.at(-1)?.id).toBe('__state__')
    const chatId = (first[0].state as { chatId: string }).chatId
    const second = await readLines(await send(app, { input: 'And now?', chatId }))
    expect(second.at(-1)?.id).toBe('__state__')
    expect(imageUrls(fake!.requests[0])).toEqual([])
    expect(imageUrls(fake!.requests[1])).toEqual([])
  })

  it('sends base64 and data: URL images as bytes, on their turn and on the thread’s later turns', async () => {
    const app = appWith([{ text: ['A pixel.'] }])
    const first = await readLines(
      await send(app, {
        input: 'What is this?',
        images: [
          { mimeType: 'image/png', data: PNG },
          { mimeType: 'image/png', data: `data:image/png;base64,${PNG}` },
        ],
      }),
    )
    const chatId = (first[0].state as { chatId: string }).chatId
    expect(imageUrls(fake!.requests[0])).toEqual([
      `user:data:image/png;base64,${PNG}`,
      `user:data:image/png;base64,${PNG}`,
    ])
    await readLines(await send(app, { input: 'And its colour?', chatId }))
    expect(imageUrls(fake!.requests[1])).toEqual([
      `user:data:image/png;base64,${PNG}`,
      `user:data:image/png;base64,${PNG}`,
    ])
  })
})
