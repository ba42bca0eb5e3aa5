import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { apiKey, createTestApp, type TestApp } from '../../helpers/app'
import { chatBase, finalAnswer, mergeLines, readLines } from '../../helpers/chat'
import { keys, testBootstrap } from '../../helpers/fixtures'

// A deployment whose database cannot be read: the analyst says so, never that the data lacks what was asked for.
let test: TestApp
let folder: string

beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'source-down-'))
  writeFileSync(
    join(folder, 'orders.yml'),
    `cubes:
  - name: orders
    sql_table: orders
    dimensions:
      - { name: id, type: number, primary_key: true }
      - { name: channel, type: string }
    measures:
      - { name: count, type: count, title: Number of orders }
`,
  )
  const bootstrap = testBootstrap()
  bootstrap.accounts[0].deployments![0].model = folder
  // A Postgres no server listens for: every connection is refused at once.
  const down = {
    type: 'postgres' as const,
    url: 'postgres://reader@127.0.0.1:1/shop',
    maxConnections: 2,
    queryTimeoutMs: 5000,
  }
  test = createTestApp({ bootstrap, dataSources: new Map([[1, down]]) })
}, 60_000)
afterAll(async () => {
  await test.close()
  rmSync(folder, { recursive: true, force: true })
})

describe('the offline analyst while the data source is down', () => {
  it('says the values it would look up could not be read, not that the data lacks them', async () => {
    const response = await test.request('POST', `${chatBase()}/stream-chat-state`, {
      headers: apiKey(keys.admin),
      body: { input: 'Number of orders for wholesale', sessionSettings: { externalId: 'source-down' } },
    })
    const answer = finalAnswer(mergeLines(await readLines(response)))?.content ?? ''
    expect(answer).toContain('unavailable')
    expect(answer).not.toContain("I don't know what")
  })
})
