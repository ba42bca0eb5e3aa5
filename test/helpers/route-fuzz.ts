import { expect } from 'bun:test'
import { apiKey } from './app'
import { fuzzReport } from './fuzz-report'
import { keys, tokenSecrets } from './fixtures'
import type { Credentials, HostileRequest } from './hostile-requests'
import type { JsonSchema } from './hostile-values'
import { serviceToken } from './tokens'

/**
 * What the route fuzz tests share: the seed and run counts, the bootstrap's valid path values, the bodies the document
 * leaves without a schema, and how to get credentials, seed content and check health. The in-process run is
 * `test/src/route-fuzz.test.ts`, the run against a server process `test/e2e/src/route-fuzz.test.ts`.
 */

// Fixed run counts keep the test bounded; FUZZ_SEED replays a failure (every failure report prints the seed).
export const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31))
export const RUNS = Number(process.env.FUZZ_RUNS ?? 1000)
export const SERVER_RUNS = Number(process.env.FUZZ_SERVER_RUNS ?? 150)
export const report = fuzzReport(SEED, { FUZZ_RUNS: RUNS, FUZZ_SERVER_RUNS: SERVER_RUNS })

/** Path parameter values that exist in the test bootstrap. */
export const VALID: Record<string, string[]> = {
  accountName: ['acme', 'other'],
  agentId: ['1', '2', '3'],
  deploymentId: ['1', '2', '3'],
  embedTenantName: ['tenant-one', 'tenant-two'],
  keyId: ['1', '2', '3'],
  id: ['1', '2'],
  widgetId: ['w1'],
  file: ['app.js'],
}

export const SESSION_SETTINGS = {
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
export const FALLBACK_BODIES: Record<string, JsonSchema> = {
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
export async function seedContent(send: Parameters<typeof embedToken>[0]): Promise<Record<string, string[]>> {
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
export async function embedToken(
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

export async function credentialsFor(send: Parameters<typeof embedToken>[0]): Promise<Credentials> {
  return {
    admin: keys.admin,
    member: keys.member,
    scoped: keys.scoped,
    embedToken: await embedToken(send),
    serviceToken: await serviceToken(tokenSecrets.deployment2, { sub: 'fuzz-service-user', scope: ['chat'] }),
  }
}

export function toRequest(base: string, request: HostileRequest): Request {
  return new Request(`${base}${request.url}`, { method: request.method, headers: request.headers, body: request.body })
}

/**
 * The account `other` is never among the fuzzer's credentials, so whatever the fuzzer changed (policies, settings,
 * deletions), its query must still answer as before.
 */
export async function assertHealthy(send: (request: Request) => Promise<Response>, base: string) {
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
