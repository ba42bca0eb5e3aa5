import { TypeCompiler } from '@sinclair/typebox/compiler'
import { asStorageUnavailable } from '../../../db/storage-errors'
import { AppError } from '../../../lib/errors'
import type { Logger } from '../../../lib/logger'
import { NUL_TEXT_MESSAGE, textProblem, unpairedSurrogateMessage } from '../../../lib/storable-text'
import { dropUnknownFields, MAX_DEPTH, TOO_DEEP_MESSAGE, valueNestedDeeperThan } from '../../core/strict-json'
import { schemaErrors } from '../../../lib/schema-errors'
import { encodeLine, errorLine } from './lines'
import { t } from 'elysia'
import { SessionSettings } from '../../auth/session-settings'
import { AbortRequest, CHAT_FREE_TEXT, ChatRequest } from '../model'
import type { LineSocket, TurnSource } from './run-readers'

/** Every WebSocket message is checked: compiled once rather than interpreted per message. */
const chatRequestCheck = TypeCompiler.Compile(ChatRequest)

/** Close code of a socket whose credential stopped being valid (RFC 6455: policy violation). */
export const CREDENTIAL_CLOSE_CODE = 1008

export interface SessionSocket extends LineSocket {
  close(code: number, reason: string): void
}

/**
 * What a socket session needs from the chat. `Access` is what authentication yields (the caller, its agent and
 * deployment): it is established again before each turn, never kept from the upgrade.
 */
export interface SocketSessionHandlers<Access> {
  /** Checks the socket's credential again (revoked, expired, deleted); throws an `AppError` when it no longer holds. */
  authenticate(): Promise<Access>
  /** Opens one turn (throws `AppError`s for requests refused before a stream would start, such as 429). */
  openTurn(access: Access, request: ChatRequest): Promise<{ source: TurnSource; userId: number }>
  /**
   * Stops the chat's active run, as the user the abort message names (`sessionSettings`), else as the socket's
   * latest user (`userId`, once it has had a turn).
   */
  abort(access: Access, chatId: string, userId: number | undefined, sessionSettings?: SessionSettings): Promise<void>
  /** Sends a turn's lines to the socket; `done` settles after its last line. */
  pipe(source: TurnSource): { done: Promise<void>; stop(): void }
  logger: Logger
}

/** `{ type: 'abort', chatId?, sessionSettings? }`: as over HTTP, `sessionSettings` names the user who aborts. */
const AbortMessage = t.Object({
  type: t.Literal('abort'),
  chatId: t.Optional(AbortRequest.properties.chatId),
  sessionSettings: t.Optional(SessionSettings),
})
type AbortMessage = typeof AbortMessage.static
const abortMessageCheck = TypeCompiler.Compile(AbortMessage)

/** A queued client message: a chat request, or the error line of an invalid one, sent in its turn. */
type Queued = { request: ChatRequest } | { error: string }

/**
 * Requests one socket may have waiting behind its turn in progress. Each may hold a body as large as the body limit:
 * without a bound, a client that sends faster than its turns end would grow the server's memory without end.
 */
export const MAX_WAITING_REQUESTS = 16
/** Queued messages of any kind (an error line is small) past which a socket is taken for a flood and closed. */
const MAX_QUEUED = 1_000
/** Close code of a socket that flooded the server with messages (RFC 6455: policy violation). */
const FLOOD_CLOSE_CODE = 1008

const utf8 = new TextDecoder('utf-8', { fatal: true })

/**
 * One chat WebSocket: each client message is a chat request, run one after another (the next starts when the
 * previous turn's last line is sent), or an abort message, which acts at once (on a turn still being opened, as soon
 * as it is open). An error line that answers a message (an invalid one, a failed abort) waits its turn like a
 * request, so it never lands among the lines of a turn in progress. The credential the socket
 * was opened with is checked again before every turn and abort: once it is revoked or expired, that turn gets one
 * error line and the socket is closed (1008).
 */
export class SocketSession<Access> {
  private readonly queue: Queued[] = []
  private current: { chatId: string | undefined; stop(): void } | undefined
  /** A turn is being opened: its thread is not known yet. */
  private opening = false
  /** An abort of the current run that came while its turn was being opened: applied once it is open. */
  private abortOnOpen: AbortMessage | undefined
  private pumping = false
  private closed = false
  /** Set by `closeWhenDone`: how to close once the queue is done. */
  private closing: { code: number; reason: string } | undefined
  /** The user of the socket's latest turn. */
  private userId: number | undefined

  constructor(
    private readonly socket: SessionSocket,
    private readonly handlers: SocketSessionHandlers<Access>,
  ) {}

  /** Handles one client message (text or binary UTF-8 JSON, or the object Elysia parsed from it). */
  receive(message: unknown): void {
    if (this.closed || this.closing) return
    let request: unknown = message
    try {
      if (message instanceof ArrayBuffer || ArrayBuffer.isView(message)) request = utf8.decode(message)
      // A leading byte order mark is not part of the JSON (the HTTP route reads the body as UTF-8 text, which drops it).
      if (typeof request === 'string')
        request = JSON.parse(request.charCodeAt(0) === 0xfeff ? request.slice(1) : request)
    } catch {
      return this.enqueue({ error: 'Malformed message: expected one JSON chat request' })
    }
    // As over HTTP, where such a body is 'Invalid request body: expected object'.
    if (typeof request !== 'object' || request === null || Array.isArray(request))
      return this.enqueue({ error: 'Invalid message: expected object' })
    // As over HTTP, before anything walks the message: validation recurses, and 100,000 levels ran it out of stack.
    if (valueNestedDeeperThan(request, MAX_DEPTH)) return this.enqueue({ error: TOO_DEEP_MESSAGE })
    // Also in fields the schema drops, as over HTTP, where the whole body is checked.
    const problem = textProblem(request, { freeText: CHAT_FREE_TEXT })
    if (problem)
      return this.enqueue({
        error: problem.kind === 'nul' ? NUL_TEXT_MESSAGE : unpairedSurrogateMessage(problem.path),
      })
    if (isAbortMessage(request)) {
      dropUnknownFields(AbortMessage, request)
      if (!abortMessageCheck.Check(request))
        return this.enqueue({ error: schemaErrors(AbortMessage, request)[0] ?? 'Invalid abort message' })
      return void this.abort(request)
    }
    // Unknown fields are ignored, as over HTTP.
    if (typeof request === 'object' && request !== null && !Array.isArray(request))
      dropUnknownFields(ChatRequest, request)
    if (!chatRequestCheck.Check(request))
      return this.enqueue({ error: schemaErrors(ChatRequest, request)[0] ?? 'Invalid chat request' })
    if (this.waitingRequests() >= MAX_WAITING_REQUESTS)
      return this.enqueue({
        error: `Too many requests waiting on this socket (${MAX_WAITING_REQUESTS}): send the next once a turn has ended`,
      })
    this.enqueue({ request })
  }

  private waitingRequests(): number {
    let count = 0
    for (const item of this.queue) if ('request' in item) count++
    return count
  }

  private enqueue(item: Queued): void {
    if (this.queue.length >= MAX_QUEUED) {
      this.closed = true
      this.queue.length = 0
      this.current?.stop()
      this.socket.close(FLOOD_CLOSE_CODE, 'Too many messages waiting on this socket')
      return
    }
    this.queue.push(item)
    if (!this.pumping) void this.pump()
  }

  /**
   * Checks the credential again now, between turns or during one (a revocation was announced): once it no longer
   * holds, the socket gets the error line and closes at once.
   */
  async recheck(): Promise<void> {
    if (!this.closed) await this.access('recheck')
  }

  /**
   * The server is shutting down: messages from now on are ignored, and the socket closes (`code`) once the turn it is
   * sending and those already queued are done (they end at once: the runs are aborted and new turns refused).
   */
  closeWhenDone(code: number, reason: string): void {
    if (this.closed || this.closing) return
    this.closing = { code, reason }
    if (!this.pumping) this.closeNow()
  }

  private closeNow(): void {
    const closing = this.closing!
    this.closed = true
    this.socket.close(closing.code, closing.reason)
  }

  /** The client went away: queued turns are dropped; the current run goes on without this reader. */
  close(): void {
    this.closed = true
    this.queue.length = 0
    this.current?.stop()
  }

  private sendError(text: string): void {
    if (!this.closed) this.socket.send(encodeLine(errorLine(text)).json)
  }

  /**
   * The caller as of now, or undefined once the socket was closed for a credential that no longer holds. While the
   * database does not answer the credential can be neither confirmed nor refused: the socket stays open, a turn about
   * to start gets the error line with the queued ones dropped, and a recheck during a turn leaves it alone (the next
   * turn checks again). A credential over its request rate refuses that one message, as HTTP answers it 429: the
   * turn or abort gets the error line and the socket stays open for the next.
   */
  private async access(purpose: 'turn' | 'abort' | 'recheck'): Promise<Access | undefined> {
    const duringTurn = purpose === 'recheck'
    try {
      return await this.handlers.authenticate()
    } catch (error) {
      const down = asStorageUnavailable(error)
      if (down) {
        this.handlers.logger.warn('chat websocket credential check failed: the database does not answer', {
          reason: down.reason,
        })
        if (!duringTurn) {
          this.sendError(down.message)
          this.queue.length = 0
        }
        return undefined
      }
      if (error instanceof AppError && error.status === 429) {
        // An abort's line waits its turn, so it never lands among the lines of a turn in progress.
        if (purpose === 'turn') this.sendError(error.message)
        else if (purpose === 'abort') this.enqueue({ error: error.message })
        return undefined
      }
      const message = error instanceof AppError ? error.message : 'Credentials could not be checked'
      if (!(error instanceof AppError)) this.handlers.logger.error('chat websocket credential check failed', { error })
      this.sendError(message)
      this.closed = true
      this.queue.length = 0
      // The reason is limited to 123 bytes by the protocol; the error line carries the full message.
      this.socket.close(CREDENTIAL_CLOSE_CODE, message.slice(0, 120))
      return undefined
    }
  }

  /**
   * Stops the run of `chatId`, or the current one. Sent right after a request, the abort finds that turn still being
   * opened (its thread unknown yet): it is applied as soon as the turn is open. What goes wrong is told by an error line
   * that waits its turn like a refused request's: sent during a turn, it would read as that turn's end.
   */
  private async abort(request: AbortMessage): Promise<void> {
    if (request.chatId === undefined && this.opening) {
      this.abortOnOpen = request
      return
    }
    const chatId = request.chatId ?? this.current?.chatId
    if (!chatId) return this.enqueue({ error: 'Nothing to abort' })
    const access = await this.access('abort')
    if (!access) return
    try {
      await this.handlers.abort(access, chatId, this.userId, request.sessionSettings)
    } catch (error) {
      const failure = asStorageUnavailable(error) ?? error
      this.enqueue({ error: failure instanceof AppError ? failure.message : 'Abort failed' })
    }
  }

  private async pump(): Promise<void> {
    this.pumping = true
    try {
      while (this.queue.length > 0 && !this.closed) {
        const next = this.queue.shift()!
        if ('error' in next) {
          this.sendError(next.error)
          continue
        }
        const { request } = next
        // From here until its run is known, an abort of "the current run" means this turn's.
        this.opening = true
        const access = await this.access('turn')
        if (!access) {
          // Refused (its line is sent) or the socket closed: the next queued message, if any is left, is checked anew.
          this.opening = false
          this.abortOnOpen = undefined
          continue
        }
        let source: TurnSource
        try {
          const opened = await this.handlers.openTurn(access, request)
          source = opened.source
          this.userId = opened.userId
        } catch (error) {
          this.opening = false
          this.abortOnOpen = undefined
          const down = asStorageUnavailable(error)
          if (down) this.handlers.logger.warn('chat websocket turn failed', { reason: down.reason })
          else if (!(error instanceof AppError)) this.handlers.logger.error('chat websocket turn failed', { error })
          const failure = down ?? error
          this.sendError(failure instanceof AppError ? failure.message : 'Internal server error')
          continue
        }
        this.opening = false
        // The client left while the turn was opened: the run goes on without this reader.
        if (this.closed) return
        const piping = this.handlers.pipe(source)
        this.current = { chatId: source.run?.key.chatId, stop: piping.stop }
        const abort = this.abortOnOpen
        this.abortOnOpen = undefined
        // A turn without a run (a thread read, an error line) has nothing to stop, as an abort over HTTP would find.
        if (abort && source.run) void this.abort(abort)
        await piping.done
        this.current = undefined
      }
    } finally {
      this.pumping = false
      this.opening = false
      this.abortOnOpen = undefined
      if (this.closing && !this.closed) this.closeNow()
    }
  }
}

function isAbortMessage(value: unknown): value is AbortMessage {
  return typeof value === 'object' && value !== null && (value as { type?: unknown }).type === 'abort'
}

/** Open sockets grouped by account. */
export class SocketsByAccount<T> {
  private readonly byAccount = new Map<number, Set<T>>()

  add(accountId: number, socket: T): void {
    const open = this.byAccount.get(accountId) ?? new Set<T>()
    open.add(socket)
    this.byAccount.set(accountId, open)
  }

  delete(accountId: number, socket: T): void {
    const open = this.byAccount.get(accountId)
    open?.delete(socket)
    if (open?.size === 0) this.byAccount.delete(accountId)
  }

  of(accountId: number): Iterable<T> {
    return this.byAccount.get(accountId) ?? []
  }

  *all(): Iterable<T> {
    for (const open of this.byAccount.values()) yield* open
  }
}
