import { useState } from 'preact/hooks'
import type { ChatMessage } from '../../../client/chat-stream'
import type { SqlResult } from '../../semantic/model'
import type { EmbedContext } from '../model'
import { Avatar } from './avatar'
import { Chart, chartable } from './chart'
import { DataTable } from './charts'
import { formatNumber } from './format'
import { Markdown } from './markdown'

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
  return typeof candidate === 'object' && candidate !== null && Array.isArray(candidate.schema) && Array.isArray(candidate.data)
}

interface QueryStep {
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
    const error = typeof output === 'object' && output !== null && 'error' in output ? String((output as { error: unknown }).error) : undefined
    queries.push({ id: step.id, title, sql, result: isSqlResult(output) ? output : undefined, error, running: step.isInProcess })
  }
  return queries
}

function isValueLookup(sql: string, title: string): boolean {
  if (/^values of\b/i.test(title)) return true
  const select = /^\s*select\s+(.*?)\s+from\s/is.exec(sql)?.[1] ?? ''
  return !/[(,]/.test(select) && /\bgroup\s+by\b/i.test(sql)
}

function summary(queries: QueryStep[], steps: ChatMessage[], elapsedMs: number | undefined): string {
  if (steps.some((step) => step.isInProcess)) return queries.some((query) => query.running) ? 'Running a query…' : 'Working…'
  const failed = queries.filter((query) => query.error).length
  const parts = [queries.length === 0 ? 'Read the data model' : `${queries.length} ${queries.length === 1 ? 'query' : 'queries'}`]
  if (failed) parts.push(`${failed} failed`)
  if (elapsedMs !== undefined) parts.push(elapsedMs < 100 ? `${Math.max(1, Math.round(elapsedMs))} ms` : `${(elapsedMs / 1000).toFixed(1)} s`)
  return parts.join(', ')
}

/** A turn's steps as one line ("2 queries, 0.3 s") that opens to show each query's SQL. */
export function StepsSummary({ steps, elapsedMs }: { steps: ChatMessage[]; elapsedMs: number | undefined }) {
  const queries = queriesOf(steps)
  const notes = steps.filter((step) => !step.toolCall && step.content.trim() !== '')
  return (
    <li class="msg msg-steps">
      <details class="steps">
        <summary>{summary(queries, steps, elapsedMs)}</summary>
        {notes.length > 0 && (
          <div class="steps-notes">
            {notes.map((note) => (
              <Markdown key={note.id} text={note.content} />
            ))}
          </div>
        )}
        <ol class="steps-queries">
          {queries.map((query) => (
            <li class="tool" data-tool="serviceSqlApi" key={query.id}>
              <p class="tool-head">
                <span class="tool-title">{query.title}</span>{' '}
                <span class="tool-status">
                  {query.running
                    ? 'Running…'
                    : query.error
                      ? 'Failed'
                      : query.result && `${formatNumber(query.result.totalRows)} ${query.result.totalRows === 1 ? 'row' : 'rows'}`}
                </span>
              </p>
              <pre class="sql" aria-label={`SQL of ${query.title}`}>
                <code>{query.sql}</code>
              </pre>
              {query.error && <p class="tool-error">{query.error}</p>}
            </li>
          ))}
        </ol>
      </details>
    </li>
  )
}

/** The chart of an answer, with its table one click away (and back). */
function AnswerFigure({ result, title }: { result: SqlResult; title: string }) {
  const [showTable, setShowTable] = useState(false)
  const series = chartable(result)!
  return (
    <div class="answer-figure">
      {showTable ? <DataTable result={result} caption={title} /> : <Chart series={series} title={title} height={220} />}
      <button type="button" class="button-quiet answer-toggle" aria-pressed={showTable} onClick={() => setShowTable(!showTable)}>
        {showTable ? 'Show chart' : 'Show table'}
      </button>
    </div>
  )
}

/** The answer: its text, and a chart of its query's result when it is a series over time or a few categories. */
export function AnswerItem({ answer, steps, isLatest }: { answer: ChatMessage; steps: ChatMessage[]; isLatest: boolean }) {
  const main = queriesOf(steps)
    .filter((query) => query.result && !query.error)
    .pop()
  const figure = !answer.isInProcess && main?.result && chartable(main.result) ? main : undefined
  return (
    <li
      class="msg msg-assistant msg-final"
      data-message-id={answer.id}
      data-final={isLatest ? 'true' : undefined}
      data-streaming={answer.isInProcess ? 'true' : undefined}
    >
      <span class="sr-only">Answer: </span>
      {answer.content === '' && answer.isInProcess ? <p class="thinking">Thinking…</p> : <Markdown text={answer.content} withoutTables={figure !== undefined} />}
      {figure?.result && <AnswerFigure result={figure.result} title={figure.title} />}
      {answer.interrupted && <p class="msg-flag">This answer was interrupted.</p>}
    </li>
  )
}

/** The user's question, with their avatar. */
export function QuestionItem({ message, user }: { message: ChatMessage; user: EmbedContext['user'] }) {
  return (
    <li class="msg msg-user" data-message-id={message.id}>
      <Avatar displayName={user.displayName} picture={user.picture} size="small" />
      <div class="bubble">
        <span class="sr-only">You: </span>
        {message.content}
      </div>
    </li>
  )
}
