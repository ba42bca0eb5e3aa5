import { afterEach, describe, expect, it } from 'bun:test'
import { createAgentFactory } from '../../../plugins/agent/agent-factory'
import { SYSTEM_PROMPT, TOOL_DESCRIPTIONS } from '../../../plugins/agent/system-prompt'
import { bindSemanticTools } from '../../../plugins/semantic/tools'
import { apiKey, createTestApp, type TestApp } from '../../helpers/app'
import { chatBase, finalAnswer, mergeLines, readLines } from '../../helpers/chat'
import { startFakeOpenAI, type FakeTurn } from '../../helpers/fake-openai'
import { clinicFolder } from '../../fixtures/clinic/make-data'
import { keys, testBootstrap } from '../../helpers/fixtures'
import type { BootstrapFile } from '../../../src/bootstrap/model'

/**
 * A recorded transcript of a model that follows the prompt: it reads the model, searches for the value the question
 * names, queries customers by key with MEASURE(), and starts its answer with what it computed.
 */
const TOP_CUSTOMERS_IN_ASIA =
  "SELECT customers.id, customers.name, MEASURE(orders.total_amount) FROM orders WHERE customers.region = 'Asia' GROUP BY 1, 2 ORDER BY 3 DESC LIMIT 3"
const transcript: FakeTurn[] = [
  { toolCalls: [{ name: 'serviceMeta', arguments: {} }] },
  { toolCalls: [{ name: 'serviceMeta', arguments: { searchQuery: 'asia' } }] },
  {
    toolCalls: [
      {
        name: 'serviceSqlApi',
        arguments: { sqlQuery: TOP_CUSTOMERS_IN_ASIA, queryTitle: 'Revenue by customer, top 3, Asia' },
      },
    ],
  },
  { text: ['**Revenue by customer, top 3, Asia, all time**\n\n', '| Customer id | Customer | Revenue |'] },
]

let test: TestApp | undefined
let fake: ReturnType<typeof startFakeOpenAI> | undefined
afterEach(async () => {
  await test?.close()
  fake?.stop()
})

function appWith(turns: FakeTurn[], bootstrap?: BootstrapFile): TestApp {
  fake = startFakeOpenAI(turns)
  let app: TestApp | undefined = undefined
  const agents = createAgentFactory({
    llm: { baseUrl: fake.url, apiKey: 'sk-test', model: 'fake-model' },
    analystDelayMs: 0,
    tools: (turn) =>
      bindSemanticTools(app!.deps.semantic, {
        deployment: turn.deployment,
        branchName: turn.branch,
        access: turn.access,
      }),
  })
  app = createTestApp({ agents, ...(bootstrap ? { bootstrap } : {}) })
  test = app
  return app
}

async function ask(app: TestApp, input: string, settings: Record<string, unknown>) {
  return readLines(
    await app.request('POST', `${chatBase()}/stream-chat-state`, {
      headers: apiKey(keys.admin),
      body: { input, sessionSettings: settings },
    }),
  )
}

/** The tool results the model was given, by tool name, in the order of the requests. */
function toolResults(requests: Array<Record<string, unknown>>): unknown[] {
  const messages = (requests.at(-1)!.messages as Array<{ role: string; content: string }>).filter(
    (message) => message.role === 'tool',
  )
  return messages.map((message) => JSON.parse(message.content))
}

describe('the system prompt and tools for real models', () => {
  it('steer the model to read the model first, use MEASURE(), group by keys, say what it computed or what it cannot', async () => {
    const app = appWith(transcript)
    const lines = await ask(app, 'Top 3 customers in Asia by revenue', { externalId: 'llm-prompt' })
    expect(finalAnswer(mergeLines(lines))?.content).toStartWith('**Revenue by customer, top 3, Asia, all time**')
    const first = fake!.requests[0] as {
      messages: Array<{ role: string; content: string }>
      tools: Array<{ function: { name: string; description: string } }>
    }
    expect(first.messages[0].role).toBe('system')
    expect(first.messages[0].content).toStartWith(SYSTEM_PROMPT)
    for (const rule of [
      'Call serviceMeta first',
      'MEASURE(cube.member)',
      'primary key',
      'Start with one bold line saying what was computed',
      'say exactly which part',
      'never silently dropped',
      'never by member names',
      'every period side by side with\n   the change',
      'goes in double quotes ("order"."group", FROM "order")',
    ])
      expect(SYSTEM_PROMPT).toContain(rule)
    const descriptions = Object.fromEntries(first.tools.map((tool) => [tool.function.name, tool.function.description]))
    expect(descriptions).toEqual(TOOL_DESCRIPTIONS)
  }, 60_000)

  it('give the model the values and the latest date it needs from one search, as the user may see them', async () => {
    const app = appWith(transcript)
    await ask(app, 'Top 3 customers in Asia by revenue', { externalId: 'llm-everyone' })
    const [, search, rows] = toolResults(fake!.requests) as [
      unknown,
      { values: unknown[]; dates: Array<{ member: string; latest: string }> },
      { data: string[][] },
    ]
    expect(search.values).toContainEqual({ member: 'customers.region', value: 'Asia' })
    expect(search.dates.find((span) => span.member === 'orders.created_at')?.latest).toStartWith('2025-12-31')
    expect(rows.data).toHaveLength(3)
    expect(rows.data[0]).toHaveLength(3)
  }, 60_000)

  it("give the model the titles, labels, synonyms and descriptions of the deployment's own model", async () => {
    const bootstrap = testBootstrap()
    bootstrap.accounts[0].deployments![0].model = clinicFolder()
    const app = appWith([{ toolCalls: [{ name: 'serviceMeta', arguments: {} }] }, { text: ['**Visits**'] }], bootstrap)
    await ask(app, 'How many visits in 2024?', { externalId: 'llm-clinic' })
    const [meta] = toolResults(fake!.requests) as [{ cubes: Array<Record<string, unknown>> }]
    const cube = (name: string) => meta.cubes.find((entry) => entry.name === name)!
    expect(cube('appointments')).toMatchObject({ title: 'Appointments', synonyms: ['visits', 'consultations'] })
    expect(cube('patients').label).toBe('patients.name')
    expect(cube('doctors').dimensions).toContainEqual(
      expect.objectContaining({ name: 'doctors.title', title: 'Title', description: "The doctor's job title" }),
    )
    expect(SYSTEM_PROMPT).toContain('"synonyms"')
    expect(SYSTEM_PROMPT).toContain('"label"')
  }, 60_000)

  it("describe the deployment's own model in the system prompt, with none of the demo's names on another model", async () => {
    const bootstrap = testBootstrap()
    bootstrap.accounts[0].deployments![0].model = clinicFolder()
    const app = appWith([{ text: ['**Visits**'] }], bootstrap)
    await ask(app, 'How many visits in 2024?', { externalId: 'llm-clinic-prompt' })
    const system = (fake!.requests[0].messages as Array<{ role: string; content: string }>)[0].content
    expect(system).toStartWith(SYSTEM_PROMPT)
    expect(system).toContain('- appointments "Appointments" (also: visits, consultations')
    expect(system).toContain('appointments.count')
    expect(system).toContain('rows named by patients.name')
    expect(system).toContain('doctors.title "Title" (string; The doctor\'s job title)')
    for (const demoName of ['orders', 'customer', 'products.', 'line_items', 'order_overview', 'total_amount'])
      expect(system).not.toContain(demoName)
  }, 60_000)

  it('describe the model as the caller may query it, row access included', async () => {
    const app = appWith([{ text: ['**Orders**'] }])
    await ask(app, 'How many orders?', {
      externalId: 'llm-europe-prompt',
      userAttributes: [{ name: 'region', value: 'Europe' }],
    })
    const system = (fake!.requests[0].messages as Array<{ role: string; content: string }>)[0].content
    expect(system).toContain('orders.total_amount "Revenue" (sum')
    expect(system).toMatch(/- orders "Orders" [^\n]*\[rowAccess: [^\n]*Region/)
  }, 60_000)

  it('show a user whose row-level security hides Asia no Asia value, so the model can say so instead of guessing', async () => {
    const app = appWith(transcript)
    await ask(app, 'Top 3 customers in Asia by revenue', {
      externalId: 'llm-europe',
      userAttributes: [{ name: 'region', value: 'Europe' }],
    })
    const [, search, rows] = toolResults(fake!.requests) as [unknown, { values: unknown[] }, { data: string[][] }]
    expect(search.values).toEqual([])
    expect(rows.data).toEqual([])
  }, 60_000)
})
