import type { ChatMessage } from '../../../client/chat-stream'
import type { SqlResult } from '../../semantic/model'
import type { EmbedContext } from '../model'
import { Avatar } from './avatar'
import { DataTable } from './charts'
import { formatNumber } from './format'
import { Markdown } from './markdown'

type ToolCall = NonNullable<ChatMessage['toolCall']>

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

function toolError(result: unknown): string | undefined {
  if (typeof result === 'object' && result !== null && 'error' in result) return String((result as { error: unknown }).error)
  return undefined
}

/** A tool call and, once it finished, its result: the SQL and a small table for queries, the cubes for the model. */
function ToolCallView({ toolCall, running }: { toolCall: ToolCall; running: boolean }) {
  const input = (parseJson(toolCall.input) ?? {}) as Record<string, unknown>
  const result = parseJson(toolCall.result)
  const error = toolError(result)
  const status = running ? 'Running…' : error ? 'Failed' : 'Done'
  if (toolCall.name === 'serviceSqlApi') {
    const title = typeof input.queryTitle === 'string' ? input.queryTitle : 'Query'
    return (
      <div class="tool" data-tool="serviceSqlApi">
        <p class="tool-head">
          <span class="tool-name">Query</span> <span class="tool-title">{title}</span>{' '}
          <span class="tool-status">
            {status}
            {isSqlResult(result) && `, ${formatNumber(result.totalRows)} ${result.totalRows === 1 ? 'row' : 'rows'}`}
          </span>
        </p>
        {typeof input.sqlQuery === 'string' && (
          <pre class="sql" aria-label="SQL">
            <code>{input.sqlQuery}</code>
          </pre>
        )}
        {isSqlResult(result) && <DataTable result={result} maxRows={8} caption={`Result of ${title}`} />}
        {error && <p class="tool-error">{error}</p>}
      </div>
    )
  }
  if (toolCall.name === 'serviceMeta') {
    const cubes = (result as { cubes?: Array<{ title?: string; name?: string }> } | undefined)?.cubes
    return (
      <div class="tool" data-tool="serviceMeta">
        <p class="tool-head">
          <span class="tool-name">Data model</span> <span class="tool-status">{status}</span>
        </p>
        {cubes && <p class="tool-detail">Read {cubes.map((cube) => cube.title ?? cube.name).join(', ') || 'no cubes'}.</p>}
        {error && <p class="tool-error">{error}</p>}
      </div>
    )
  }
  return (
    <div class="tool" data-tool={toolCall.name}>
      <p class="tool-head">
        <span class="tool-name">{toolCall.name}</span> <span class="tool-status">{status}</span>
      </p>
      <pre class="sql">
        <code>{toolCall.input}</code>
      </pre>
      {error && <p class="tool-error">{error}</p>}
    </div>
  )
}

/** One message of the thread: the user's words, a tool call, an intermediate step, or the final answer. */
export function MessageItem({ message, isFinal, user }: { message: ChatMessage; isFinal: boolean; user: EmbedContext['user'] }) {
  if (message.role === 'user')
    return (
      <li class="msg msg-user" data-message-id={message.id}>
        <Avatar displayName={user.displayName} picture={user.picture} size="small" />
        <div class="bubble">
          <span class="sr-only">You: </span>
          {message.content}
        </div>
      </li>
    )
  if (message.toolCall)
    return (
      <li class="msg msg-tool" data-message-id={message.id}>
        <ToolCallView toolCall={message.toolCall} running={message.isInProcess} />
      </li>
    )
  return (
    <li
      class={`msg msg-assistant ${isFinal ? 'msg-final' : 'msg-step'}`}
      data-message-id={message.id}
      data-final={isFinal ? 'true' : undefined}
      data-streaming={message.isInProcess ? 'true' : undefined}
    >
      {isFinal && <span class="sr-only">Answer: </span>}
      {message.content === '' && message.isInProcess ? <p class="thinking">Thinking…</p> : <Markdown text={message.content} />}
      {message.interrupted && <p class="msg-flag">This answer was interrupted.</p>}
    </li>
  )
}
