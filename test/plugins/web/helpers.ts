import { eq } from 'drizzle-orm'
import type { BootstrapFile } from '../../../src/bootstrap/model'
import { apiKey, type TestApp } from '../../helpers/app'
import { keys, testBootstrap } from '../../helpers/fixtures'

/** Parsed JSON answers; tests read them freely, the assertions check the shapes. */
export type Json = Record<string, any>

/** The widgets every embed test dashboard has: one of each kind the management API allows. */
export const demoWidgets = [
  { id: 'orders', kind: 'number', title: 'Orders', query: 'SELECT MEASURE(orders.count) AS orders FROM orders' },
  {
    id: 'status',
    kind: 'bar',
    title: 'Revenue by status',
    query: 'SELECT orders.status, MEASURE(orders.total_amount) AS revenue FROM orders GROUP BY 1 ORDER BY 2 DESC',
  },
  {
    id: 'monthly',
    kind: 'line',
    title: 'Revenue by month',
    query:
      "SELECT DATE_TRUNC('month', orders.created_at) AS month, MEASURE(orders.total_amount) AS revenue FROM orders GROUP BY 1 ORDER BY 1",
  },
  {
    id: 'regions',
    kind: 'table',
    title: 'Orders by region',
    query:
      'SELECT customers.region, MEASURE(orders.count) AS orders, MEASURE(orders.total_amount) AS revenue FROM orders GROUP BY 1 ORDER BY 1',
  },
] as const

/**
 * The test bootstrap plus account `quiet`, whose account-wide `showDashboardChat` is off (deployment 5, agent 5, the
 * demo model and its `region` attribute), so both sides of the tri-state can be tested.
 */
export function webBootstrap(): BootstrapFile {
  const file = testBootstrap()
  file.accounts.push({
    name: 'quiet',
    plan: 'enterprise',
    settings: { showDashboardChat: false },
    apiKeys: [{ name: 'admin', key: quietAdminKey, admin: true }],
    userAttributes: [{ name: 'region', type: 'string' }],
    deployments: [{ id: 5, name: 'Quiet analytics', model: 'demo', agents: [{ id: 5, name: 'Quiet analyst' }] }],
  })
  return file
}

export const quietAdminKey = 'ak_test_quiet_admin_0123456789'

async function json(response: Response): Promise<Json> {
  const text = await response.text()
  return text ? (JSON.parse(text) as Json) : {}
}

/** Creates a workbook and its published dashboard on `deploymentId`; returns the dashboard. */
export async function publishDashboard(
  test: Pick<TestApp, 'request'>,
  options: {
    deploymentId?: number
    key?: string
    restrictDataDownload?: boolean
    widgets?: ReadonlyArray<Record<string, string>>
    published?: boolean
    filters?: Json[]
    timeGrains?: Json[]
  } = {},
): Promise<Json> {
  const deployment = `/api/v1/deployments/${options.deploymentId ?? 1}`
  const headers = apiKey(options.key ?? keys.admin)
  const workbook = await json(
    await test.request('POST', `${deployment}/workbooks`, { body: { name: `Board ${crypto.randomUUID()}` }, headers }),
  )
  const response = await test.request('POST', `${deployment}/dashboards`, {
    headers,
    body: {
      workbookId: workbook.id,
      name: 'Sales overview',
      published: options.published ?? true,
      restrictDataDownload: options.restrictDataDownload ?? false,
      widgets: options.widgets ?? demoWidgets,
      filters: options.filters ?? [],
      timeGrains: options.timeGrains ?? [],
    },
  })
  if (response.status !== 201)
    throw new Error(`creating the dashboard failed: ${response.status} ${await response.text()}`)
  return json(response)
}

/** Mints a session (generate-session, admin key) and returns its id. */
export async function mintSession(
  test: Pick<TestApp, 'request'>,
  body: Json,
  key: string = keys.admin,
): Promise<string> {
  const response = await test.request('POST', '/api/v1/embed/generate-session', {
    body: { deploymentId: 1, ...body },
    headers: apiKey(key),
  })
  if (response.status !== 200) throw new Error(`generate-session failed: ${response.status} ${await response.text()}`)
  return (await json(response)).sessionId as string
}

/** Mints a session and exchanges it: the embed token a page would hold. */
export async function embedToken(
  test: Pick<TestApp, 'request'>,
  body: Json,
  key: string = keys.admin,
): Promise<string> {
  const sessionId = await mintSession(test, body, key)
  const response = await test.request('POST', '/api/v1/embed/session/token', { body: { sessionId } })
  return (await json(response)).token as string
}

export const embed = (token: string) => ({ authorization: `Embed-Token ${token}` })

export { json }

/** Replaces a published dashboard's widgets in the storage, past the management API's checks (for broken widgets). */
export async function storeWidgets(test: TestApp, publicId: string, widgets: unknown[]): Promise<void> {
  const { dashboards } = test.storage.tables
  await test.storage.transaction(async (tx) => {
    await tx.update(dashboards).set({ widgets }).where(eq(dashboards.publicId, publicId))
  })
}
