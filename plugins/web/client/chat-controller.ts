import { abortChat, ChatRun, newMessageId, type ChatMessage } from '../../../client/chat-stream'
import { createTransport, type Transport } from '../../../client/transport'
import { describeError, pageFetch, PlatformApiError } from './api'

/** An error line of the stream (or a failure to reach it), shown after the message it followed. */
export interface ChatNotice {
  id: number
  afterSort: number
  text: string
  kind: 'error' | 'stopped'
}

export interface ChatView {
  messages: ChatMessage[]
  notices: ChatNotice[]
  streaming: boolean
  /** A run can be stopped once its `chatId` is known. */
  canStop: boolean
  restoring: boolean
  /** How long each tool call took, by message id, as this page saw it (unknown for turns read back from history). */
  toolMs: Record<string, number>
}

/** What survives a reload, per tab: the thread, and the `messageId` of a turn still being answered. */
interface Saved {
  chatId?: string
  inFlight?: string
  /**
   * The question of the turn in flight: sent again with its `messageId` to resume it, the server joins the run, or
   * answers from the thread once it has ended, or starts it if it was never stored (refused with the session).
   */
  input?: string
}

export interface ChatControllerOptions {
  token: string
  accountName: string
  agentId: number
  /** Distinguishes the dashboard's panel from the standalone chat, and one agent from another. */
  storageKey: string
  /** A 401 or an unreachable service: the session is over (returns whether it was such an error). */
  onSessionError(error: unknown): boolean
}

const ABORTED = 'Run aborted'
/** The server's line for a thread that is answering already (another tab, say), and what the page says instead. */
const BUSY = 'Streaming for thread is in progress'
const BUSY_TEXT = 'This conversation is still answering another question (in another tab?). Send yours once it is done.'
/** What each chat of this page saved, for when `sessionStorage` is denied (a frame on another site). */
const inPage = new Map<string, Saved>()

/** The error line that ends a stream whose embed session was revoked while it was read. */
const REVOKED = 'Embed session was revoked'
const revokedError = () => new PlatformApiError(401, 'EMBED_SESSION_REVOKED', REVOKED)

/**
 * The chat's turns, apart from how they are drawn: sends a question with a fresh `messageId` (saved in
 * `sessionStorage` before the request leaves), follows the NDJSON stream line by line, and after a reload reads the
 * thread and rejoins the turn still running with the same `messageId` (the server replays it from its start, so the
 * replayed turn replaces its half-saved copy from the thread). Stop calls `POST .../chat/abort`; the stream then
 * ends with its error line.
 */
export class ChatController {
  view: ChatView = { messages: [], notices: [], streaming: false, canStop: false, restoring: true, toolMs: {} }
  private readonly toolStarts = new Map<string, number>()
  private readonly transport: Transport
  private history: ChatMessage[] = []
  private run: ChatRun | undefined
  private chatId: string | undefined
  private stopping = false
  /** Following a turn rejoined by `restore`, whose lines up to now arrive in one burst. */
  private replaying = false
  private notices = 0
  private disposed = false
  private listener: (() => void) | undefined

  constructor(private readonly options: ChatControllerOptions) {
    this.transport = createTransport({ baseUrl: window.location.origin, embedToken: options.token, fetch: pageFetch })
  }

  /** The thread's `chatId`, once the service gave one. */
  get thread(): string | undefined {
    return this.chatId
  }

  onChange(listener: () => void): void {
    this.listener = listener
  }

  dispose(): void {
    this.disposed = true
    this.listener = undefined
  }

  /** Brings back the thread of this tab and rejoins the turn a reload interrupted. */
  async restore(): Promise<void> {
    const saved = this.load()
    try {
      if (saved.chatId) {
        const state = new ChatRun(this.transport, this.target({ chatId: saved.chatId }))
        const result = await state.done()
        if (result.error) {
          // The thread is not this user's (the host switched users) or is gone: start afresh.
          this.save({})
          saved.inFlight = undefined
        } else {
          this.chatId = saved.chatId
          this.history = result.messages
        }
      }
      this.view.restoring = false
      this.emit()
      // A turn another tab of this thread may still be answering (its last question has no finished answer yet:
      // the model is thinking, a tool runs, or the answer is being written): followed here too, from that
      // question's messageId. The server joins the run, or answers from the thread if it has ended.
      if (!saved.inFlight) {
        const at = this.history.findLastIndex((message) => message.role === 'user')
        const after = at >= 0 ? this.history.slice(at + 1) : []
        const ended = after.some(
          (message) => message.interrupted === true || (message.graphPath?.[0] === 'final' && !message.isInProcess),
        )
        if (at >= 0 && !ended) saved.inFlight = this.history[at].id
      }
      if (saved.inFlight) {
        const index = this.history.findIndex((message) => message.id === saved.inFlight)
        if (index >= 0) this.history = this.history.slice(0, index)
        this.replaying = true
        await this.follow(
          new ChatRun(
            this.transport,
            this.target({ chatId: this.chatId, messageId: saved.inFlight, input: saved.input }),
          ),
          saved.inFlight,
          saved.input,
        )
      }
    } catch (error) {
      this.fail(error)
    } finally {
      this.replaying = false
      this.view.restoring = false
      this.emit()
    }
  }

  /** Sends a question; resolves to whether the thread took it (false: refused or never delivered, to send again). */
  async send(input: string): Promise<boolean> {
    if (this.run || input.trim() === '') return false
    const messageId = newMessageId()
    this.save({ chatId: this.chatId, inFlight: messageId, input })
    await this.follow(
      new ChatRun(this.transport, this.target({ chatId: this.chatId, input, messageId })),
      messageId,
      input,
    )
    return this.view.messages.some((message) => message.id === messageId)
  }

  async stop(): Promise<void> {
    if (!this.run || !this.chatId || this.stopping) return
    this.stopping = true
    this.emit()
    try {
      await abortChat(this.transport, {
        accountName: this.options.accountName,
        agentId: this.options.agentId,
        chatId: this.chatId,
      })
    } catch (error) {
      this.stopping = false
      this.fail(error)
    }
  }

  private target(request: { chatId?: string; input?: string; messageId?: string }) {
    // A dropped answer is rejoined for about half a minute (0.5, 1, 2, 4, 8, 16 s apart): long enough for a
    // server that restarts, or a node that a balancer replaces, to answer again.
    return {
      accountName: this.options.accountName,
      agentId: this.options.agentId,
      maxRejoins: 6,
      rejoinDelayMs: 500,
      ...request,
    }
  }

  private async follow(run: ChatRun, messageId: string, input: string | undefined): Promise<void> {
    this.run = run
    this.stopping = false
    this.emit()
    let finished = false
    let gotState = false
    try {
      for await (const { line, message } of run) {
        if (this.disposed) return
        if (message?.toolCall) this.time(message)
        if (run.chatId && run.chatId !== this.chatId) {
          this.chatId = run.chatId
          this.save({ chatId: run.chatId, inFlight: messageId, input })
        }
        if ('error' in line) {
          finished = true
          // The session was revoked while this answer streamed: the page says so as for a refused request.
          if (line.error === REVOKED && this.options.onSessionError(revokedError())) {
            this.emit()
            continue
          }
          const stopped = this.stopping && line.error === ABORTED
          this.view.notices.push({
            id: ++this.notices,
            afterSort: this.lastSort(run),
            text: stopped ? 'Stopped.' : line.error === BUSY ? BUSY_TEXT : line.error,
            kind: stopped ? 'stopped' : 'error',
          })
        } else if (line.id === '__state__') {
          finished = gotState = true
          this.history = run.messages
        }
        this.emit()
      }
    } catch (error) {
      this.fail(error)
    } finally {
      if (this.run === run) {
        // `__state__` put the whole thread in `history`. Otherwise the partial turn stays visible beside its error
        // line, and what was still being written was cut short (the server stores it so, marked interrupted).
        if (!gotState)
          this.history = this.merge(run).map((message) =>
            message.isInProcess ? { ...message, isInProcess: false, interrupted: true } : message,
          )
        this.run = undefined
        this.stopping = false
      }
      // A turn that ended is no longer in flight; one cut off by the page going away stays in flight for the reload.
      if (finished) this.save({ chatId: this.chatId })
      this.emit()
    }
  }

  private time(message: ChatMessage): void {
    // A turn rejoined after a reload is replayed at once: the gaps between its lines are not the tools' durations.
    if (this.replaying) return
    const now = performance.now()
    const start = this.toolStarts.get(message.id)
    // A call first seen with its result (a replay after a reload) has no duration this page could measure.
    if (start === undefined) {
      this.toolStarts.set(message.id, now)
      return
    }
    if (message.toolCall?.result !== undefined && this.view.toolMs[message.id] === undefined)
      this.view.toolMs[message.id] = now - start
  }

  private fail(error: unknown): void {
    if (this.disposed || this.options.onSessionError(error)) return
    const text = error instanceof PlatformApiError ? error.message : describeError(error)
    this.view.notices.push({ id: ++this.notices, afterSort: this.lastSort(this.run), text, kind: 'error' })
  }

  private lastSort(run: ChatRun | undefined): number {
    const messages = run ? this.merge(run) : this.history
    return messages.length ? messages[messages.length - 1].sort : 0
  }

  private merge(run: ChatRun): ChatMessage[] {
    const byId = new Map(this.history.map((message) => [message.id, message]))
    for (const message of run.messages) byId.set(message.id, message)
    return [...byId.values()].sort((left, right) => left.sort - right.sort)
  }

  private emit(): void {
    if (this.disposed) return
    const run = this.run
    this.view = {
      messages: run ? this.merge(run) : this.history,
      notices: this.view.notices,
      streaming: run !== undefined,
      canStop: run !== undefined && (run.chatId ?? this.chatId) !== undefined && !this.stopping,
      restoring: this.view.restoring,
      toolMs: this.view.toolMs,
    }
    this.listener?.()
  }

  private load(): Saved {
    try {
      const raw = window.sessionStorage.getItem(this.options.storageKey)
      if (raw) return JSON.parse(raw) as Saved
    } catch {
      // A frame on another site may be denied storage: what this page itself saved is still known.
    }
    return inPage.get(this.options.storageKey) ?? {}
  }

  private save(saved: Saved): void {
    // Kept in the page too: a new session makes a new controller, which picks up the turn in flight from here.
    inPage.set(this.options.storageKey, saved)
    try {
      window.sessionStorage.setItem(this.options.storageKey, JSON.stringify(saved))
    } catch {
      // Without storage the chat still works; only a reload forgets it.
    }
  }
}
