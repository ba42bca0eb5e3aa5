import { and, eq } from 'drizzle-orm'
import { first } from '../../../db/client'
import { createTestApp, testClock, type TestAppOptions } from '../../helpers/app'
import { chatBase, messageId, readLines } from '../../helpers/chat'
import { keys } from '../../helpers/fixtures'

/** Parsed JSON answers; tests read them freely, the assertions check the shapes. */
export type Json = Record<string, any>

export interface ApiResponse {
  status: number
  body: Json
  headers: Headers
}

/**
 * A test app with a controllable clock and a JSON caller: `call(method, path, body?, key?)` sends the request
 * with an admin key unless told otherwise and parses the JSON answer.
 */
export function managementApp(options: TestAppOptions = {}) {
  const clock = testClock()
  const test = createTestApp({ clock, ...options })
  async function call(method: string, path: string, body?: unknown, key: string = keys.admin): Promise<ApiResponse> {
    const response = await test.request(method, path, { body, headers: key ? { authorization: `Api-Key ${key}` } : {} })
    const text = await response.text()
    return { status: response.status, body: text ? (JSON.parse(text) as Json) : {}, headers: response.headers }
  }
  return { ...test, clock, call }
}

export type ManagementApp = ReturnType<typeof managementApp>

export const D1 = '/api/v1/deployments/1'
export const D2 = '/api/v1/deployments/2'

/** Creates a workbook with a dashboard holding one widget per entry of `widgets` (ids `w1`, `w2`, ...). */
export async function workbookWithDashboard(
  app: ManagementApp,
  options: { published?: boolean; restrictDataDownload?: boolean; shared?: boolean; widgets?: number } = {},
) {
  const workbook = await app.call('POST', `${D1}/workbooks`, { name: 'Sales', shared: options.shared ?? false })
  const widgets = Array.from({ length: options.widgets ?? 1 }, (_, index) => ({
    id: `w${index + 1}`,
    kind: 'number',
    title: `Orders ${index + 1}`,
    query: 'SELECT MEASURE(orders.count) FROM orders',
  }))
  const dashboard = await app.call('POST', `${D1}/dashboards`, {
    workbookId: workbook.body.id,
    name: 'Sales board',
    widgets,
    published: options.published ?? false,
    restrictDataDownload: options.restrictDataDownload ?? false,
  })
  return { workbook: workbook.body, dashboard: dashboard.body }
}

/** The id of one of the fixtures' API keys (`admin`, `member`, `scoped`) of account 1. */
export async function apiKeyId(app: ManagementApp, name: string): Promise<number> {
  const { apiKeys } = app.storage.tables
  const key = await first(
    app.storage.db
      .select({ id: apiKeys.id })
      .from(apiKeys)
      .where(and(eq(apiKeys.name, name), eq(apiKeys.accountId, 1))),
  )
  if (!key) throw new Error(`No API key named ${name} in account 1`)
  return key.id
}

let threadSequence = 0

/** A chat thread of the agent's deployment (agent 1: deployment 1), started by a real turn; resolves with its id. */
export async function chatThread(
  app: ManagementApp,
  agentId = 1,
  account = 'acme',
  key: string = keys.admin,
): Promise<string> {
  const response = await app.request('POST', `${chatBase(account, agentId)}/stream-chat-state`, {
    headers: { authorization: `Api-Key ${key}` },
    body: { input: 'Hello', messageId: messageId(threadSequence++), sessionSettings: { externalId: 'widget-user' } },
  })
  const lines = await readLines(response)
  const chatId = (lines[0] as { state?: { chatId?: string } }).state?.chatId
  if (response.status !== 200 || !chatId) throw new Error(`no thread started: ${response.status}`)
  return chatId
}
