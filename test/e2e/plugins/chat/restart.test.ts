import { afterAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { lineReader, messageId, type Line } from '../../../helpers/chat'
import { serverDatabase } from '../../../helpers/server-database'
import { startServerProcess, type ServerProcess } from '../../../../harness/server-process'
import { TEST_DEMO_DATA } from '../../../helpers/demo-data'

const dir = mkdtempSync(join(tmpdir(), 'chat-restart-'))
const key = 'ak_restart_test_0123456789'
const servers: ServerProcess[] = []
// Restarted on the same database: its SQLite file, or with TEST_STORAGE=postgres its Postgres database.
const database = await serverDatabase(dir)
afterAll(async () => {
  for (const server of servers) await server.stop('SIGKILL')
  await database.drop()
  rmSync(dir, { recursive: true, force: true })
})

// A scripted agent that streams one line a second: slow enough to kill the process in the middle of a run.
writeFileSync(
  join(dir, 'bootstrap.yaml'),
  `accounts:
  - name: acme
    plan: enterprise
    apiKeys: [{ name: admin, key: ${key}, admin: true }]
    deployments:
      - id: 1
        name: Restart test
        agents: [{ id: 1, name: Slow, kind: scripted, config: { lines: 30, lineBytes: 5, delayMs: 1000 } }]
`,
)
const env = {
  ...database.env,
  BOOTSTRAP_FILE: join(dir, 'bootstrap.yaml'),
  DEMO_DATA_PATH: TEST_DEMO_DATA,
}
const post = (server: ServerProcess, body: unknown) =>
  fetch(`${server.url}/api/v1/public/acme/agents/1/chat/stream-chat-state`, {
    method: 'POST',
    headers: { authorization: `Api-Key ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ sessionSettings: { externalId: 'restart-user' }, ...(body as object) }),
  })

describe('restart safety', () => {
  it('marks runs cut by a crash as interrupted; their threads stay readable and accept new messages', async () => {
    const first = await startServerProcess({ env })
    servers.push(first)
    const reader = lineReader(await post(first, { input: 'Tell me a long story', messageId: messageId(1) }))
    const seen: Line[] = []
    while (seen.filter((line) => line.isDelta).length < 2) seen.push((await reader.next())!)
    const chatId = (seen[0].state as { chatId: string }).chatId
    // Kill the process without any chance to clean up: what the client received is stored already.
    await first.stop('SIGKILL')

    const second = await startServerProcess({ env })
    servers.push(second)
    const state = await lineReader(await post(second, { chatId })).rest()
    // Logged before the first request is answered: on SQLite before the server listens, on Postgres while the first
    // requests wait for it. The output reaches this process through a pipe, a moment later.
    for (let wait = 0; wait < 100 && !second.output().includes('marked runs of a previous'); wait++) await Bun.sleep(50)
    expect(second.output()).toContain('marked runs of a previous process as interrupted')
    expect(state.map((line) => line.id)).toEqual(['__cutoff__', '__state__'])
    const messages = (state[1].state as { messages: Line[] }).messages
    expect(messages[0]).toMatchObject({ role: 'user', content: 'Tell me a long story' })
    expect(messages[1]).toMatchObject({ role: 'assistant', interrupted: true, isInProcess: false })
    const received = seen
      .filter((line) => line.isDelta)
      .map((line) => line.content)
      .join('')
    expect((messages[1].content as string).startsWith(received)).toBe(true)
    expect(received.length).toBeGreaterThan(0)

    // The same messageId is finished now, not running: it is answered from the database.
    const again = await lineReader(
      await post(second, { chatId, input: 'Tell me a long story', messageId: messageId(1) }),
    ).rest()
    expect(again.map((line) => line.id)).toEqual(['__cutoff__', '__state__'])
    // A new message starts a new run on the same thread.
    const next = lineReader(await post(second, { chatId, input: 'Again please', messageId: messageId(2) }))
    expect((await next.next())?.state).toEqual({ chatId, isStreaming: false })
    expect((await next.next())?.content).toBe('Again please')
    expect((await next.next())?.role).toBe('assistant')
    next.cancel()
    expect(await second.stop('SIGTERM')).toBe(0)
  }, 60_000)
})
