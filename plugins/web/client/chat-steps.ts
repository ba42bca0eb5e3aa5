import type { ChatMessage } from '../../../client/chat-stream'
import type { SqlResult } from '../../semantic/model'

/** One question and what answered it: the steps (tool calls, notes) and the final answer. */
export interface Turn {
  question: ChatMessage | undefined
  steps: ChatMessage[]
  answer: ChatMessage | undefined
}

/** Splits a thread into turns: each user message starts one; the last `final` message of a turn is its answer. */
export function turnsOf(messages: ChatMessage[]): Turn[] {
  const turns: Turn[] = []
  let current: Turn | undefined
  for (const message of messages) {
    if (message.role === 'user' || !current) {
      current = { question: message.role === 'user' ? message : undefined, steps: [], answer: undefined }
      turns.push(current)
      if (message.role === 'user') continue
    }
    const final = message.role === 'assistant' && !message.toolCall && (message.graphPath ?? [])[0] === 'final'
    if (final) {
      if (current.answer) current.steps.push(current.answer)
      current.answer = message
    } else current.steps.push(message)
  }
  return turns
}

function parseJson(text: string | undefined): unknown {
  if (text === undefined) return undefined
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

function isSqlResult(value: unknown): value is SqlResult {
  const candidate = value as Partial<SqlResult> | null
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    Array.isArray(candidate.schema) &&
    Array.isArray(candidate.data)
  )
}

export interface QueryStep {
  id: string
  title: string
  sql: string
  result: SqlResult | undefined
  error: string | undefined
  running: boolean
}

/**
 * The queries of a turn worth showing. A value lookup (listing a dimension's values to match words of the
 * question: one column, no measure) is plumbing and can list hundreds of names, so it is left out.
 */
export function queriesOf(steps: ChatMessage[]): QueryStep[] {
  const queries: QueryStep[] = []
  for (const step of steps) {
    if (step.toolCall?.name !== 'serviceSqlApi') continue
    const input = (parseJson(step.toolCall.input) ?? {}) as Record<string, unknown>
    const sql = typeof input.sqlQuery === 'string' ? input.sqlQuery : ''
    const title = typeof input.queryTitle === 'string' ? input.queryTitle : 'Query'
    if (isValueLookup(sql, title)) continue
    const output = parseJson(step.toolCall.result)
    const error =
      typeof output === 'object' && output !== null && 'error' in output
        ? String((output as { error: unknown }).error)
        : undefined
    queries.push({
      id: step.id,
      title,
      sql,
      result: isSqlResult(output) ? output : undefined,
      error,
      running: step.isInProcess,
    })
  }
  return queries
}

function isValueLookup(sql: string, title: string): boolean {
  if (/^values of\b/i.test(title)) return true
  const select = /^\s*select\s+(.*?)\s+from\s/is.exec(sql)?.[1] ?? ''
  return !/[(,]/.test(select) && /\bgroup\s+by\b/i.test(sql)
}

/** The steps' one line: how many queries, how many failed, how long they took as this page saw it. */
export function stepsSummary(queries: QueryStep[], steps: ChatMessage[], elapsedMs: number | undefined): string {
  if (steps.some((step) => step.isInProcess))
    return queries.some((query) => query.running) ? 'Running a query…' : 'Working…'
  const failed = queries.filter((query) => query.error).length
  const parts = [
    queries.length === 0 ? 'Read the data model' : `${queries.length} ${queries.length === 1 ? 'query' : 'queries'}`,
  ]
  if (failed) parts.push(`${failed} failed`)
  if (elapsedMs !== undefined)
    parts.push(elapsedMs < 100 ? `${Math.max(1, Math.round(elapsedMs))} ms` : `${(elapsedMs / 1000).toFixed(1)} s`)
  return parts.join(', ')
}
