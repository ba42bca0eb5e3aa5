import type { ChatRequest, StreamLine, ThreadMessage } from './wire-types'
import { PlatformApiError, type Transport } from './transport'

/** A message of the thread as the helper has assembled it from the stream's lines. */
export type ChatMessage = ThreadMessage

/** One line of the stream, as it arrived, with the message it created or updated. */
export interface ChatEvent {
  line: StreamLine
  message?: ChatMessage
}

export interface ChatTarget {
  accountName: string
  agentId: number | string
}

export type ChatStreamRequest = ChatTarget &
  ChatRequest & {
    signal?: AbortSignal
    /** How many times a dropped connection is rejoined before the run fails (default 3). */
    maxRejoins?: number
    /**
     * The pause before the first rejoin, doubled before each next one (default 250 ms): a server that restarts is
     * given time to come back, rather than every attempt spent in the same second.
     */
    rejoinDelayMs?: number
  }

export interface ChatResult {
  chatId: string | undefined
  messages: ChatMessage[]
  finalAnswer: ChatMessage | undefined
  error: string | undefined
}

/** The stream broke in a way rejoining cannot fix (or rejoining failed too often). */
export class ChatConnectionError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'ChatConnectionError'
  }
}

const decoder = () => new TextDecoder()

/**
 * Splits an NDJSON body into parsed lines as bytes arrive. A trailing fragment without its `\n` is an incomplete
 * line (the connection dropped mid-line) and is not yielded.
 */
export async function* readNdjson(body: ReadableStream<Uint8Array>): AsyncGenerator<StreamLine> {
  const reader = body.getReader()
  const text = decoder()
  let buffer = ''
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return
      buffer += text.decode(value, { stream: true })
      let newline: number
      while ((newline = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, newline).trim()
        buffer = buffer.slice(newline + 1)
        if (line !== '') yield JSON.parse(line) as StreamLine
      }
    }
  } finally {
    reader.releaseLock()
  }
}

/**
 * Applies one line to the messages by id: a delta appends its content to the message with the same id (and takes
 * its other fields); a whole line replaces the message; `__state__` replaces the thread. Returns the message the
 * line touched.
 */
export function mergeLine(messages: Map<string, ChatMessage>, line: StreamLine): ChatMessage | undefined {
  if ('error' in line) return undefined
  if (line.id === '__cutoff__') return undefined
  if (line.id === '__state__' && 'state' in line && 'messages' in line.state) {
    messages.clear()
    for (const message of line.state.messages) messages.set(message.id, { ...message })
    return undefined
  }
  if (!('role' in line)) return undefined
  const existing = messages.get(line.id)
  const merged: ChatMessage =
    existing && line.isDelta ? { ...existing, ...line, content: existing.content + line.content } : { ...line }
  messages.set(line.id, merged)
  return merged
}

/** The final answer: among assistant messages with `graphPath[0] === 'final'` and at most 2 path entries, the last. */
export function finalAnswerOf(messages: Iterable<ChatMessage>): ChatMessage | undefined {
  let answer: ChatMessage | undefined
  for (const message of [...messages].sort((left, right) => left.sort - right.sort)) {
    const path = message.graphPath ?? []
    if (message.role === 'assistant' && path[0] === 'final' && path.length <= 2) answer = message
  }
  return answer
}

let lastMessageTime = 0
/** A `messageId` of the spec's form, unique within this client even for two calls in one millisecond. */
export function newMessageId(now = Date.now()): string {
  lastMessageTime = Math.max(now, lastMessageTime + 1)
  return `${lastMessageTime}-message`
}

const isTerminal = (line: StreamLine) => 'error' in line || line.id === '__state__'

/**
 * One chat turn (or thread read) over the NDJSON endpoint. Iterate it for events; `messages`, `finalAnswer`,
 * `chatId` and `error` follow along. When the connection drops before the `__state__` or error line, the helper
 * re-sends the same `chatId` and `messageId`: the server replays the run from its start, and the lines already
 * yielded are skipped, so every line is yielded once.
 */
export class ChatRun implements AsyncIterable<ChatEvent> {
  chatId: string | undefined
  readonly messageId: string | undefined
  error: string | undefined
  /** How many times the run was rejoined after a dropped connection. */
  rejoins = 0
  private readonly byId = new Map<string, ChatMessage>()
  private readonly controller = new AbortController()
  private started = false

  constructor(
    private readonly transport: Transport,
    private readonly request: ChatStreamRequest,
  ) {
    this.chatId = request.chatId
    this.messageId = request.messageId ?? (request.input !== undefined ? newMessageId() : undefined)
    request.signal?.addEventListener('abort', () => this.controller.abort(request.signal?.reason), { once: true })
  }

  get messages(): ChatMessage[] {
    return [...this.byId.values()].sort((left, right) => left.sort - right.sort)
  }

  get finalAnswer(): ChatMessage | undefined {
    return finalAnswerOf(this.byId.values())
  }

  /** Reads the whole run and returns where it ended. */
  async done(): Promise<ChatResult> {
    for await (const _event of this) {
      // Draining: the state follows along.
    }
    return { chatId: this.chatId, messages: this.messages, finalAnswer: this.finalAnswer, error: this.error }
  }

  /** Stops the run on the server (`POST .../chat/abort`) and stops reading. */
  async abort(): Promise<void> {
    try {
      if (this.chatId !== undefined) await abortChat(this.transport, { ...this.request, chatId: this.chatId })
    } finally {
      this.controller.abort()
    }
  }

  async *[Symbol.asyncIterator](): AsyncIterator<ChatEvent> {
    if (this.started) throw new Error('A ChatRun can be iterated only once')
    this.started = true
    const { accountName, agentId, signal: _signal, maxRejoins = 3, rejoinDelayMs = 250, ...body } = this.request
    const path = `${chatBase({ accountName, agentId })}/stream-chat-state`
    // Lines yielded so far (serialized), cutoff excluded: a rejoin's replay is matched against them.
    const yielded: string[] = []
    for (let attempt = 0; ; attempt++) {
      this.rejoins = attempt
      if (attempt > 0) {
        await pause(rejoinDelayMs * 2 ** (attempt - 1), this.controller.signal)
        if (this.controller.signal.aborted) return
      }
      let replayed = 0
      let replaying = attempt > 0
      let response: Response
      try {
        response = await this.transport.raw('POST', path, {
          body: { ...body, chatId: this.chatId, messageId: this.messageId },
          signal: this.controller.signal,
        })
      } catch (error) {
        if (this.controller.signal.aborted) return
        // The first request's failures and the server's answers are the caller's to see, but for a rejoin the
        // answers of a server or proxy on its way back (502, 503, 504) are tried again like a refused connection.
        if (attempt === 0 || (error instanceof PlatformApiError && !RETRIED_STATUSES.has(error.status))) throw error
        if (attempt >= maxRejoins)
          throw new ChatConnectionError(`Could not rejoin the chat run after ${attempt} attempts`, { cause: error })
        continue
      }
      try {
        for await (const line of readNdjson(response.body!)) {
          if (!('error' in line) && line.id === '__cutoff__' && 'state' in line && 'chatId' in line.state) {
            this.chatId = line.state.chatId
            if (attempt > 0) continue
          } else {
            const serialized = JSON.stringify(line)
            if (replaying && replayed < yielded.length && yielded[replayed] === serialized) {
              replayed++
              continue
            }
            replaying = false
            yielded.push(serialized)
          }
          if ('error' in line) this.error = line.error
          const message = mergeLine(this.byId, line)
          yield message ? { line, message } : { line }
          if (isTerminal(line)) return
        }
      } catch (error) {
        if (this.controller.signal.aborted) return
        if (error instanceof SyntaxError)
          throw new ChatConnectionError('The chat stream sent a line that is not JSON', { cause: error })
      }
      if (this.controller.signal.aborted) return
      // The body ended (or broke) before the run's last line: rejoin it.
      if (this.chatId === undefined)
        throw new ChatConnectionError('The connection dropped before the chat id was known')
      if (this.messageId === undefined && body.input !== undefined)
        throw new ChatConnectionError('The connection dropped and the request has no messageId to rejoin with')
      if (attempt >= maxRejoins)
        throw new ChatConnectionError(`The chat stream dropped ${attempt + 1} times; giving up`)
    }
  }
}

/** Statuses a rejoin tries again: a restarting server, or a proxy in front of one. */
const RETRIED_STATUSES = new Set([502, 503, 504])

/** Waits `ms`, or less when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve()
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms)
    function done() {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
    signal.addEventListener('abort', done, { once: true })
  })
}

function chatBase(target: ChatTarget): string {
  return `/api/v1/public/${encodeURIComponent(target.accountName)}/agents/${encodeURIComponent(String(target.agentId))}/chat`
}

/** `POST .../chat/abort`: stops the thread's active run (204 also when none is active). */
export async function abortChat(
  transport: Transport,
  request: ChatTarget & { chatId: string; sessionSettings?: ChatRequest['sessionSettings'] },
): Promise<void> {
  const body = request.sessionSettings
    ? { chatId: request.chatId, sessionSettings: request.sessionSettings }
    : { chatId: request.chatId }
  await transport.json<void>('POST', `${chatBase(request)}/abort`, { body })
}
