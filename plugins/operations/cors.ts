import { Elysia } from 'elysia'
import type { Config } from '../../lib/config'

/** The credential headers a browser client sends, and `Content-Type` for JSON bodies. */
const ALLOWED_HEADERS = 'Authorization, X-Service-Auth-Token, Content-Type, X-Request-Id'
const ALLOWED_METHODS = 'GET, POST, PUT, PATCH, DELETE'
/** Response headers a cross-origin script may read (the default list has neither). */
const EXPOSED_HEADERS = 'X-Request-Id, Retry-After'

/**
 * CORS for the origins of `CORS_ORIGINS`, and nobody else: a preflight from a listed origin is answered 204 with
 * the methods and credential headers allowed; a preflight from any other origin gets 204 without a CORS header, so
 * the browser refuses it. Responses to listed origins name the origin (never `*`); every response varies by it.
 */
export interface CorsDeps {
  config: Pick<Config, 'corsOrigins'>
  instanceId: string
}

export function corsPlugin(deps: CorsDeps) {
  const allowed = new Set(deps.config.corsOrigins)
  const plugin = new Elysia({ name: 'cors', seed: deps.instanceId })
  if (allowed.size === 0) return plugin
  return plugin.onRequest(({ request, set }) => {
    const origin = request.headers.get('origin')
    const preflight = request.method === 'OPTIONS' && request.headers.has('access-control-request-method')
    if (origin === null || !allowed.has(origin)) {
      if (preflight) return new Response(null, { status: 204, headers: { vary: 'Origin' } })
      // Varies by origin too: a shared cache must not hand this answer, without CORS headers, to a listed origin.
      set.headers.vary = 'Origin'
      return
    }
    if (preflight) {
      return new Response(null, {
        status: 204,
        headers: {
          'access-control-allow-origin': origin,
          'access-control-allow-methods': ALLOWED_METHODS,
          'access-control-allow-headers': ALLOWED_HEADERS,
          'access-control-allow-credentials': 'true',
          'access-control-max-age': '600',
          vary: 'Origin',
        },
      })
    }
    set.headers['access-control-allow-origin'] = origin
    set.headers['access-control-allow-credentials'] = 'true'
    set.headers['access-control-expose-headers'] = EXPOSED_HEADERS
    set.headers.vary = 'Origin'
  })
}
