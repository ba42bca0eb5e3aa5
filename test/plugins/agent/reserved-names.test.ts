import { Database } from 'bun:sqlite'
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { apiKey, createTestApp, type TestApp } from '../../helpers/app'
import { chatBase, finalAnswer, mergeLines, readLines } from '../../helpers/chat'
import { keys, testBootstrap } from '../../helpers/fixtures'

// A shop whose tables and columns are named by words SQL reserves (`order`, `group`, `from`, `user`), as a
// database may name them and `model generate` keeps them: the analyst's queries must still read.
let test: TestApp
let folder: string

beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'reserved-names-'))
  writeFileSync(
    join(folder, 'order.yml'),
    `cubes:
  - name: order
    sql_table: order
    title: Orders
    dimensions:
      - { name: id, type: number, primary_key: true, title: Order ID }
      - { name: group, type: string, title: Channel }
      - { name: from, type: time, title: Order date }
    measures:
      - { name: count, type: count, title: Number of orders }
      - { name: total_amount, type: sum, sql: amount, title: Revenue, format: currency }
`,
  )
  const data = new Database(join(folder, 'data.db'))
  data.run('CREATE TABLE "order" (id INTEGER PRIMARY KEY, "group" TEXT, "from" TEXT, amount REAL)')
  data.run(
    `INSERT INTO "order" VALUES (1, 'wholesale', '2024-01-05', 10.5), (2, 'wholesale', '2024-02-07', 20.25), (3, 'crème', '2024-02-08', 100)`,
  )
  data.close()
  const bootstrap = testBootstrap()
  bootstrap.accounts[0].deployments![0].model = folder
  test = createTestApp({ bootstrap })
}, 60_000)
afterAll(async () => {
  await test.close()
  rmSync(folder, { recursive: true, force: true })
})

async function ask(input: string): Promise<string> {
  const response = await test.request('POST', `${chatBase()}/stream-chat-state`, {
    headers: apiKey(keys.admin),
    body: { input, sessionSettings: { externalId: 'reserved-names' } },
  })
  return finalAnswer(mergeLines(await readLines(response)))?.content ?? ''
}

describe('the offline analyst on a model named by reserved words', () => {
  it('answers a breakdown by a member named by a reserved word', async () => {
    const answer = await ask('Revenue by channel')
    expect(answer).not.toContain('could not')
    expect(answer).toMatch(/crème[^\n]*100/i)
    expect(answer).toMatch(/wholesale[^\n]*30\.75/i)
  })

  it('answers over time along a time dimension named by a reserved word', async () => {
    const answer = await ask('Number of orders by month')
    expect(answer).not.toContain('could not')
    expect(answer).toContain('| 2024-02 | 2 |')
  })

  it('breaks down by a dimension named by a word most questions use for nothing (group)', async () => {
    const answer = await ask('Number of orders by group')
    expect(answer).toContain('| wholesale | 2 |')
    expect(answer).toContain('| crème | 1 |')
  })

  it('finds a value, written with an accent, of a member named by a reserved word', async () => {
    const answer = await ask('Number of orders for crème')
    expect(answer).not.toContain('could not')
    expect(answer).toContain('**1**')
  })
})
