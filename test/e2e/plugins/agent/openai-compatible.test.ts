import { Database } from 'bun:sqlite'
import { afterAll, describe, expect, it } from 'bun:test'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startServerProcess, type ServerProcess } from '../../../../harness/server-process'
import { finalAnswer, mergeLines, type Line } from '../../../helpers/chat'
import { startFakeOpenAI } from '../../../helpers/fake-openai'

/**
 * The service as an outside tester runs it: a real process with `LLM_*` pointing at an OpenAI-compatible server,
 * serving a library's SQLite database of its own (not the demo), with a row-level policy by city.
 */
const dir = mkdtempSync(join(tmpdir(), 'llm-e2e-'))
const key = 'ak_library_e2e_0123456789'
const apiKeyOfProvider = 'sk-provider-secret-e2e'

const db = new Database(join(dir, 'library.db'))
db.exec(`
  CREATE TABLE branches (id INTEGER PRIMARY KEY, city TEXT NOT NULL);
  CREATE TABLE loans (id INTEGER PRIMARY KEY, branch_id INTEGER NOT NULL REFERENCES branches(id), title TEXT NOT NULL);
  INSERT INTO branches VALUES (1, 'Oslo'), (2, 'Bergen');
  INSERT INTO loans VALUES (1, 1, 'Dune'), (2, 1, 'Emma'), (3, 2, 'Dune');
`)
db.close()
mkdirSync(join(dir, 'model'))
writeFileSync(
  join(dir, 'model', 'library.yml'),
  `cubes:
  - name: branches
    sql_table: branches
    title: Branches
    dimensions:
      - { name: id, sql: id, type: number, primary_key: true }
      - { name: city, sql: city, type: string, title: City }
  - name: loans
    sql_table: loans
    title: Loans
    joins:
      - { name: branches, relationship: many_to_one, sql: "{CUBE}.branch_id = {branches}.id" }
    dimensions:
      - { name: id, sql: id, type: number, primary_key: true }
      - { name: title, sql: title, type: string, title: Book title }
    measures:
      - { name: count, type: count, title: Number of loans }
    access_policy:
      - group: "*"
        row_level:
          filters: [{ member: branches.city, operator: equals, values: ["{ userAttributes.city }"] }]
`,
)
writeFileSync(
  join(dir, 'bootstrap.yaml'),
  `accounts:
  - name: library
    plan: enterprise
    apiKeys: [{ name: admin, key: ${key}, admin: true }]
    userAttributes: [{ name: city, type: string }]
    deployments:
      - id: 5
        name: Library
        model: ${join(dir, 'model')}
        dataSource: { type: sqlite, path: ${join(dir, 'library.db')} }
        agents: [{ id: 5, name: Analyst }]
`,
)

const QUERY = 'SELECT branches.city, MEASURE(loans.count) FROM loans GROUP BY 1'
const fake = startFakeOpenAI([
  { toolCalls: [{ name: 'serviceMeta', arguments: {} }] },
  { toolCalls: [{ name: 'serviceSqlApi', arguments: { sqlQuery: QUERY } }] },
  { text: ['**Loans by city**\n\n', '| City | Loans |'] },
  { text: ['Still 2 loans.'] },
  { status: 500, body: `{"error":{"message":"upstream broke for ${apiKeyOfProvider}"}}` },
])
let server: ServerProcess
afterAll(async () => {
  await server?.stop('SIGKILL')
  fake.stop()
  rmSync(dir, { recursive: true, force: true })
})

async function ask(body: object): Promise<Line[]> {
  const response = await fetch(`${server.url}/api/v1/public/library/agents/5/chat/stream-chat-state`, {
    method: 'POST',
    headers: { authorization: `Api-Key ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      sessionSettings: { externalId: 'reader-oslo', userAttributes: [{ name: 'city', value: 'Oslo' }] },
      ...body,
    }),
  })
  expect(response.status).toBe(200)
  return (await response.text())
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Line)
}

describe('the service on an OpenAI-compatible model, serving a database of its own', () => {
  it('describes that model to the model, answers through its tools under row-level security, and keeps the thread', async () => {
    server = await startServerProcess({
      env: {
        DB_PATH: join(dir, 'service.db'),
        BOOTSTRAP_FILE: join(dir, 'bootstrap.yaml'),
        LLM_BASE_URL: fake.url,
        LLM_API_KEY: apiKeyOfProvider,
        LLM_MODEL: 'fake-model',
      },
    })
    const first = await ask({ input: 'How many loans per city?' })
    const system = (fake.requests[0].messages as Array<{ role: string; content: string }>)[0]
    expect(system.role).toBe('system')
    expect(system.content).toContain('- loans "Loans"')
    expect(system.content).toContain('loans.count "Number of loans" (count)')
    expect(system.content).toMatch(/\[rowAccess: [^\n]*City/)
    expect(system.content).not.toMatch(/orders|customers|total_amount/)
    const sql = first.find((line) => line.toolCall?.name === 'serviceSqlApi' && line.toolCall.result)
    expect(JSON.parse(sql!.toolCall!.result!)).toMatchObject({ data: [['Oslo', '2']], totalRows: 1 })
    expect(finalAnswer(mergeLines(first))?.content).toBe('**Loans by city**\n\n| City | Loans |')

    const chatId = (first[0].state as { chatId: string }).chatId
    const second = await ask({ chatId, input: 'And now?' })
    expect(second.at(-1)?.id).toBe('__state__')
    const history = (fake.requests[3].messages as Array<{ role: string; content: unknown }>).slice(1)
    expect(history).toEqual([
      { role: 'user', content: 'How many loans per city?' },
      { role: 'assistant', content: '**Loans by city**\n\n| City | Loans |' },
      { role: 'user', content: 'And now?' },
    ])
    const stored = await ask({ chatId })
    expect((stored.at(-1)!.state as { messages: Line[] }).messages).toEqual(
      (second.at(-1)!.state as { messages: Line[] }).messages,
    )

    const failed = await ask({ input: 'Once more' })
    expect(failed.at(-1)).toEqual({ error: 'The model provider failed (HTTP 500)' })
    expect(JSON.stringify(failed) + server.output()).not.toContain(apiKeyOfProvider)
    expect(server.output()).not.toContain('upstream broke')
  }, 60_000)
})
