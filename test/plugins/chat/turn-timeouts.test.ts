import { afterEach, describe, expect, it } from 'bun:test'
import { createAgentFactory } from '../../../plugins/agent/agent-factory'
import type { AnalystTools } from '../../../plugins/agent/analyst-tools'
import type { Agent } from '../../../plugins/chat/run/agent'
import { createScriptedAgent, type Script } from '../../../plugins/chat/run/scripted-agent'
import { loadConfig, type ChatLimits } from '../../../lib/config'
import { apiKey, createTestApp, type TestApp } from '../../helpers/app'
import { storedMessages, storedRuns } from '../../helpers/chat-rows'
import { chatBase, readLines } from '../../helpers/chat'
import { startFakeOpenAI, type FakeTurn } from '../../helpers/fake-openai'
import { keys } from '../../helpers/fixtures'

const tools: AnalystTools = {
  serviceMeta: async () => ({ cubes: [] }),
  serviceSqlApi: async () => ({ schema: [], data: [], totalRows: 0 }),
}

let test: TestApp | undefined
let fake: ReturnType<typeof startFakeOpenAI> | undefined
afterEach(async () => {
  await test?.close()
  fake?.stop()
  test = fake = undefined
})

function appWith(limits: Partial<ChatLimits>, agents: () => Agent) {
  test = createTestApp({ config: { chatLimits: { ...loadConfig({}).chatLimits, ...limits } }, agents })
  return test
}

function llmApp(turns: FakeTurn[], limits: Partial<ChatLimits>) {
  fake = startFakeOpenAI(turns)
  const factory = createAgentFactory({
    llm: { baseUrl: fake.url, apiKey: 'sk-test', model: 'fake-model' },
    analystDelayMs: 0,
    tools: () => tools,
    turnTimeoutMs: limits.turnTimeoutMs,
  })
  return appWith(limits, () => factory({ id: 1, name: 'Analyst', kind: 'analyst', config: null } as never))
}

const ask = (app: TestApp, body: Record<string, unknown>) =>
  app.request('POST', `${chatBase()}/stream-chat-state`, {
    headers: apiKey(keys.admin),
    body: { sessionSettings: { externalId: 'waiting-user' }, ...body },
  })

describe('chat turn time limits', () => {
  it('ends the turn with an error line when the model sends nothing within LLM_FIRST_TOKEN_TIMEOUT_MS, and the thread takes a new message', async () => {
    const app = llmApp([{ hang: true }, { text: ['Back ', 'again.'] }], { firstTokenTimeoutMs: 200 })
    const lines = await readLines(await ask(app, { input: 'Are you there?' }))
    expect(fake!.hanging()).toBe(1)
    expect(lines.map((line) => line.id ?? line.error)).toEqual([
      '__cutoff__',
      expect.stringMatching(/-message$/),
      'The model did not answer in time',
    ])
    const chatId = (lines[0].state as { chatId: string }).chatId

    const next = await readLines(await ask(app, { chatId, input: 'Try again' }))
    expect(next.at(-1)?.id).toBe('__state__')
    const messages = (next.at(-1)?.state as { messages: Array<{ role: string; content: string }> }).messages
    expect(messages.map((message) => `${message.role}: ${message.content}`)).toEqual([
      'user: Are you there?',
      'user: Try again',
      'assistant: Back again.',
    ])
    const runs = await storedRuns(app.storage)
    expect(runs).toEqual([
      { status: 'aborted', error: 'The model did not answer in time' },
      { status: 'completed', error: null },
    ])
  })

  it('says the turn passed CHAT_TURN_TIMEOUT_MS when the analyst’s own time limit stops the model first', async () => {
    const app = llmApp([{ hang: true }], { turnTimeoutMs: 300, firstTokenTimeoutMs: 10_000 })
    const lines = await readLines(await ask(app, { input: 'Are you there?' }))
    expect(lines.at(-1)).toEqual({ error: 'The answer took longer than 0.3 s and was stopped' })
    expect(await storedRuns(app.storage)).toEqual([
      { status: expect.any(String), error: 'The answer took longer than 0.3 s and was stopped' },
    ])
  })

  it('ends a turn that passes CHAT_TURN_TIMEOUT_MS with an error line, keeping what was streamed', async () => {
    const endless: Script = {
      steps: [{ kind: 'text', chunks: Array.from({ length: 100_000 }, () => 'more '), delayMs: 5 }],
    }
    const app = appWith({ turnTimeoutMs: 300, firstTokenTimeoutMs: 10_000 }, () => createScriptedAgent(endless))
    const lines = await readLines(await ask(app, { input: 'Talk forever' }))
    expect(lines.at(-1)).toEqual({ error: 'The answer took longer than 0.3 s and was stopped' })
    expect(lines.filter((line) => line.content === 'more ').length).toBeGreaterThan(0)
    const stored = (await storedMessages(app.storage, 'assistant')).map(({ status }) => ({ status }))
    expect(stored).toEqual([{ status: 'interrupted' }])
  })

  it('does not count the time a tool runs as the model’s silence', async () => {
    const slowTool: Script = {
      steps: [
        {
          kind: 'tool',
          name: 'serviceSqlApi',
          input: { sqlQuery: 'SELECT 1' },
          result: { data: [['1']] },
          delayMs: 600,
        },
        { kind: 'text', chunks: ['Done'] },
      ],
    }
    const app = appWith({ firstTokenTimeoutMs: 100 }, () => createScriptedAgent(slowTool))
    const lines = await readLines(await ask(app, { input: 'Run a slow query' }))
    expect(lines.at(-1)?.id).toBe('__state__')
  })
})

describe('what is not the model’s silence', () => {
  it('a tool still running while another of the same step has answered', async () => {
    const parallel: Agent = {
      async *run() {
        yield { type: 'tool-call', id: 'meta', name: 'serviceMeta', input: '{}' }
        yield { type: 'tool-call', id: 'query', name: 'serviceSqlApi', input: '{"sqlQuery":"SELECT 1"}' }
        yield { type: 'tool-result', id: 'meta', result: '{}' }
        await Bun.sleep(600)
        yield { type: 'tool-result', id: 'query', result: '{"data":[["1"]]}' }
        yield { type: 'message-start', id: 'answer', graphPath: ['final'] }
        yield { type: 'text-delta', id: 'answer', delta: 'Done' }
        yield { type: 'message-end', id: 'answer' }
      },
    }
    const app = appWith({ firstTokenTimeoutMs: 100 }, () => parallel)
    const lines = await readLines(await ask(app, { input: 'Run two tools' }))
    expect(lines.at(-1)?.id).toBe('__state__')
  })

  it('a tool call whose arguments are still streaming, and reasoning nobody is shown', async () => {
    // Each turn streams for about 0.9 s with no line, against a silence limit of 0.5 s (a chunk every 0.1 s: the margin
    // is for a loaded machine, where 0.3 s was once passed between two chunks).
    const app = llmApp(
      [
        {
          toolCalls: [{ name: 'serviceSqlApi', arguments: { sqlQuery: 'SELECT MEASURE(orders.count) FROM orders' } }],
          chunkDelayMs: 100,
        },
        { reasoning: Array.from({ length: 9 }, () => 'thinking '), text: ['Done'], chunkDelayMs: 100 },
      ],
      { firstTokenTimeoutMs: 500 },
    )
    const lines = await readLines(await ask(app, { input: 'How many orders?' }))
    expect(lines.at(-1)?.id).toBe('__state__')
    expect(lines.filter((line) => line.toolCall).length).toBe(2)
  })

  it('but a model that streams nothing at all still is', async () => {
    const app = llmApp([{ hang: true }], { firstTokenTimeoutMs: 300 })
    const lines = await readLines(await ask(app, { input: 'Are you there?' }))
    expect(lines.at(-1)).toEqual({ error: 'The model did not answer in time' })
  })
})
