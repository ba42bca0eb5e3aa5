import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { SQL, spawn } from 'bun'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chatBase, mergeLines, messageId, readLines } from '../../helpers/chat'
import { postgresAvailable, warnSkipped } from '../../helpers/database-servers'
import { TEST_DEMO_DATA } from '../../helpers/demo-data'
import {
  POSTGRES_START_MS,
  postgresStarted,
  throwawayPostgresDatabase,
  type ThrowawayDatabase,
} from '../../helpers/postgres-databases'
import { startServerProcess, type ServerProcess } from '../../../harness/server-process'

if (!postgresAvailable) warnSkipped('the server-on-Postgres tests')

const root = join(import.meta.dir, '..', '..', '..')
const dir = mkdtempSync(join(tmpdir(), 'server-postgres-'))
const servers: ServerProcess[] = []
let database: ThrowawayDatabase | undefined
afterAll(async () => {
  for (const server of servers) await server.stop('SIGKILL')
  await database?.drop()
  rmSync(dir, { recursive: true, force: true })
})

/** `service <argv>` as a process of its own, as an operator runs it next to the server. */
async function service(argv: string[], env: Record<string, string>) {
  const child = spawn([process.execPath, 'run', join(root, 'src', 'main.ts'), ...argv], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [out, err, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ])
  return { out, err, code }
}

describe.skipIf(!postgresAvailable)('the server with DATABASE_URL', () => {
  beforeAll(postgresStarted, POSTGRES_START_MS)

  it('migrates and seeds an empty Postgres, is ready, and serves keys, management, embed sessions and chat from it', async () => {
    database = await throwawayPostgresDatabase()
    const env = {
      DATABASE_URL: database.url,
      // Named only to show it stays untouched: the state lives in Postgres.
      DB_PATH: join(dir, 'unused.db'),
      DEMO_DATA_PATH: TEST_DEMO_DATA,
      ANALYST_DELAY_MS: '0',
    }
    const server = await startServerProcess({ env })
    servers.push(server)
    const demoKey = /Demo admin API key[^:]*: (ak_\S+)/.exec(server.output())?.[1]
    if (!demoKey) throw new Error(`no demo key in the server's output:\n${server.output()}`)
    const url = new URL(database.url)
    expect(server.output()).toContain(`"db":"postgres://${url.username}@${url.host}${url.pathname}"`)

    const ready = await fetch(`${server.url}/readyz`)
    expect({ status: ready.status, body: await ready.json() }).toMatchObject({
      status: 200,
      body: { status: 'ready', checks: { storage: { status: 'ok' }, postgres: { status: 'ok' } } },
    })

    // A key made from the command line against the same database works at once on the running server.
    const created = await service(['keys', 'create', '--account', 'demo', '--admin', '--name', 'ops'], env)
    expect(created).toMatchObject({ code: 0, err: '' })
    const key = /\b(ak_[A-Za-z0-9_-]{20,})(?![A-Za-z0-9_-])/.exec(created.out)![1]
    const headers = { authorization: `Api-Key ${key}`, 'content-type': 'application/json' }
    const meta = await fetch(`${server.url}/api/v1/deployments/1/meta`, { headers })
    expect(meta.status).toBe(200)
    const refused = await fetch(`${server.url}/api/v1/deployments/1/meta`, {
      headers: { authorization: 'Api-Key ak_not_a_key_0123456789abcdef' },
    })
    expect(refused.status).toBe(401)

    // Management: the demo's seeded dashboard is listed.
    const dashboards = await fetch(`${server.url}/api/v1/deployments/1/dashboards?published=true`, { headers })
    expect(dashboards.status).toBe(200)
    expect(JSON.stringify(await dashboards.json())).toContain('Sales overview')

    // Embed: a session minted for an external user, then exchanged for its token, once.
    const minted = await fetch(`${server.url}/api/v1/embed/generate-session`, {
      method: 'POST',
      headers: { authorization: `Api-Key ${demoKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ deploymentId: 1, externalId: 'pg-user' }),
    })
    expect(minted.status).toBe(200)
    const { sessionId } = (await minted.json()) as { sessionId: string }
    const exchange = () =>
      fetch(`${server.url}/api/v1/embed/session/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ sessionId }),
      })
    const exchanged = await exchange()
    expect(exchanged.status).toBe(200)
    expect(((await exchanged.json()) as { token: string }).token.length).toBeGreaterThan(20)
    expect((await exchange()).status).toBeGreaterThanOrEqual(400)

    // Chat: a whole turn with the offline analyst, then the thread read back from the database.
    const turn = await fetch(`${server.url}${chatBase('demo')}/stream-chat-state`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        sessionSettings: { externalId: 'pg-user' },
        input: 'How many orders are there?',
        messageId: messageId(1),
      }),
    })
    expect(turn.status).toBe(200)
    const lines = await readLines(turn)
    const chatId = (lines[0].state as { chatId: string }).chatId
    const answered = mergeLines(lines).filter((message) => message.role === 'assistant')
    expect(answered.length).toBeGreaterThan(0)
    const state = await readLines(
      await fetch(`${server.url}${chatBase('demo')}/stream-chat-state`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ sessionSettings: { externalId: 'pg-user' }, chatId }),
      }),
    )
    const stored = (state.find((line) => line.id === '__state__')?.state as { messages: Array<{ role: string }> })
      .messages
    expect(stored[0]).toMatchObject({ role: 'user', content: 'How many orders are there?' })
    expect(stored.filter((message) => message.role === 'assistant').length).toBe(answered.length)

    const client = new SQL(database.url, { max: 1 })
    try {
      const [{ threads }] = await client`SELECT count(*)::int AS threads FROM chat_threads`
      expect(threads).toBe(1)
      const [{ runs }] = await client`SELECT count(*)::int AS runs FROM chat_runs WHERE status = 'completed'`
      expect(runs).toBe(1)
    } finally {
      await client.close()
    }

    expect(await server.stop('SIGTERM')).toBe(0)
    expect(existsSync(env.DB_PATH)).toBe(false)
  }, 120_000)
})

describe('service serve --db', () => {
  it('keeps the state in the SQLite file it names, even with DATABASE_URL set', async () => {
    const path = join(dir, 'named.db')
    const server = await startServerProcess({
      env: { DATABASE_URL: 'postgres://svc:secret@127.0.0.1:1/state', DEMO_DATA_PATH: TEST_DEMO_DATA },
      command: [process.execPath, 'run', join(root, 'src', 'main.ts'), 'serve', '--db', path],
    })
    servers.push(server)
    expect(server.output()).toContain(`"db":${JSON.stringify(path)}`)
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200)
    expect(await server.stop('SIGTERM')).toBe(0)
    expect(existsSync(path)).toBe(true)
  }, 60_000)
})
