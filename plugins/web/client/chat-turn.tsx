import type { ComponentChildren } from 'preact'
import { useState } from 'preact/hooks'
import type { ChatMessage } from '../../../client/chat-stream'
import { queriesOf, stepsSummary } from './chat-steps'
import type { EmbedContext } from '../model'
import { Avatar } from './avatar'
import { Chart } from './chart'
import { answerFigure } from './answer-figure'
import { chartable, type Series } from './chart-series'
import { DataTable } from './charts'
import { formatNumber } from './format'
import { leadingBold, Markdown, TableView } from './markdown'
import { firstTable } from './markdown-table'

/** A turn's steps as one line ("2 queries, 0.3 s") that opens to show each query's SQL. */
export function StepsSummary({ steps, elapsedMs }: { steps: ChatMessage[]; elapsedMs: number | undefined }) {
  const queries = queriesOf(steps)
  const notes = steps.filter((step) => !step.toolCall && step.content.trim() !== '')
  return (
    <li class="msg msg-steps">
      <details class="steps">
        <summary>{stepsSummary(queries, steps, elapsedMs)}</summary>
        {notes.length > 0 && (
          <div class="steps-notes">
            {notes.map((note) => (
              <Markdown key={note.id} text={note.content} streaming={note.isInProcess} />
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
                      : query.result &&
                        `${formatNumber(query.result.totalRows)} ${query.result.totalRows === 1 ? 'row' : 'rows'}`}
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
function AnswerFigure({ series, table, title }: { series: Series; table: ComponentChildren; title: string }) {
  const [showTable, setShowTable] = useState(false)
  return (
    <div class="answer-figure">
      {showTable ? table : <Chart series={series} title={title} height={220} />}
      <button
        type="button"
        class="button-quiet answer-toggle"
        aria-pressed={showTable}
        onClick={() => setShowTable(!showTable)}
      >
        {showTable ? 'Show chart' : 'Show table'}
      </button>
    </div>
  )
}

/**
 * What an answer shows beside its text: the table the answer writes, drawn (every period it compares, the shares it
 * speaks of), titled by the answer's bold first line. An answer without a table of its own (a model that wrote none)
 * falls back to its last query's result.
 */
function figureOf(answer: ChatMessage, steps: ChatMessage[]) {
  const title = leadingBold(answer.content)
  const own = answerFigure(answer.content)
  if (own)
    return { title: title ?? 'Answer', series: own.series, table: <TableView table={own.table} caption={title} /> }
  // A table of its own that is no chart (one row, a long list) stays the answer's table: a query's rows drawn
  // instead could say something else.
  if (firstTable(answer.content)) return undefined
  const main = queriesOf(steps)
    .filter((query) => query.result && !query.error)
    .pop()
  if (!main?.result) return undefined
  const series = chartable(main.result)
  return (
    series && { title: title ?? main.title, series, table: <DataTable result={main.result} caption={main.title} /> }
  )
}

/** The answer: its text, and a chart of what it reports when that is a series over time or a few categories. */
export function AnswerItem({
  answer,
  steps,
  isLatest,
  actions,
}: {
  answer: ChatMessage
  steps: ChatMessage[]
  isLatest: boolean
  /** What may be done with a finished answer ("Add to dashboard"). */
  actions?: ComponentChildren
}) {
  const figure = answer.isInProcess ? undefined : figureOf(answer, steps)
  return (
    <li
      class="msg msg-assistant msg-final"
      data-message-id={answer.id}
      data-final={isLatest ? 'true' : undefined}
      data-streaming={answer.isInProcess ? 'true' : undefined}
    >
      <span class="sr-only">Answer: </span>
      {answer.content === '' && answer.isInProcess ? (
        <p class="thinking">Thinking…</p>
      ) : (
        <Markdown text={answer.content} withoutTables={figure !== undefined} streaming={answer.isInProcess} />
      )}
      {figure && <AnswerFigure series={figure.series} table={figure.table} title={figure.title} />}
      {answer.interrupted && <p class="msg-flag">This answer was interrupted.</p>}
      {!answer.isInProcess && actions}
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
