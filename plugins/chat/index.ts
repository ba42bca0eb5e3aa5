import { TypeCompiler } from '@sinclair/typebox/compiler'
import { Elysia, t } from 'elysia'
import type { AppDeps } from '../../src/deps'
import { AppError, BadRequestError } from '../../src/errors'
import { schemaErrors } from '../../src/schema-errors'
import { authPlugin } from '../auth'
import { parseOptionalJson } from '../core/optional-json'
import type { Caller } from '../auth/model'
import { createChatService, type ChatService } from './chat-service'
import { encodeLine, errorLine } from './lines'
import { AbortRequest, ChatParams, ChatRequest, StreamLine } from './model'
import { abortingUser, resolveParticipant } from './participant'
import { ndjsonStream, pipeTurnToSocket, type LineSocket, type ReaderHooks, type TurnSource } from './run-readers'
import { createThreadStore } from './thread-store'
import { createThreadPolicyGuard } from './thread-policies'
import type { AgentInfo, DeploymentInfo } from '../auth/directory'
import type { ServerWebSocket } from 'bun'

const CHAT_BASE = '/api/v1/public/:accountName/agents/:agentId/chat'
const NDJSON_HEADERS = {
  'content-type': 'application/json',
  'cache-control': 'no-cache, no-transform',
  'x-content-type-options': 'nosniff',
}
/** A reader this many lines behind a live run is dropped (the log stays; it can rejoin). */
const MAX_LAG_LINES = 10_000
const MAX_WS_BUFFERED_BYTES = 8 * 1024 * 1024
/** Every WebSocket message is checked: compiled once rather than interpreted per message. */
const chatRequestCheck = TypeCompiler.Compile(ChatRequest)

/**
 * The chat API: `stream-chat-state` (NDJSON), its WebSocket mirror and `abort` (spec 4.1, contract 3 to 5).
 */
export function chatPlugin(deps: AppDeps) {
  const store = createThreadStore(deps.storage, deps.clock)
  const recovered = store.recoverInterruptedRuns()
  if (recovered > 0) deps.logger.warn('marked runs of a previous process as interrupted', { runs: recovered })
  const chat: ChatService = createChatService({ store, agents: deps.agents, logger: deps.logger, metrics: deps.metrics, clock: deps.clock })
  deps.lifecycle.onShutdown(() => chat.shutdown(deps.config.shutdownGraceMs))

  const linesSent = deps.metrics.counter('chat_lines_sent_total', 'Chat stream lines handed to clients')
  const readers = deps.metrics.gauge('chat_readers', 'Clients reading a chat stream (HTTP and WebSocket)')
  // One hooks object for every reader (they keep no state of their own): held streams are many.
  const hooks: ReaderHooks = { onLines: (count) => linesSent.inc({}, count), onClose: () => readers.dec() }
  const readerHooks = (): ReaderHooks => {
    readers.inc()
    return hooks
  }

  const lookupUser = deps.storage.sqlite.query<{ id: number }, [number, string, string]>(
    'SELECT id FROM users WHERE account_id = ? AND kind = ? AND identity = ?',
  )
  const findUser = (accountId: number, settings: { externalId?: string; internalId?: string }) => {
    const kind = settings.externalId !== undefined ? 'external' : 'internal'
    const identity = (settings.externalId ?? settings.internalId ?? '').trim().toLowerCase()
    return lookupUser.get(accountId, kind, identity)?.id
  }

  const policies = createThreadPolicyGuard(deps.storage)
  const openTurn = (caller: Caller, agent: AgentInfo, deployment: DeploymentInfo, request: ChatRequest) => {
    if (request.input === undefined && request.chatId === undefined && request.messageId === undefined)
      throw new BadRequestError('Send input to start a chat, or chatId to read one', 'EMPTY_CHAT_REQUEST')
    policies.chat(deployment.id, agent.id, request)
    const participant = resolveParticipant(deps.users, caller, agent, deployment, request.sessionSettings)
    return { source: chat.open(request, participant), userId: participant.userId }
  }
  const sockets = new WeakMap<object, SocketState>()

  return new Elysia({ name: 'chat', seed: deps.instanceId })
    .use(authPlugin(deps))
    .post(
      `${CHAT_BASE}/stream-chat-state`,
      ({ body, caller, agent, deployment }) => {
        const { source } = openTurn(caller, agent, deployment, body ?? {})
        return new Response(ndjsonStream(source, MAX_LAG_LINES, readerHooks()), { headers: NDJSON_HEADERS })
      },
      {
        chatAccess: true,
        params: ChatParams,
        parse: parseOptionalJson,
        body: t.Optional(ChatRequest),
        response: { 200: t.Array(StreamLine, { description: 'Newline-delimited JSON: one StreamLine per line' }) },
        detail: {
          operationId: 'streamChatState',
          summary: 'Stream chat state',
          description:
            'Sends a user message, rejoins a running turn (same messageId) or reads a thread (chatId without input). ' +
            'The response is NDJSON: `__cutoff__`, the user echo, assistant deltas and tool calls, then `__state__`; ' +
            'failures after the stream starts are `{ error }` lines.',
          tags: ['Chat'],
          security: [{ ApiKey: [] }, { ServiceAuthToken: [] }, { EmbedToken: [] }],
        },
      },
    )
    .post(
      `${CHAT_BASE}/abort`,
      ({ body, caller, agent, deployment, set }) => {
        policies.abort(deployment.id, body.chatId)
        const userId = abortingUser(findUser, caller, body.sessionSettings)
        chat.abort(body.chatId, {
          accountId: caller.accountId,
          agentId: agent.id,
          deploymentIds: caller.kind === 'apiKey' ? caller.deploymentScope : [caller.deploymentId],
          userId,
        })
        set.status = 204
        return null
      },
      {
        chatAccess: true,
        params: ChatParams,
        body: AbortRequest,
        detail: {
          summary: 'Abort the active run of a chat',
          description: '204 when the run was stopped or none was active; 403 for another user’s chat; 404 for an unknown chat.',
          tags: ['Chat'],
          security: [{ ApiKey: [] }, { ServiceAuthToken: [] }, { EmbedToken: [] }],
        },
      },
    )
    .ws(`${CHAT_BASE}/ws`, {
      chatAccess: true,
      params: ChatParams,
      open(ws) {
        const raw = ws.raw as unknown as ServerWebSocket
        sockets.set(ws.raw, {
          queue: [],
          current: undefined,
          userId: undefined,
          socket: {
            send: (json: string) => void raw.send(json),
            bufferedAmount: () => raw.getBufferedAmount(),
            cork: (sending: () => void) => void raw.cork(sending),
          },
        })
      },
      message(ws, message) {
        const state = sockets.get(ws.raw)
        if (!state) return
        const { caller, agent, deployment } = ws.data
        const sendError = (text: string) => void ws.raw.send(encodeLine(errorLine(text)).json)
        let request: unknown = message
        if (typeof message === 'string') {
          try {
            request = JSON.parse(message)
          } catch {
            return sendError('Malformed message: expected one JSON chat request')
          }
        }
        if (isAbortMessage(request)) {
          const chatId = request.chatId ?? state.current?.chatId
          if (!chatId) return sendError('Nothing to abort')
          try {
            policies.abort(deployment.id, chatId)
            chat.abort(chatId, {
              accountId: caller.accountId,
              agentId: agent.id,
              deploymentIds: caller.kind === 'apiKey' ? caller.deploymentScope : [caller.deploymentId],
              // The socket may stop its own user's chats; an API key that has named no user yet acts for the account.
              userId: state.userId ?? abortingUser(findUser, caller, undefined),
            })
          } catch (error) {
            sendError(error instanceof AppError ? error.message : 'Abort failed')
          }
          return
        }
        if (!chatRequestCheck.Check(request)) return sendError(schemaErrors(ChatRequest, request)[0] ?? 'Invalid chat request')
        state.queue.push(request)
        if (!state.current) void pump(state, sendError, caller, agent, deployment)
      },
      close(ws) {
        const state = sockets.get(ws.raw)
        sockets.delete(ws.raw)
        if (!state) return
        state.queue.length = 0
        state.current?.stop()
      },
      detail: {
        summary: 'Chat over WebSocket',
        description:
          'One socket, many turns: each client message is a chat request body, each server message one stream line. ' +
          'Send `{ "type": "abort" }` (optionally with `chatId`) to stop the current run.',
        tags: ['Chat'],
      },
    })

  async function pump(
    state: SocketState,
    sendError: (text: string) => void,
    caller: Caller,
    agent: AgentInfo,
    deployment: DeploymentInfo,
  ) {
    while (state.queue.length > 0) {
      const request = state.queue.shift()!
      let source: TurnSource
      try {
        const opened = openTurn(caller, agent, deployment, request)
        source = opened.source
        state.userId = opened.userId
      } catch (error) {
        if (!(error instanceof AppError)) deps.logger.error('chat websocket turn failed', { error })
        sendError(error instanceof AppError ? error.message : 'Internal server error')
        continue
      }
      const chatId = source.run?.key.chatId
      const piping = pipeTurnToSocket(source, state.socket, MAX_WS_BUFFERED_BYTES, readerHooks(), { coalesce: true })
      state.current = { chatId, stop: piping.stop }
      await piping.done
      state.current = undefined
    }
  }
}

/** One WebSocket: turns run one after another; an abort message acts at once. */
interface SocketState {
  queue: ChatRequest[]
  current: { chatId: string | undefined; stop(): void } | undefined
  /** The user of the socket's latest turn. */
  userId: number | undefined
  socket: LineSocket
}

function isAbortMessage(value: unknown): value is { type: 'abort'; chatId?: string } {
  return typeof value === 'object' && value !== null && (value as { type?: unknown }).type === 'abort'
}
