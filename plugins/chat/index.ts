import { Elysia, t } from 'elysia'
import type { Storage } from '../../db/client'
import type { Config } from '../../lib/config'
import type { Lifecycle } from '../../lib/lifecycle'
import type { Logger } from '../../lib/logger'
import type { Metrics } from '../../lib/metrics'
import { AppError, ShuttingDownError } from '../../lib/errors'
import { authPlugin, type AuthDeps } from '../auth'
import type { UserProvisioner } from '../auth/user-access'
import type { AgentFactory } from './run/agent'
import { jsonBody } from '../core/strict-json'
import type { Caller } from '../auth/model'
import { createChatService, type ChatService } from './turn/chat-service'
import { emptyChatRequest } from './turn/open-turn'
import { AbortRequest, CHAT_FREE_TEXT, ChatParams, ChatRequest, StreamLine } from './model'
import { abortingUser, abortScope, resolveParticipant } from './turn/participant'
import { RunAdmission } from './registry/run-admission'
import { createRunDeadlines } from './registry/run-deadlines'
import { ndjsonReader, ndjsonStream, pipeTurnToSocket, type ReaderHooks } from './stream/run-readers'
import { encodeLine, errorLine } from './stream/lines'
import { asStorageUnavailable } from '../../db/storage-errors'
import { SocketSession, SocketsByAccount, type SessionSocket } from './stream/socket-session'
import { createThreadStore } from './create-thread-store'
import type { RunRegistry } from './registry/run-registry'
import type { ClusterBus } from '../../lib/cluster-bus'
import { createThreadPolicyGuard } from './thread-policies'
import type { AgentInfo, DeploymentInfo } from '../auth/directory'
import type { ServerWebSocket } from 'bun'

/** An embed session's HTTP chat stream, checked again when a session of its account is revoked. */
interface EmbedStream {
  recheck(): Promise<void>
}

/** WebSocket close code 1001: the server is going away (a shutdown). */
const GOING_AWAY = 1001

const CHAT_BASE = '/api/v1/public/:accountName/agents/:agentId/chat'
const NDJSON_HEADERS = {
  'content-type': 'application/json',
  'cache-control': 'no-cache, no-transform',
  'x-content-type-options': 'nosniff',
}
/** A reader this many lines behind a live run is dropped (the log stays; it can rejoin). */
const MAX_LAG_LINES = 10_000
const MAX_WS_BUFFERED_BYTES = 8 * 1024 * 1024

/** A `Sec-WebSocket-Key`: 16 bytes in base64 (RFC 6455, 4.1). */
const WEBSOCKET_KEY = /^[A-Za-z0-9+/]{22}==$/

/**
 * Refuses an upgrade the server could not complete, with the JSON error body every route answers: Bun and the
 * framework answer a bad handshake with a plain-text 400, or a 426 without a body.
 */
function checkHandshake(request: Request, headers: Record<string, unknown>): void {
  const version = request.headers.get('sec-websocket-version')
  if (version !== '13') {
    headers['sec-websocket-version'] = '13'
    throw new AppError(
      426,
      'UNSUPPORTED_WEBSOCKET_VERSION',
      'This WebSocket speaks version 13 (Sec-WebSocket-Version: 13)',
    )
  }
  if (!WEBSOCKET_KEY.test(request.headers.get('sec-websocket-key') ?? ''))
    throw new AppError(
      400,
      'INVALID_WEBSOCKET_HANDSHAKE',
      'Sec-WebSocket-Key must be 16 bytes in base64, as a WebSocket client sends it',
    )
}

/** What the chat routes authenticate: the caller, and the agent and deployment it talks to. */
interface ChatAccess {
  caller: Caller
  agent: AgentInfo
  deployment: DeploymentInfo
}

/**
 * The chat API: `stream-chat-state` (NDJSON), its WebSocket mirror and `abort`.
 */
/** What the chat area needs from the app, besides what its routes' authentication needs. */
export interface ChatDeps extends AuthDeps {
  config: AuthDeps['config'] & Pick<Config, 'chatLimits' | 'shutdownGraceMs'>
  storage: Storage
  logger: Logger
  metrics: Metrics
  users: UserProvisioner
  agents: AgentFactory
  lifecycle: Pick<Lifecycle, 'onShutdown' | 'onDrain' | 'isShuttingDown'>
  /** Active runs: in this process, or shared with other nodes through Redis. */
  registry: RunRegistry
  /** What other nodes tell this one: revoked embed sessions, changed thread policies. */
  bus: Pick<ClusterBus, 'shared' | 'subscribe'>
}

export function chatPlugin(deps: ChatDeps) {
  const store = createThreadStore(deps.storage, deps.clock)
  // Runs a previous process left `running` are marked interrupted before this one starts any (on SQLite that is
  // done by the time the call returns; on Postgres the first requests wait for it). One process: every run left
  // running was cut by its end. Several nodes: only runs no live node holds, which the shared registry finds itself.
  const ready = deps.registry.shared
    ? undefined
    : store.recoverInterruptedRuns().then(
        (runs) => {
          if (runs > 0) deps.logger.warn('marked runs of a previous process as interrupted', { runs })
        },
        (error: unknown) => deps.logger.error('runs of a previous process could not be marked interrupted', { error }),
      )
  const limits = deps.config.chatLimits
  const admission = new RunAdmission(limits, {
    waitingChanged: (waiting) => deps.metrics.admissionQueued.set(waiting),
    refused: (limit) => deps.metrics.admissionRefused.inc({ limit }),
  })
  const policies = createThreadPolicyGuard(deps.storage, { bus: deps.bus, clock: deps.clock })
  deps.lifecycle.onShutdown(policies.close)
  const chat: ChatService = createChatService({
    store,
    registry: deps.registry,
    agents: deps.agents,
    logger: deps.logger,
    metrics: deps.metrics,
    clock: deps.clock,
    admission,
    deadlines: createRunDeadlines(limits),
    ready,
    mayRead: ({ deployment, agent }, threadId) => policies.read(deployment.id, agent.id, threadId),
  })
  deps.lifecycle.onShutdown(() => chat.shutdown(deps.config.shutdownGraceMs))
  // Every open chat socket, so a shutdown can close them: the server waits for open sockets before it stops.
  const openSockets = new Set<SocketSession<ChatAccess>>()
  deps.lifecycle.onDrain(() => {
    chat.drain()
    for (const session of openSockets) session.closeWhenDone(GOING_AWAY, 'The server is shutting down')
  })

  const linesSent = deps.metrics.counter('chat_lines_sent_total', 'Chat stream lines handed to clients')
  const readers = deps.metrics.gauge('chat_readers', 'Clients reading a chat stream (HTTP and WebSocket)')
  // One hooks object for every reader (they keep no state of their own): held streams are many.
  const hooks: ReaderHooks = { onLines: (count) => linesSent.inc({}, count), onClose: () => readers.dec() }
  const readerHooks = (): ReaderHooks => {
    readers.inc()
    return hooks
  }

  const openTurn = async (caller: Caller, agent: AgentInfo, deployment: DeploymentInfo, request: ChatRequest) => {
    // Before anything is provisioned or stored: a load balancer sends the request to another node.
    if (deps.lifecycle.isShuttingDown) throw new ShuttingDownError()
    if (request.input === undefined && request.chatId === undefined && request.messageId === undefined)
      throw emptyChatRequest()
    await policies.chat(deployment.id, agent.id, request)
    const participant = await resolveParticipant(deps.users, caller, agent, deployment, request.sessionSettings)
    return { source: await chat.open(request, participant), userId: participant.userId }
  }
  const sessions = new WeakMap<object, SocketSession<ChatAccess>>()
  // The open sockets of embed sessions, by account: a revocation on any node makes this one check them again.
  const embedSockets = new SocketsByAccount<SocketSession<ChatAccess>>()
  // The HTTP streams embed sessions are reading, by account, checked again on a revocation like the sockets.
  const embedStreams = new SocketsByAccount<EmbedStream>()
  const stopListening = deps.bus.subscribe((event) => {
    if (event.type !== 'embed-session-revoked' && event.type !== 'embed-sessions-recheck') return
    const all = event.type === 'embed-sessions-recheck'
    for (const session of all ? embedSockets.all() : embedSockets.of(event.accountId)) void session.recheck()
    for (const stream of all ? embedStreams.all() : embedStreams.of(event.accountId)) void stream.recheck()
  })
  deps.lifecycle.onShutdown(stopListening)

  return new Elysia({ name: 'chat', seed: deps.instanceId })
    .use(authPlugin(deps))
    .post(
      `${CHAT_BASE}/stream-chat-state`,
      async ({ body, caller, agent, deployment, reauthenticate }) => {
        // Over a run limit, openTurn throws TooManyRunsError: 429 with its Retry-After, before the stream starts.
        const { source } = await openTurn(caller, agent, deployment, body ?? {})
        if (caller.kind !== 'embed')
          return new Response(ndjsonStream(source, MAX_LAG_LINES, readerHooks()), { headers: NDJSON_HEADERS })
        // An embed session's tokens stop working at once when it is revoked, also for a stream being read: the
        // revocation (announced to every node) makes each check its readers of that account again, like its sockets.
        const hooks = readerHooks()
        const watched: EmbedStream = {
          async recheck() {
            try {
              await reauthenticate()
            } catch (error) {
              // A database that does not answer can neither confirm nor refuse: the next request checks again.
              if (error instanceof AppError && error.status < 500 && !asStorageUnavailable(error))
                reader.interrupt(encodeLine(errorLine(error.message)))
            }
          },
        }
        const reader = ndjsonReader(source, MAX_LAG_LINES, {
          onLines: hooks.onLines,
          onClose() {
            embedStreams.delete(caller.accountId, watched)
            hooks.onClose?.()
          },
        })
        embedStreams.add(caller.accountId, watched)
        return new Response(reader.stream, { headers: NDJSON_HEADERS })
      },
      {
        chatAccess: true,
        params: ChatParams,
        // Unknown fields are dropped, not refused: this is the hot path, and a refusal costs a second parse. The
        // question is free text: an unpaired surrogate in it is stored, and echoed, as U+FFFD (see `startRun`).
        ...jsonBody(ChatRequest, { optional: true, unknownFields: 'drop', freeText: CHAT_FREE_TEXT }),
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
      async ({ body, caller, agent, deployment, set }) => {
        await policies.abort(deployment.id, body.chatId)
        const userId = await abortingUser(deps.users, caller, body.sessionSettings)
        await chat.abort(body.chatId, abortScope(caller, agent, userId))
        set.status = 204
        return null
      },
      {
        chatAccess: true,
        params: ChatParams,
        ...jsonBody(AbortRequest),
        detail: {
          summary: 'Abort the active run of a chat',
          description:
            '204 when the run was stopped or none was active; 403 for another user’s chat; 404 for an unknown chat.',
          tags: ['Chat'],
          security: [{ ApiKey: [] }, { ServiceAuthToken: [] }, { EmbedToken: [] }],
        },
      },
    )
    .get(
      `${CHAT_BASE}/ws`,
      () => {
        // The socket's address asked without an upgrade (a plain GET, a proxy that dropped the headers).
        throw new AppError(426, 'UPGRADE_REQUIRED', 'This is the chat WebSocket: open it with a WebSocket upgrade')
      },
      { detail: { hide: true } },
    )
    .ws(`${CHAT_BASE}/ws`, {
      chatAccess: true,
      params: ChatParams,
      beforeHandle: ({ request, set }) => checkHandshake(request, set.headers),
      open(ws) {
        const { caller } = ws.data
        const raw = ws.raw as unknown as ServerWebSocket
        const socket: SessionSocket = {
          send: (json: string) => void raw.send(json),
          bufferedAmount: () => raw.getBufferedAmount(),
          cork: (sending: () => void) => void raw.cork(sending),
          close: (code: number, reason: string) => raw.close(code, reason),
        }
        const session = new SocketSession<ChatAccess>(socket, {
          authenticate: ws.data.reauthenticate,
          openTurn: ({ caller, agent, deployment }, request) => openTurn(caller, agent, deployment, request),
          // As over HTTP, the abort acts for the user its message names; without one, for the socket's latest user,
          // and an API key that has named no user yet acts for the account.
          abort: async ({ caller, agent, deployment }, chatId, userId, sessionSettings) => {
            await policies.abort(deployment.id, chatId)
            const aborting =
              sessionSettings !== undefined || userId === undefined
                ? await abortingUser(deps.users, caller, sessionSettings)
                : userId
            await chat.abort(chatId, abortScope(caller, agent, aborting))
          },
          pipe: (source) => pipeTurnToSocket(source, socket, MAX_WS_BUFFERED_BYTES, readerHooks(), { coalesce: true }),
          logger: deps.logger,
        })
        sessions.set(ws.raw, session)
        openSockets.add(session)
        if (caller.kind === 'embed') embedSockets.add(caller.accountId, session)
        // Opened as the shutdown began: closed like the others.
        if (deps.lifecycle.isShuttingDown) session.closeWhenDone(GOING_AWAY, 'The server is shutting down')
      },
      message(ws, message) {
        sessions.get(ws.raw)?.receive(message)
      },
      close(ws) {
        const session = sessions.get(ws.raw)
        session?.close()
        sessions.delete(ws.raw)
        if (session) openSockets.delete(session)
        if (session && ws.data.caller.kind === 'embed') embedSockets.delete(ws.data.caller.accountId, session)
      },
      detail: {
        summary: 'Chat over WebSocket',
        description:
          'One socket, many turns: each client message is a chat request body, each server message one stream line. ' +
          'Send `{ "type": "abort" }` (optionally with `chatId`) to stop the current run. The credential is checked ' +
          'again before every turn: once revoked or expired, the turn gets an error line and the socket closes (1008).',
        tags: ['Chat'],
      },
    })
}
