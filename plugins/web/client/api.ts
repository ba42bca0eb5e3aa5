import { PlatformApiError } from '../../../client/transport'
import { ChatConnectionError } from '../../../client/chat-stream'

export { PlatformApiError }

/** The request never got an answer (offline, server down). */
export class NetworkError extends Error {
  constructor(cause: unknown) {
    super('The service cannot be reached', { cause })
    this.name = 'NetworkError'
  }
}

/** `fetch` whose transport failures are `NetworkError`s (an abort stays an `AbortError`). */
export async function pageFetch(input: string, init?: RequestInit): Promise<Response> {
  try {
    return await fetch(input, init)
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error
    throw new NetworkError(error)
  }
}

/** A request to this service with the page's embed token; a non-2xx answer throws `PlatformApiError`. */
export async function request(
  path: string,
  token: string | undefined,
  init: { method?: string; body?: unknown } = {},
): Promise<Response> {
  const headers: Record<string, string> = {}
  if (token) headers.authorization = `Embed-Token ${token}`
  if (init.body !== undefined) headers['content-type'] = 'application/json'
  const response = await pageFetch(path, {
    method: init.method ?? 'GET',
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    // The token is the only credential; the pages never use cookies.
    credentials: 'omit',
    cache: 'no-store',
  })
  if (!response.ok) throw await failure(response)
  return response
}

export async function requestJson<T>(
  path: string,
  token: string | undefined,
  init: { method?: string; body?: unknown } = {},
): Promise<T> {
  return (await (await request(path, token, init)).json()) as T
}

/** An error answer of this service, with the request id it gave (what a user quotes to the people who run it). */
export class PageApiError extends PlatformApiError {
  constructor(
    status: number,
    code: string,
    message: string,
    readonly requestId: string | undefined,
  ) {
    super(status, code, message)
  }
}

async function failure(response: Response): Promise<PlatformApiError> {
  const requestId = response.headers.get('x-request-id') ?? undefined
  try {
    const body = (await response.json()) as { error?: unknown; code?: unknown }
    if (typeof body.error === 'string')
      return new PageApiError(response.status, String(body.code ?? 'UNKNOWN'), body.error, requestId)
  } catch {
    // Not the service's JSON error body (a proxy's page, say).
  }
  return new PageApiError(response.status, 'HTTP_ERROR', `The service answered HTTP ${response.status}`, requestId)
}

/** The request id of a failed request, when the service gave one. */
export function requestIdOf(error: unknown): string | undefined {
  return error instanceof PageApiError ? error.requestId : undefined
}

/** What a person reads when something went wrong: a title and one or two plain sentences, never a stack trace. */
export interface Problem {
  title: string
  detail: string
  code: string
}

const RELOAD_HOST = 'Reload the page that shows this view to open it again.'

export const problems = {
  missingSession: {
    code: 'MISSING_SESSION',
    title: 'This link is incomplete',
    detail: 'It carries no session. Open this view from the app that embeds it.',
  },
  noAgent: {
    code: 'NO_AGENT',
    title: 'No AI agent is available',
    detail: 'This deployment has no agent to answer questions.',
  },
} satisfies Record<string, Problem>

/** The problem an error stands for; `undefined` for errors that are not about the session (a widget's bad query). */
export function sessionProblem(error: unknown): Problem | undefined {
  if (error instanceof PlatformApiError) {
    if (error.status !== 401) return undefined
    switch (error.code) {
      case 'INVALID_SESSION':
        return {
          code: error.code,
          title: 'This link has expired',
          detail: `Embedded views open with a one-time link that works once, within five minutes. This one has expired or was already used. ${RELOAD_HOST}`,
        }
      case 'EMBED_SESSION_REVOKED':
        return {
          code: error.code,
          title: 'Access was revoked',
          detail: `The app that embeds this view ended this session. ${RELOAD_HOST}`,
        }
      case 'EMBED_TOKEN_EXPIRED':
        return { code: error.code, title: 'Your session has expired', detail: RELOAD_HOST }
      default:
        return { code: error.code, title: 'Your session is no longer valid', detail: RELOAD_HOST }
    }
  }
  if (error instanceof NetworkError)
    return {
      code: 'NETWORK',
      title: 'The service cannot be reached',
      detail: 'Check your connection, then reload the page.',
    }
  return undefined
}

/** A short sentence for errors shown in place (a widget, a chat turn). */
export function describeError(error: unknown): string {
  if (error instanceof PlatformApiError) return error.message
  if (error instanceof NetworkError) return 'The service cannot be reached.'
  if (error instanceof ChatConnectionError)
    return 'The connection to the service was lost, and rejoining the answer failed. Reload the page to see it.'
  return 'Something went wrong.'
}
