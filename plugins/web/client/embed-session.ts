import type { EmbedContext } from '../model'
import { PlatformApiError, problems, requestJson, sessionProblem, type Problem } from './api'

export type PageKind = 'dashboard' | 'chat'

/** The address parameter that carries the session id. */
const SESSION_PARAM: Record<PageKind, string> = { dashboard: 'session', chat: 'sessionId' }
/** The other page's parameter, also taken: the two differ (as the contract names them), and a link is easily mixed. */
const OTHER_PARAM: Record<PageKind, string> = { dashboard: 'sessionId', chat: 'session' }
const STORAGE_PREFIX = 'embed-auth:'
/** How often a shown page asks whether its session still holds (a revocation is noticed within this). */
const SESSION_LOOK_MS = 30_000
/** How long before the token expires the host frame is told, so it can send a new session in time. */
export const EXPIRY_NOTICE_MS = 5 * 60_000

interface Auth {
  token: string
  /** Unix milliseconds. */
  expiresAt: number
}

export type SessionState =
  | { status: 'loading' }
  | { status: 'ready'; token: string; context: EmbedContext; expiresAt: number; epoch: number }
  | { status: 'failed'; problem: Problem }

export type ReadySession = Extract<SessionState, { status: 'ready' }>

/** Messages the page posts to its host frame (documented in the README). */
export type HostMessage =
  | { type: 'embed:ready'; page: PageKind; expiresAt: string }
  | { type: 'embed:session-expiring'; expiresAt: string }
  | { type: 'embed:session-expired'; code: string }
  | { type: 'embed:session-accepted'; expiresAt: string }
  | { type: 'embed:session-rejected'; code: string; error: string }

function postToHost(message: HostMessage): void {
  // Only times and codes are posted, nothing secret, so any host origin may read them.
  if (window.parent !== window) window.parent.postMessage(message, '*')
}

/** sessionStorage can be switched off (or throw in a sandboxed frame); the page then works until it is reloaded. */
function storage(): Storage | undefined {
  try {
    return window.sessionStorage
  } catch {
    return undefined
  }
}

function readAuth(sessionId: string): Auth | undefined {
  try {
    const raw = storage()?.getItem(STORAGE_PREFIX + sessionId)
    const parsed = raw ? (JSON.parse(raw) as Partial<Auth>) : undefined
    return typeof parsed?.token === 'string' && typeof parsed.expiresAt === 'number'
      ? { token: parsed.token, expiresAt: parsed.expiresAt }
      : undefined
  } catch {
    return undefined
  }
}

function writeAuth(sessionId: string, auth: Auth | undefined): boolean {
  try {
    const store = storage()
    if (!store) return false
    if (auth) store.setItem(STORAGE_PREFIX + sessionId, JSON.stringify(auth))
    else store.removeItem(STORAGE_PREFIX + sessionId)
    return true
  } catch {
    return false
  }
}

/**
 * The page's session: exchanges the session id from the address for an embed token once, keeps the token in
 * `sessionStorage` under that id (so a reload, even mid-answer, goes on with the same token while the one-time
 * session id is spent), tells the host frame before the token expires and takes a new session id from it without
 * a reload. Any 401 from the service ends the session on the page with a message saying why.
 */
export class EmbedSession {
  state: SessionState = { status: 'loading' }
  private readonly listeners = new Set<() => void>()
  private timers: ReturnType<typeof setTimeout>[] = []
  private epoch = 0
  private sessionId: string | undefined

  constructor(readonly page: PageKind) {}

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  private set(state: SessionState): void {
    this.state = state
    for (const listener of this.listeners) listener()
  }

  async start(): Promise<void> {
    // Listening first: a host may send a session even when the address carries none.
    window.addEventListener('message', (event) => this.onHostMessage(event))
    this.watch()
    const params = new URL(window.location.href).searchParams
    const sessionId = params.get(SESSION_PARAM[this.page]) ?? params.get(OTHER_PARAM[this.page])
    if (!sessionId) return this.fail(problems.missingSession)
    const opened = await this.open(sessionId)
    if ('problem' in opened) return this.fail(opened.problem)
    if (!params.has(SESSION_PARAM[this.page])) {
      // Put right in the address, so a reload reads the page's own parameter.
      const url = new URL(window.location.href)
      url.searchParams.delete(OTHER_PARAM[this.page])
      url.searchParams.set(SESSION_PARAM[this.page], sessionId)
      window.history.replaceState(window.history.state, '', url)
    }
    postToHost({ type: 'embed:ready', page: this.page, expiresAt: new Date(opened.expiresAt).toISOString() })
  }

  /**
   * Ends the session on the page when the service refused its token (401), saying why. Returns whether it did;
   * other errors (a widget's query, a network hiccup) are the caller's to show in place.
   */
  report(error: unknown): boolean {
    if (!(error instanceof PlatformApiError) || error.status !== 401) return false
    const problem = sessionProblem(error)!
    if (this.state.status === 'ready') postToHost({ type: 'embed:session-expired', code: problem.code })
    this.fail(problem)
    return true
  }

  private fail(problem: Problem): void {
    this.clearTimers()
    this.set({ status: 'failed', problem })
  }

  /** Exchanges the session (or finds its token from before a reload) and reads its context; then the page is ready. */
  private async open(sessionId: string): Promise<ReadySession | { problem: Problem }> {
    try {
      let auth = readAuth(sessionId)
      if (!auth) {
        const exchanged = await requestJson<{ token: string; expiresAt: string }>(
          '/api/v1/embed/session/token',
          undefined,
          {
            method: 'POST',
            body: { sessionId },
          },
        )
        auth = { token: exchanged.token, expiresAt: Date.parse(exchanged.expiresAt) }
        writeAuth(sessionId, auth)
      }
      const context = await requestJson<EmbedContext>('/api/v1/embed/session/context', auth.token)
      if (this.sessionId !== undefined && this.sessionId !== sessionId) writeAuth(this.sessionId, undefined)
      this.sessionId = sessionId
      const ready: ReadySession = {
        status: 'ready',
        token: auth.token,
        context,
        expiresAt: auth.expiresAt,
        epoch: ++this.epoch,
      }
      this.set(ready)
      this.schedule(auth.expiresAt)
      return ready
    } catch (error) {
      return {
        problem: sessionProblem(error) ?? {
          code: 'UNEXPECTED',
          title: 'This view could not be opened',
          detail: 'Reload the page to try again.',
        },
      }
    }
  }

  private onHostMessage(event: MessageEvent): void {
    if (window.parent === window || event.source !== window.parent) return
    const data = event.data as { type?: unknown; sessionId?: unknown } | null
    if (
      data?.type !== 'embed:session' ||
      typeof data.sessionId !== 'string' ||
      data.sessionId === '' ||
      data.sessionId.length > 512
    )
      return
    void this.adopt(data.sessionId)
  }

  /**
   * A new session from the host: exchanged, put in the address (so a reload finds its token) and used at once. A
   * session that does not work leaves a working page as it was; a page whose session had ended shows why.
   */
  private async adopt(sessionId: string): Promise<void> {
    if (sessionId === this.sessionId) return
    const opened = await this.open(sessionId)
    if ('problem' in opened) {
      if (this.state.status !== 'ready') this.fail(opened.problem)
      postToHost({ type: 'embed:session-rejected', code: opened.problem.code, error: opened.problem.title })
      return
    }
    const url = new URL(window.location.href)
    url.searchParams.set(SESSION_PARAM[this.page], sessionId)
    window.history.replaceState(window.history.state, '', url)
    postToHost({ type: 'embed:session-accepted', expiresAt: new Date(opened.expiresAt).toISOString() })
  }

  /**
   * A session revoked while the page sits idle is noticed without the viewer doing anything: the page asks for its
   * context every half minute while it is shown, and at once when it is shown again. A 401 ends it on the page, which
   * says so and tells the host frame; a network hiccup is left for the next look.
   */
  private watch(): void {
    let looking = false
    const look = async () => {
      const state = this.state
      if (looking || state.status !== 'ready' || document.visibilityState !== 'visible') return
      looking = true
      try {
        await requestJson<EmbedContext>('/api/v1/embed/session/context', state.token)
      } catch (error) {
        // Only if the token looked at is still the page's: a new session from the host may have replaced it.
        if (this.state === state) this.report(error)
      } finally {
        looking = false
      }
    }
    setInterval(() => void look(), SESSION_LOOK_MS)
    document.addEventListener('visibilitychange', () => void look())
  }

  private schedule(expiresAt: number): void {
    this.clearTimers()
    // setTimeout takes at most 2^31 - 1 ms; tokens live 24 hours, far less.
    const delay = (at: number) => Math.min(Math.max(0, at - Date.now()), 2 ** 31 - 1)
    this.timers.push(
      setTimeout(
        () => postToHost({ type: 'embed:session-expiring', expiresAt: new Date(expiresAt).toISOString() }),
        delay(expiresAt - EXPIRY_NOTICE_MS),
      ),
      setTimeout(
        () => this.report(new PlatformApiError(401, 'EMBED_TOKEN_EXPIRED', 'Embed token expired')),
        delay(expiresAt),
      ),
    )
  }

  private clearTimers(): void {
    for (const timer of this.timers) clearTimeout(timer)
    this.timers = []
  }
}
