import type { ServerWebSocket } from 'bun'
import type { Logger } from '../../../lib/logger'
import type { ChatTurns } from '../turn/chat-turns'
import type { ChatAccess } from '../turn/participant'
import type { EmbedReaders } from './embed-readers'
import { pipeTurnToSocket, type ReaderHooks } from './run-readers'
import { SocketSession, type SessionSocket } from './socket-session'

/** WebSocket close code 1001: the server is going away (a shutdown). */
const GOING_AWAY = 1001
const SHUTTING_DOWN = 'The server is shutting down'

/** What the chat's sockets need: the turns, the embed readers to watch, the reader metrics. */
export interface ChatSocketsDeps {
  turns: Pick<ChatTurns, 'open' | 'abort'>
  embedReaders: EmbedReaders
  readerHooks: () => ReaderHooks
  logger: Logger
  /** A socket this far behind stops getting lines until it drains (its turn goes on). */
  maxBufferedBytes: number
  isShuttingDown(): boolean
}

/**
 * The chat WebSockets open on this node, one `SocketSession` each: opened by the upgrade, fed each client message,
 * forgotten when they close. Kept so a shutdown can close them (the server waits for open sockets before it
 * stops), and, for embed sessions, so a revocation can check them again.
 */
export class ChatSockets {
  private readonly sessions = new WeakMap<object, SocketSession<ChatAccess>>()
  private readonly open = new Set<SocketSession<ChatAccess>>()

  constructor(private readonly deps: ChatSocketsDeps) {}

  /** A socket just upgraded, for `access` (checked again with `reauthenticate` before each turn). */
  opened(raw: ServerWebSocket<unknown>, access: ChatAccess, reauthenticate: () => Promise<ChatAccess>): void {
    const { deps } = this
    const socket: SessionSocket = {
      send: (json: string) => void raw.send(json),
      bufferedAmount: () => raw.getBufferedAmount(),
      cork: (sending: () => void) => void raw.cork(sending),
      close: (code: number, reason: string) => raw.close(code, reason),
    }
    const session = new SocketSession<ChatAccess>(socket, {
      authenticate: reauthenticate,
      openTurn: (current, request) => deps.turns.open(current, request),
      // As over HTTP, the abort acts for the user its message names; without one, for the socket's latest user,
      // and an API key that has named no user yet acts for the account.
      abort: (current, chatId, userId, sessionSettings) => deps.turns.abort(current, chatId, sessionSettings, userId),
      pipe: (source) => pipeTurnToSocket(source, socket, deps.maxBufferedBytes, deps.readerHooks(), { coalesce: true }),
      logger: deps.logger,
    })
    this.sessions.set(raw, session)
    this.open.add(session)
    if (access.caller.kind === 'embed') deps.embedReaders.add(access.caller.accountId, session)
    // Opened as the shutdown began: closed like the others.
    if (deps.isShuttingDown()) session.closeWhenDone(GOING_AWAY, SHUTTING_DOWN)
  }

  received(raw: ServerWebSocket<unknown>, message: unknown): void {
    this.sessions.get(raw)?.receive(message)
  }

  closed(raw: ServerWebSocket<unknown>, access: ChatAccess): void {
    const session = this.sessions.get(raw)
    if (!session) return
    session.close()
    this.sessions.delete(raw)
    this.open.delete(session)
    if (access.caller.kind === 'embed') this.deps.embedReaders.delete(access.caller.accountId, session)
  }

  /** The start of a shutdown: every socket closes (1001) once what it was sent is done; those opened later, at once. */
  closeAll(): void {
    for (const session of this.open) session.closeWhenDone(GOING_AWAY, SHUTTING_DOWN)
  }
}
