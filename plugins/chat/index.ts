import { Elysia, t } from 'elysia'
import type { ServerWebSocket } from 'bun'
import type { Storage } from '../../db/client'
import type { ClusterBus } from '../../lib/cluster-bus'
import type { Config } from '../../lib/config'
import type { Lifecycle } from '../../lib/lifecycle'
import type { Logger } from '../../lib/logger'
import type { Metrics } from '../../lib/metrics'
import { AppError } from '../../lib/errors'
import { authPlugin, type AuthDeps } from '../auth'
import type { UserProvisioner } from '../auth/user-provisioner'
import { jsonBody } from '../core/strict-json'
import { AbortRequest, CHAT_FREE_TEXT, ChatParams, ChatRequest, StreamLine } from './model'
import type { RunRegistry } from './registry/run-registry'
import type { AgentFactory } from './run/agent'
import { ChatSockets } from './stream/chat-sockets'
import { EmbedReaders } from './stream/embed-readers'
import { readerMetrics } from './stream/reader-metrics'
import { ndjsonStream } from './stream/run-readers'
import { createChatTurns } from './turn/chat-turns'

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

/** The chat API: `stream-chat-state` (NDJSON), its WebSocket mirror and `abort`. */
export function chatPlugin(deps: ChatDeps) {
  const turns = createChatTurns(deps)
  const readerHooks = readerMetrics(deps.metrics)
  const embedReaders = new EmbedReaders()
  deps.lifecycle.onShutdown(embedReaders.listen(deps.bus))
  const sockets = new ChatSockets({
    turns,
    embedReaders,
    readerHooks,
    logger: deps.logger,
    maxBufferedBytes: MAX_WS_BUFFERED_BYTES,
    isShuttingDown: () => deps.lifecycle.isShuttingDown,
  })
  deps.lifecycle.onDrain(() => {
    turns.drain()
    sockets.closeAll()
  })

  return new Elysia({ name: 'chat', seed: deps.instanceId })
    .use(authPlugin(deps))
    .post(
      `${CHAT_BASE}/stream-chat-state`,
      async ({ body, caller, agent, deployment, reauthenticate }) => {
        // Over a run limit, opening the turn throws TooManyRunsError: 429 with its Retry-After, before the stream
        // starts.
        const { source } = await turns.open({ caller, agent, deployment }, body ?? {})
        if (caller.kind !== 'embed')
          return new Response(ndjsonStream(source, MAX_LAG_LINES, readerHooks()), { headers: NDJSON_HEADERS })
        // An embed session's stream is checked again when a session of its account is revoked, like its sockets.
        const stream = embedReaders.ndjsonStream(source, {
          accountId: caller.accountId,
          reauthenticate,
          maxLagLines: MAX_LAG_LINES,
          hooks: readerHooks(),
        })
        return new Response(stream, { headers: NDJSON_HEADERS })
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
        await turns.abort({ caller, agent, deployment }, body.chatId, body.sessionSettings)
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
        const { caller, agent, deployment, reauthenticate } = ws.data
        sockets.opened(ws.raw as unknown as ServerWebSocket, { caller, agent, deployment }, reauthenticate)
      },
      message(ws, message) {
        sockets.received(ws.raw as unknown as ServerWebSocket, message)
      },
      close(ws) {
        sockets.closed(ws.raw as unknown as ServerWebSocket, ws.data)
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
