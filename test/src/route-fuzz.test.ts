import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createLogger } from '../../lib/logger'
import { apiKey, createTestApp, type TestApp } from '../helpers/app'
import { TEST_DEMO_DATA } from '../helpers/demo-data'
import { fuzzReport } from '../helpers/fuzz-report'
import { keys, testBootstrap, tokenSecrets } from '../helpers/fixtures'
import {
  describeRequest,
  operationsOf,
  problemWith,
  requestArbitrary,
  type Credentials,
  type HostileRequest,
  type Operation,
} from '../helpers/hostile-requests'
import type { JsonSchema } from '../helpers/hostile-values'
import { serverDatabase, type ServerDatabase } from '../helpers/server-database'
import { startServerProcess, type ServerProcess } from '../helpers/server-process'
import { serviceToken } from '../helpers/tokens'

// Fixed run counts keep the test bounded; FUZZ_SEED replays a failure (every failure report prints the seed).
const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31))
const RUNS = Number(process.env.FUZZ_RUNS ?? 1000)
const SERVER_RUNS = Number(process.env.FUZZ_SERVER_RUNS ?? 150)
const report = fuzzReport(SEED, { FUZZ_RUNS: RUNS, FUZZ_SERVER_RUNS: SERVER_RUNS })

/** Path parameter values that exist in the test bootstrap. */
const VALID: Record<string, string[]> = {
  accountName: ['acme', 'other'],
  agentId: ['1', '2', '3'],
  deploymentId: ['1', '2', '3'],
  embedTenantName: ['tenant-one', 'tenant-two'],
  keyId: ['1', '2', '3'],
  id: ['1', '2'],
  widgetId: ['w1'],
  file: ['app.js'],
}

const SESSION_SETTINGS = {
  type: 'object',
  properties: {
    externalId: { type: 'string' },
    email: { type: 'string' },
    userAttributes: {
      type: 'array',
      items: {
        type: 'object',
        properties: { name: { type: 'string' }, value: { type: 'string' } },
        required: ['name', 'value'],
      },
    },
    groups: { type: 'array', items: { type: 'string' } },
  },
  required: ['externalId'],
}

/** Bodies of the operations the document describes without a schema (their handlers parse the body themselves). */
const FALLBACK_BODIES: Record<string, JsonSchema> = {
  '/chat/stream-chat-state': {
    type: 'object',
    properties: {
      input: { type: 'string' },
      messageId: { type: 'string' },
      chatId: { type: 'string' },
      activeBranchName: { type: 'string' },
      sessionSettings: SESSION_SETTINGS,
    },
    required: ['input', 'sessionSettings'],
  },
  '/embed/generate-session': {
    ...SESSION_SETTINGS,
    properties: {
      ...SESSION_SETTINGS.properties,
      deploymentId: { type: 'integer' },
      embedTenantName: { type: 'string' },
    },
    required: ['deploymentId', 'externalId'],
  },
}

/**
 * Content on deployment 1 for the path parameters to name: a folder, a report, a workbook and a published
 * dashboard with one widget. Their ids (and the dashboard's public id) join the existing values.
 */
async function seedContent(send: Parameters<typeof embedToken>[0]): Promise<Record<string, string[]>> {
  const create = async (path: string, body: unknown) => {
    const response = await send('POST', `/api/v1/deployments/1/${path}`, apiKey(keys.admin), body)
    expect(response.status).toBe(201)
    return (await response.json()) as { id: number; publicId?: string }
  }
  const folder = await create('folders', { name: 'Fuzzed folder' })
  const report = await create('reports', {
    name: 'Fuzzed report',
    query: 'SELECT MEASURE(orders.count) FROM orders',
    folderId: folder.id,
  })
  const workbook = await create('workbooks', { name: 'Fuzzed workbook' })
  const widget = { id: 'w1', kind: 'number', title: 'Orders', query: 'SELECT MEASURE(orders.count) FROM orders' }
  const dashboard = await create('dashboards', {
    workbookId: workbook.id,
    name: 'Fuzzed board',
    widgets: [widget],
    published: true,
  })
  const ids = (id: number) => [String(id), '1']
  return {
    ...VALID,
    folderId: ids(folder.id),
    reportId: ids(report.id),
    workbookId: ids(workbook.id),
    dashboardId: ids(dashboard.id),
    publicId: dashboard.publicId ? [dashboard.publicId] : ['1'],
  }
}

/** Embed token of an external user of deployment 1, minted and exchanged as a customer's backend would. */
async function embedToken(
  send: (method: string, path: string, headers: Record<string, string>, body: unknown) => Promise<Response>,
) {
  const session = await send('POST', '/api/v1/embed/generate-session', apiKey(keys.admin), {
    deploymentId: 1,
    externalId: 'fuzz-user',
    userAttributes: [{ name: 'region', value: 'Europe' }],
  })
  expect(session.status).toBe(200)
  const { sessionId } = (await session.json()) as { sessionId: string }
  const exchanged = await send('POST', '/api/v1/embed/session/token', {}, { sessionId })
  expect(exchanged.status).toBe(200)
  return ((await exchanged.json()) as { token: string }).token
}

async function credentialsFor(send: Parameters<typeof embedToken>[0]): Promise<Credentials> {
  return {
    admin: keys.admin,
    member: keys.member,
    scoped: keys.scoped,
    embedToken: await embedToken(send),
    serviceToken: await serviceToken(tokenSecrets.deployment2, { sub: 'fuzz-service-user', scope: ['chat'] }),
  }
}

function toRequest(base: string, request: HostileRequest): Request {
  return new Request(`${base}${request.url}`, { method: request.method, headers: request.headers, body: request.body })
}

/**
 * The account `other` is never among the fuzzer's credentials, so whatever the fuzzer changed (policies, settings,
 * deletions), its query must still answer as before.
 */
async function assertHealthy(send: (request: Request) => Promise<Response>, base: string) {
  // Prototype-pollution keys in bodies and query strings never reach the shared prototype.
  expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  expect(({} as Record<string, unknown>).admin).toBeUndefined()
  const health = await send(new Request(`${base}/healthz`))
  expect(health.status).toBe(200)
  const query = await send(
    new Request(`${base}/api/v1/deployments/3/sql`, {
      method: 'POST',
      headers: { ...apiKey(keys.otherAdmin), 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'SELECT orders.status, MEASURE(orders.count) FROM orders GROUP BY 1 ORDER BY 1' }),
    }),
  )
  expect(query.status).toBe(200)
  const body = (await query.json()) as { data: unknown[] }
  expect(body.data.length).toBeGreaterThan(0)
}

describe('every route of /openapi/json under hostile input', () => {
  let test: TestApp
  let operations: Operation[]

  const errors: string[] = []

  beforeAll(async () => {
    test = createTestApp({ logger: createLogger('error', {}, (line) => errors.push(line)) })
    const document = await (await test.request('GET', '/openapi/json')).json()
    operations = operationsOf(document as never, FALLBACK_BODIES)
  })
  afterAll(() => test.close())

  it('lists the routes it drives', () => {
    const paths = new Set(operations.map((operation) => operation.path))
    for (const path of [
      '/api/v1/deployments/{deploymentId}/sql',
      '/api/v1/embed/generate-session',
      '/api/v1/public/{accountName}/agents/{agentId}/chat/stream-chat-state',
    ])
      expect(paths).toContain(path)
    expect(operations.length).toBeGreaterThan(40)
  })

  const inProcess = 'answers every request below 500 with { error, code } errors, and stays healthy'
  it(
    inProcess,
    () =>
      report.run(inProcess, async () => {
        const handle = (request: Request) => test.app.handle(request)
        const send = (method: string, path: string, headers: Record<string, string>, body: unknown) =>
          test.request(method, path, { headers, body })
        const credentials = await credentialsFor(send)
        const valid = await seedContent(send)
        const seen = new Map<number, number>()
        const requests = fc.oneof(
          requestArbitrary(operations, credentials, valid),
          requestArbitrary(operations, credentials, valid, 'plausible'),
        )
        await report.assert(
          requests,
          async (request) => {
            const response = await report.send(request, (sent) => handle(toRequest('http://localhost', sent)))
            seen.set(response.status, (seen.get(response.status) ?? 0) + 1)
            if (process.env.FUZZ_DEBUG)
              console.log(
                response.status,
                request.method,
                request.url.slice(0, 90),
                JSON.stringify(request.headers).slice(0, 80),
                request.body?.slice(0, 120),
                (await response.clone().text()).slice(0, 160),
              )
            const problem = await problemWith(request, response)
            if (problem) throw new Error(problem)
            // Hostile input is the client's mistake: nothing of it is logged as a server error.
            if (errors.length > 0) throw new Error(`logged as a server error: ${errors.join('\n').slice(0, 2000)}`)
          },
          RUNS,
          describeRequest,
        )
        // The fuzzer reaches handlers, not only the validators in front of them.
        expect([...seen.keys()].some((status) => status < 300)).toBe(true)
        expect(seen.get(400) ?? 0).toBeGreaterThan(0)
        await assertHealthy(handle, 'http://localhost')
        expect(errors).toEqual([])
      }),
    120_000,
  )
})

describe('a listening server under hostile input', () => {
  let server: ServerProcess | undefined
  let database: ServerDatabase | undefined
  let folder: string

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'route-fuzz-'))
    const bootstrap = join(folder, 'bootstrap.json')
    writeFileSync(bootstrap, JSON.stringify(testBootstrap()))
    database = await serverDatabase(folder)
    server = await startServerProcess({
      ...database.env,
      BOOTSTRAP_FILE: bootstrap,
      DEMO_DATA_PATH: TEST_DEMO_DATA,
      ANALYST_DELAY_MS: '0',
      // Small enough that the fuzzer's large bodies meet the limit and its 413 answer.
      MAX_BODY_BYTES: '65536',
    })
  }, 90_000)
  afterAll(async () => {
    await server?.stop('SIGKILL')
    await database?.drop()
    rmSync(folder, { recursive: true, force: true })
  })

  /** Sends raw bytes and reads until the server answers or closes; malformed HTTP never reaches the app. */
  function raw(port: number, bytes: string): Promise<string> {
    return new Promise((resolve) => {
      let text = ''
      const socket = connect(port, '127.0.0.1', () => socket.end(bytes))
      socket.setTimeout(5_000, () => socket.destroy())
      socket.on('data', (chunk) => (text += chunk.toString('latin1')))
      socket.on('error', () => resolve(text))
      socket.on('close', () => resolve(text))
    })
  }

  const overNetwork = 'answers hostile requests over the network below 500 and stays healthy'
  it(
    overNetwork,
    () =>
      report.run(overNetwork, async () => {
        const base = server!.url
        const document = await (await fetch(`${base}/openapi/json`)).json()
        const operations = operationsOf(document as never, FALLBACK_BODIES)
        const credentials = await credentialsFor((method, path, headers, body) =>
          fetch(`${base}${path}`, {
            method,
            headers: { ...headers, 'content-type': 'application/json' },
            body: JSON.stringify(body),
          }),
        )
        const requests = fc.oneof(
          requestArbitrary(operations, credentials, VALID),
          requestArbitrary(operations, credentials, VALID, 'plausible'),
        )
        const check = async (request: HostileRequest) => {
          const problem = await problemWith(request, await report.send(request, (sent) => fetch(toRequest(base, sent))))
          if (problem) throw new Error(problem)
        }
        await report.assert(requests, check, SERVER_RUNS, describeRequest)
        // Bursts of hostile requests at once, for what only shows when requests overlap.
        await report.assert(
          fc.array(requests, { minLength: 2, maxLength: 12 }),
          async (burst) => {
            await Promise.all(burst.map(check))
          },
          Math.ceil(SERVER_RUNS / 10),
          (burst) => burst.map(describeRequest).join('\n  '),
        )

        // Oversized bodies, declared and chunked: 413 with the JSON error body, like every other refusal.
        const oversized: HostileRequest = {
          method: 'POST',
          url: '/api/v1/deployments/1/sql',
          headers: { authorization: `Api-Key ${keys.admin}`, 'content-type': 'application/json' },
          body: JSON.stringify({ query: 'x'.repeat(200_000) }),
        }
        for (const body of [oversized.body!, new Blob([oversized.body!]).stream()]) {
          const response = await report.send(oversized, (sent) =>
            fetch(`${base}${sent.url}`, { method: sent.method, headers: sent.headers, body }),
          )
          expect(response.status).toBe(413)
          expect(await problemWith(oversized, response)).toBeUndefined()
        }

        const broken = [
          'GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n',
          'POST /api/v1/embed/session/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{"sessionId"',
          'POST /api/v1/embed/session/token HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
          `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(100_000)}\r\n\r\n`,
          'GARBAGE\r\n\r\n',
          'GET /api/v1/deployments/1/meta HTTP/1.1\r\nHost: x\r\nAuthorization: Api-Key \u00ff\u00fe\r\n\r\n',
        ]
        for (const bytes of broken) {
          const answer = await raw(server!.port, bytes)
          expect(answer).not.toMatch(/^HTTP\/1\.1 5\d\d/)
        }
        await assertHealthy((request) => fetch(request), base)
        expect(server!.process.exitCode).toBeNull()
        // Hostile input is the client's mistake: nothing of it is logged as a server error.
        expect(
          server!
            .output()
            .split('\n')
            .filter((line) => /"level":"(error|fatal)"/.test(line)),
        ).toEqual([])
      }),
    120_000,
  )
})
