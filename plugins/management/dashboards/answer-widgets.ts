import { and, asc, eq } from 'drizzle-orm'
import { first, type Db, type Tables } from '../../../db/client'
import { NotFoundError } from '../../../lib/errors'
import type { AnswerSource, DashboardWidgetKind, RelativePeriod } from '../model'
import { relativePeriodOf, relativeTitle } from './relative-period'

/** What a widget takes from a chat answer: the query behind its chart (never its rows), and how to show it. */
export interface AnswerWidget {
  kind: DashboardWidgetKind
  title: string
  query: string
  period?: RelativePeriod
  source: AnswerSource
}

/** Whose threads a widget may be made from: a deployment's, and, for an embed session, only its own user's. */
export interface AnswerScope {
  deploymentId: number
  userId?: number
}

interface StoredMessage {
  id: string
  role: 'user' | 'assistant'
  content: string
  toolCall: { name: string; input: string; result?: string } | null
}

interface SqlResultLike {
  schema: Array<{ name: string; column_type: string }>
  data: Array<Array<string | null>>
}

function parsed(text: string | undefined): unknown {
  if (text === undefined) return undefined
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

function sqlResult(value: unknown): SqlResultLike | undefined {
  const candidate = value as Partial<SqlResultLike> | null | undefined
  return candidate && Array.isArray(candidate.schema) && Array.isArray(candidate.data)
    ? (candidate as SqlResultLike)
    : undefined
}

/**
 * A lookup of a dimension's values (to match words of the question: one column, no measure) is plumbing, not an
 * answer; the chat page leaves it out of the answer's chart by the same rule.
 */
function isValueLookup(sql: string, title: string): boolean {
  if (/^values of\b/i.test(title)) return true
  const select = /^\s*select\s+(.*?)\s+from\s/is.exec(sql)?.[1] ?? ''
  return !/[(,]/.test(select) && /\bgroup\s+by\b/i.test(sql)
}

interface AnswerQuery {
  sql: string
  title: string
  userRequest: string | undefined
  result: SqlResultLike
}

/** A message's successful semantic query, unless it is a value lookup. */
function queryOf(message: StoredMessage): AnswerQuery | undefined {
  if (message.toolCall?.name !== 'serviceSqlApi') return undefined
  const input = (parsed(message.toolCall.input) ?? {}) as Record<string, unknown>
  const result = sqlResult(parsed(message.toolCall.result))
  const sql = typeof input.sqlQuery === 'string' ? input.sqlQuery : ''
  const title = typeof input.queryTitle === 'string' && input.queryTitle.trim() !== '' ? input.queryTitle : 'Query'
  if (!result || sql === '' || isValueLookup(sql, title)) return undefined
  const userRequest = typeof input.userRequest === 'string' ? input.userRequest : undefined
  return { sql, title, userRequest, result }
}

/**
 * The chart an answer's result reads best as, by the rules the chat page draws it with: one row of numbers is a
 * KPI, a series over one time column a line, a few categories (up to 12) bars, anything else a table.
 */
export function chartOf(result: SqlResultLike): DashboardWidgetKind {
  const isKey = (name: string) => /(^|[._])id$/i.test(name)
  const numeric = result.schema.map((column) => column.column_type === 'number' && !isKey(column.name))
  if (result.data.length === 1 && numeric.length > 0 && numeric.every(Boolean)) return 'number'
  const valueIndex = numeric.indexOf(true)
  if (valueIndex < 0 || result.data.length < 2) return 'table'
  const labels = result.schema.filter((_, index) => index !== valueIndex && !numeric[index])
  const times = result.schema.filter((column) => column.column_type === 'time').length
  if (labels.length === 1 && labels[0].column_type === 'time') return 'line'
  if (times > 0) return 'table'
  return result.data.length <= 12 ? 'bar' : 'table'
}

/**
 * The widget a chat answer makes. `messageId` names a message of the answer (its final text, one of its query
 * steps) or its question; the answer's query is the named step, else the last successful query of the answer (the
 * one its chart shows). A thread outside `scope` and an unknown message are 404 like an answer that ran no query:
 * nobody learns about threads that are not theirs.
 */
export async function widgetFromAnswer(
  db: Db,
  tables: Pick<Tables, 'chatThreads' | 'chatMessages'>,
  scope: AnswerScope,
  source: AnswerSource,
): Promise<AnswerWidget> {
  const { chatThreads, chatMessages } = tables
  const thread = await first(
    db
      .select({ id: chatThreads.id, userId: chatThreads.userId })
      .from(chatThreads)
      .where(and(eq(chatThreads.id, source.chatId), eq(chatThreads.deploymentId, scope.deploymentId))),
  )
  if (!thread || (scope.userId !== undefined && thread.userId !== scope.userId))
    throw new NotFoundError(`Chat ${source.chatId} not found`, 'CHAT_NOT_FOUND')
  const messages: StoredMessage[] = await db
    .select({
      id: chatMessages.id,
      role: chatMessages.role,
      content: chatMessages.content,
      toolCall: chatMessages.toolCall,
    })
    .from(chatMessages)
    .where(eq(chatMessages.threadId, thread.id))
    .orderBy(asc(chatMessages.sort))
  const at = messages.findIndex((message) => message.id === source.messageId)
  if (at < 0) throw new NotFoundError(`Chat ${source.chatId} has no message ${source.messageId}`, 'MESSAGE_NOT_FOUND')
  // The answer: from its question to the next one.
  let start = at
  while (start > 0 && messages[start].role !== 'user') start--
  let end = at + 1
  while (end < messages.length && messages[end].role !== 'user') end++
  const answer = messages.slice(start, end)
  const named = queryOf(messages[at])
  const query =
    named ??
    answer
      .map(queryOf)
      .filter((found) => found !== undefined)
      .pop()
  if (!query)
    throw new NotFoundError(
      `Message ${source.messageId} of chat ${source.chatId} drew from no query: only an answer with a query can become a widget`,
      'ANSWER_HAS_NO_QUERY',
    )
  const question = answer[0].role === 'user' ? answer[0].content : (query.userRequest ?? '')
  const period = relativePeriodOf(question, query.sql)
  return {
    kind: chartOf(query.result),
    title: (period ? relativeTitle(query.title, period) : query.title).slice(0, 200),
    query: query.sql,
    ...(period && { period }),
    source: { chatId: source.chatId, messageId: source.messageId },
  }
}
