/**
 * The HTTP layer of the client: only `fetch`, so it runs in browsers, Bun, Node 18+ and workers alike.
 */

/** The subset of `fetch` the client uses; pass your own (a spy, a polyfill, a proxy-aware one). */
export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>

interface CommonOptions {
  /** The service's origin, e.g. `https://analytics.example.com` (a path prefix is kept). */
  baseUrl: string
  /**
   * Forwarded to every `fetch` (added in v0.2.0). Default: `'same-origin'`, or `'omit'` for token-only clients
   * (`token` or `embedToken` without `apiKey`), which never need cookies.
   */
  credentials?: RequestCredentials
  fetch?: FetchLike
  /** Extra headers sent with every request. */
  headers?: Record<string, string>
}

/** Exactly one credential, or none for the calls that need none (the embed session token exchange). */
export type PlatformClientOptions = CommonOptions &
  (
    | { apiKey: string; token?: never; embedToken?: never }
    | { token: string; apiKey?: never; embedToken?: never }
    | { embedToken: string; apiKey?: never; token?: never }
    | { apiKey?: never; token?: never; embedToken?: never }
  )

/** A non-2xx answer: the service's `{ error, code }` with the HTTP status. */
export class PlatformApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message)
    this.name = 'PlatformApiError'
  }
}

export type QueryValue = string | number | boolean | undefined
export type Query = Record<string, QueryValue>

export interface Transport {
  readonly credentials: RequestCredentials
  url(path: string, query?: Query): string
  /** Sends a JSON request and returns the parsed JSON answer (`undefined` for 204). Throws `PlatformApiError`. */
  json<T>(method: string, path: string, options?: { query?: Query; body?: unknown; signal?: AbortSignal }): Promise<T>
  /** Sends a request and returns the raw response once it is known to be 2xx (for streams and files). */
  raw(
    method: string,
    path: string,
    options?: { query?: Query; body?: unknown; signal?: AbortSignal },
  ): Promise<Response>
}

function authHeaders(options: PlatformClientOptions): Record<string, string> {
  if (options.apiKey !== undefined) return { authorization: `Api-Key ${options.apiKey}` }
  if (options.embedToken !== undefined) return { authorization: `Embed-Token ${options.embedToken}` }
  if (options.token !== undefined) return { 'x-service-auth-token': options.token }
  return {}
}

async function failure(response: Response): Promise<PlatformApiError> {
  const text = await response.text().catch(() => '')
  try {
    const body = JSON.parse(text) as { error?: unknown; code?: unknown }
    if (typeof body.error === 'string')
      return new PlatformApiError(response.status, String(body.code ?? 'UNKNOWN'), body.error)
  } catch {
    // Not the service's JSON error body (a proxy's HTML page, say): report the status.
  }
  return new PlatformApiError(
    response.status,
    'HTTP_ERROR',
    `HTTP ${response.status}${text ? `: ${text.slice(0, 200)}` : ''}`,
  )
}

/** Builds the transport once: checks the options, fixes headers and the credentials mode. */
export function createTransport(options: PlatformClientOptions): Transport {
  const given = [options.apiKey, options.token, options.embedToken].filter((value) => value !== undefined)
  if (given.length > 1) throw new TypeError('createPlatformClient: pass only one of apiKey, token and embedToken')
  const base = new URL(options.baseUrl)
  const prefix = base.pathname.replace(/\/+$/, '')
  const fetcher: FetchLike = options.fetch ?? ((input, init) => globalThis.fetch(input, init))
  const tokenOnly = options.apiKey === undefined && (options.token !== undefined || options.embedToken !== undefined)
  const credentials: RequestCredentials = options.credentials ?? (tokenOnly ? 'omit' : 'same-origin')
  const headers = { ...options.headers, ...authHeaders(options) }

  function url(path: string, query: Query = {}): string {
    const target = new URL(base.origin)
    target.pathname = `${prefix}${path}`
    for (const [name, value] of Object.entries(query))
      if (value !== undefined) target.searchParams.set(name, String(value))
    return target.toString()
  }

  async function raw(
    method: string,
    path: string,
    request: { query?: Query; body?: unknown; signal?: AbortSignal } = {},
  ): Promise<Response> {
    const init: RequestInit = { method, credentials, headers: { ...headers }, signal: request.signal }
    if (request.body !== undefined) {
      init.body = JSON.stringify(request.body)
      ;(init.headers as Record<string, string>)['content-type'] = 'application/json'
    }
    const response = await fetcher(url(path, request.query), init)
    if (!response.ok) throw await failure(response)
    return response
  }

  return {
    credentials,
    url,
    raw,
    async json<T>(
      method: string,
      path: string,
      request: { query?: Query; body?: unknown; signal?: AbortSignal } = {},
    ): Promise<T> {
      const response = await raw(method, path, request)
      if (response.status === 204) return undefined as T
      return (await response.json()) as T
    },
  }
}
