import { afterAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { lineReader, type Line } from '../../helpers/chat'
import { connectChatSocket } from '../../helpers/chat-socket'
import { TEST_DEMO_DATA } from '../../helpers/demo-data'
import { startServerProcess, type ServerProcess } from '../../../harness/server-process'

const dir = mkdtempSync(join(tmpdir(), 'graceful-shutdown-'))
const key = 'ak_demo_key_for_shutdown_0123456789'
const servers: ServerProcess[] = []
afterAll(async () => {
  for (const server of servers) await server.stop('SIGKILL')
  rmSync(dir, { recursive: true, force: true })
})

describe('SIGTERM', () => {
  it('lets in-flight queries finish, ends active runs and chat sockets, and exits well within the grace period', async () => {
    const server = await startServerProcess({
      env: {
        DB_PATH: join(dir, 'service.db'),
        DEMO_DATA_PATH: TEST_DEMO_DATA,
        DEMO_API_KEY: key,
        // The offline analyst's answer takes seconds: still streaming when the signal comes.
        ANALYST_DELAY_MS: '50',
        SHUTDOWN_GRACE_MS: '30000',
      },
    })
    servers.push(server)
    const headers = { authorization: `Api-Key ${key}`, 'content-type': 'application/json' }
    const chatBase = `${server.url}/api/v1/public/demo/agents/1/chat`

    // An idle chat socket: the server waits for open sockets before it stops, so it must close them.
    const socket = await connectChatSocket(`${chatBase.replace('http', 'ws')}/ws`, { authorization: `Api-Key ${key}` })
    const reader = lineReader(
      await fetch(`${chatBase}/stream-chat-state`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          input: 'What was the revenue by region in 2024?',
          sessionSettings: { externalId: 'u1' },
        }),
      }),
    )
    const seen: Line[] = []
    while (!seen.some((line) => line.isDelta)) seen.push((await reader.next())!)

    // Queries that take a while in the query processes (each its own, so none is answered from the cache).
    const sentAt = performance.now()
    let signalledAt = Number.POSITIVE_INFINITY
    const queries = Array.from({ length: 6 }, async (_, index) => {
      const response = await fetch(`${server.url}/api/v1/deployments/1/sql`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          query: `SELECT customers.city, products.name, MEASURE(orders.count) FROM orders WHERE products.price > ${index + 1} GROUP BY 1, 2`,
          limit: 10000,
        }),
      })
      return { status: response.status, body: await response.json(), at: performance.now() }
    })
    await Bun.sleep(30)
    signalledAt = performance.now()
    server.process.kill('SIGTERM')

    const answered = await Promise.all(queries)
    for (const query of answered) {
      expect(query.status).toBe(200)
      expect((query.body as { data: unknown[] }).data.length).toBeGreaterThan(0)
    }
    // What makes this test mean something: queries were still running when the signal came.
    expect(answered.filter((query) => query.at > signalledAt).length).toBeGreaterThan(0)
    expect(signalledAt - sentAt).toBeLessThan(1000)

    const rest = await reader.rest()
    expect(rest.at(-1)).toEqual({ error: 'The server is shutting down; the run was interrupted' })
    expect(await socket.waitForClose()).toEqual({ code: 1001, reason: 'The server is shutting down' })
    // Long before the 30 s grace period: nothing held the server open.
    const exited = await Promise.race([server.process.exited, Bun.sleep(15_000).then(() => 'still running')])
    expect(exited).toBe(0)
    // Its last words reach this process through a pipe, a moment after it exits.
    for (let wait = 0; wait < 40 && !server.output().includes('"msg":"stopped"'); wait++) await Bun.sleep(50)
    expect(server.output()).toContain('"msg":"stopped"')
  }, 60_000)
})
