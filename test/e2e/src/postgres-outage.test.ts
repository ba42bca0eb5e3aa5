import { afterAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chatBase, lineReader, messageId, type Line } from '../../helpers/chat'
import { ownPostgresServer, postgresAvailable, warnSkipped, type DatabaseServer } from '../../helpers/database-servers'
import { TEST_DEMO_DATA } from '../../helpers/demo-data'
import { startServerProcess, type ServerProcess } from '../../../harness/server-process'

if (!postgresAvailable) warnSkipped('the Postgres outage tests')

const dir = mkdtempSync(join(tmpdir(), 'postgres-outage-'))
let server: ServerProcess | undefined
let hungServer: ServerProcess | undefined
afterAll(async () => {
  await server?.stop('SIGKILL')
  await hungServer?.stop('SIGKILL')
  rmSync(dir, { recursive: true, force: true })
})

const UNAVAILABLE = { error: 'The database does not answer; please retry shortly', code: 'STORAGE_UNAVAILABLE' }

/** The first answer of `request` that `done` accepts, within `timeoutMs`; the last one seen otherwise. */
async function eventually(request: () => Promise<Outcome>, done: (outcome: Outcome) => boolean, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const outcome = await request()
    if (done(outcome) || Date.now() > deadline) return outcome
    await Bun.sleep(100)
  }
}

interface Outcome {
  status: number
  retryAfter: string | null
  body: unknown
}

describe.skipIf(!postgresAvailable)('a node whose Postgres stops', () => {
  it('answers 503 STORAGE_UNAVAILABLE with Retry-After, logs it as a warning, ends a running turn with the failed line, and recovers once Postgres is back', async () => {
    // A Postgres server of its own: stopping the run's would take down every other test's state.
    const postgres: DatabaseServer = await ownPostgresServer()
    server = await startServerProcess({
      env: {
        DATABASE_URL: postgres.url,
        DB_PATH: join(dir, 'unused.db'),
        DEMO_DATA_PATH: TEST_DEMO_DATA,
        // Slow enough for Postgres to stop in the middle of an answer.
        ANALYST_DELAY_MS: '100',
      },
    })
    const url = server.url
    const demoKey = /Demo admin API key[^:]*: (ak_\S+)/.exec(server.output())?.[1]
    if (!demoKey) throw new Error(`no demo key in the server's output:\n${server.output()}`)
    const headers = { authorization: `Api-Key ${demoKey}`, 'content-type': 'application/json' }
    const call = async (method: string, path: string, body?: unknown, auth = true): Promise<Outcome> => {
      const response = await fetch(`${url}${path}`, {
        method,
        headers: auth ? headers : { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
      const text = await response.text()
      return {
        status: response.status,
        retryAfter: response.headers.get('retry-after'),
        body: response.headers.get('content-type')?.includes('application/json') ? JSON.parse(text) : text,
      }
    }
    const mint = () => call('POST', '/api/v1/embed/generate-session', { deploymentId: 1, externalId: 'outage-user' })
    const minted = await mint()
    expect(minted.status).toBe(200)
    const { sessionId } = minted.body as { sessionId: string }
    const routes: Record<string, () => Promise<Outcome>> = {
      'stream-chat-state': () =>
        call('POST', `${chatBase('demo')}/stream-chat-state`, {
          sessionSettings: { externalId: 'outage-user' },
          input: 'How many orders are there?',
        }),
      'generate-session': mint,
      'session/revoke': () => call('POST', '/api/v1/embed/session/revoke', { sessionId }),
      'session/token': () => call('POST', '/api/v1/embed/session/token', { sessionId }, false),
      reports: () => call('GET', '/api/v1/deployments/1/reports'),
    }
    const unavailable = (outcome: Outcome) => outcome.status === 503

    // A turn under way when Postgres goes: its answer cannot be saved, and the stream says so.
    const turn = await fetch(`${url}${chatBase('demo')}/stream-chat-state`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        sessionSettings: { externalId: 'outage-user' },
        input: 'How many orders are there?',
        messageId: messageId(1),
      }),
    })
    expect(turn.status).toBe(200)
    const reader = lineReader(turn)
    expect((await reader.next())?.id).toBe('__cutoff__')
    expect((await reader.next())?.id).toBe(messageId(1))

    for (const mode of ['fast', 'immediate'] as const) {
      await postgres.stop(mode)
      if (mode === 'fast') {
        const rest: Line[] = await reader.rest()
        expect(rest.at(-1)).toEqual({ error: 'The answer could not be saved; please try again' })
        expect(rest.some((line) => line.id === '__state__')).toBe(false)
      }
      for (const [name, request] of Object.entries(routes)) {
        const outcome = await eventually(request, unavailable)
        expect({ mode, name, ...outcome }).toEqual({ mode, name, status: 503, retryAfter: '5', body: UNAVAILABLE })
      }
      // /readyz names the failing storage with the driver's reason, not the text of the query that found out.
      const ready = await call('GET', '/readyz')
      expect(ready.status).toBe(503)
      const checks = (ready.body as { checks: Record<string, { status: string; error?: string }> }).checks
      expect(checks.storage.status).toBe('failing')
      expect(checks.storage.error).not.toContain('Failed query')
      // The node recovers by itself once Postgres is back.
      await postgres.start()
      const reports = await eventually(routes.reports, (outcome) => outcome.status === 200, 30_000)
      expect(reports.status).toBe(200)
      expect((await mint()).status).toBe(200)
    }

    const log = server.output()
    expect(log).toContain('"msg":"request failed: the database does not answer"')
    // Nothing of the outage is logged as an error: it is the database's, not a bug of the service.
    const errors = log.split('\n').filter((line) => line.includes('"level":"error"'))
    expect(errors).toEqual([])
  }, 180_000)
})

describe.skipIf(!postgresAvailable)('a node whose Postgres hangs', () => {
  it('answers 503 STORAGE_UNAVAILABLE within DATABASE_TIMEOUT_MS, not once the server answers again', async () => {
    // Frozen, not stopped: its connections stay open and nothing answers on them (a hung host, a silent network).
    const postgres: DatabaseServer = await ownPostgresServer()
    hungServer = await startServerProcess({
      env: {
        DATABASE_URL: postgres.url,
        DATABASE_TIMEOUT_MS: '1000',
        DB_PATH: join(dir, 'unused-hung.db'),
        DEMO_DATA_PATH: TEST_DEMO_DATA,
      },
    })
    const demoKey = /Demo admin API key[^:]*: (ak_\S+)/.exec(hungServer.output())?.[1]
    if (!demoKey) throw new Error(`no demo key in the server's output:\n${hungServer.output()}`)
    const headers = { authorization: `Api-Key ${demoKey}`, 'content-type': 'application/json' }
    const call = async (method: string, path: string, body?: unknown) => {
      const started = Date.now()
      const response = await fetch(`${hungServer!.url}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        // The client gives up long after the node should have: a hang fails the test instead of stalling it.
        signal: AbortSignal.timeout(15_000),
      })
      // A chat stream is many JSON lines; an error one object.
      const text = await response.text()
      const answer: unknown = response.status === 200 ? text : JSON.parse(text)
      return { status: response.status, body: answer, ms: Date.now() - started }
    }
    const requests: Record<string, () => ReturnType<typeof call>> = {
      'generate-session': () => call('POST', '/api/v1/embed/generate-session', { deploymentId: 1, externalId: 'hung' }),
      folders: () => call('GET', '/api/v1/deployments/1/folders'),
      'stream-chat-state': () =>
        call('POST', `${chatBase('demo')}/stream-chat-state`, {
          sessionSettings: { externalId: 'hung-user' },
          input: 'How many orders are there?',
        }),
    }
    // Each route once while the server answers (the key, the user and the pool are warm).
    for (const request of Object.values(requests)) expect((await request()).status).toBe(200)
    postgres.freeze!()
    try {
      const outcomes = await Promise.all(
        Object.entries(requests).map(async ([name, request]) => ({ name, ...(await request()) })),
      )
      for (const { name, status, body, ms } of outcomes) {
        expect({ name, status, body }).toEqual({ name, status: 503, body: UNAVAILABLE })
        expect(ms).toBeLessThan(10_000)
      }
    } finally {
      postgres.thaw!()
    }
    // Back to normal once it answers.
    const folders = await eventually(
      async () => {
        const outcome = await requests.folders()
        return { status: outcome.status, retryAfter: null, body: outcome.body }
      },
      (outcome) => outcome.status === 200,
    )
    expect(folders.status).toBe(200)
    const errors = hungServer
      .output()
      .split('\n')
      .filter((line) => line.includes('"level":"error"'))
    expect(errors).toEqual([])
  }, 90_000)
})
