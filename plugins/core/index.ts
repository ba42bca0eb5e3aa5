import { Elysia } from 'elysia'
import type { Config } from '../../lib/config'
import type { Logger } from '../../lib/logger'
import type { Metrics } from '../../lib/metrics'
import { asStorageUnavailable } from '../../db/storage-errors'
import { AppError, BadRequestError, PayloadTooLargeError, StorageUnavailableError } from '../../lib/errors'
import { containsNul, NUL_TEXT_MESSAGE } from '../../lib/storable-text'
import { randomToken } from '../../lib/secrets'
import { createBodyLimit } from './body-limit'
import { toErrorResponse } from './error-handler'
import './number-text'
import { makePrintable } from './printable-values'
import { createRouteMethods, type ListedRoute } from './route-methods'
import { bodyCheckedAfterAuthentication } from './strict-json'

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

interface RequestInfo {
  id: string
  startedAt: number
}

/** What the request pipeline needs from the app. */
export interface CoreDeps {
  config: Pick<Config, 'maxBodyBytes'>
  logger: Logger
  metrics: Metrics
  instanceId: string
  /** The app's routes, read at the first request no route matched (for 405 and `Allow`). */
  routes?: () => readonly ListedRoute[]
}

/**
 * What every request goes through: a request id (echoed as `x-request-id`), the body size limit, one error
 * model (`{ error, code }`, 400 for schema failures, JSON 404, `Retry-After` on errors that know it), the access
 * log and the request metrics.
 */
export function corePlugin(deps: CoreDeps) {
  const { logger, metrics, config } = deps
  const requests = metrics.counter('http_requests_total', 'HTTP requests by method, route and status', [
    'method',
    'route',
    'status',
  ])
  const duration = metrics.histogram(
    'http_request_duration_seconds',
    'HTTP request duration until the response starts',
    ['method', 'route'],
  )
  const info = new WeakMap<Request, RequestInfo>()
  const bodyLimit = createBodyLimit(config.maxBodyBytes)
  const routeMethods = deps.routes ? createRouteMethods(deps.routes) : undefined

  const requestInfo = (request: Request): RequestInfo => {
    let entry = info.get(request)
    if (!entry) {
      const given = request.headers.get('x-request-id')
      entry = { id: given && REQUEST_ID.test(given) ? given : randomToken(12), startedAt: performance.now() }
      info.set(request, entry)
    }
    return entry
  }

  return new Elysia({ name: 'core', seed: deps.instanceId })
    .onRequest((context) => {
      const entry = requestInfo(context.request)
      context.set.headers['x-request-id'] = entry.id
      const guarded = bodyLimit.guard(context.request)
      if (guarded !== context.request) {
        // Everything after this hook (parsers, auth, the handler) reads the guarded copy of the request.
        info.set(guarded, entry)
        context.request = guarded
      }
    })
    .onTransform({ as: 'global' }, ({ request, body, query, params }) => {
      // An optional body that overflowed was swallowed as "no body" by the parser: still a 413.
      if (bodyLimit.exceeded(request)) throw new PayloadTooLargeError(config.maxBodyBytes)
      // A body read by `jsonBody` is checked there, once the credentials passed (401 comes first).
      if (containsNul(params) || containsNul(query) || (!bodyCheckedAfterAuthentication(request) && containsNul(body)))
        throw new BadRequestError(NUL_TEXT_MESSAGE, 'NUL_CHARACTER')
      // Before validation, which describes a failing value by turning it into a string.
      makePrintable(body)
      makePrintable(query)
    })
    .onError({ as: 'global' }, ({ code, error, set, request, path, params, query, body: sent }) => {
      // A database that does not answer is an outage to wait out (503), not a bug of the service (500).
      // No route matched: a known address asked with another method is 405, with the methods it answers.
      const allowed = code === 'NOT_FOUND' && !(error instanceof AppError) ? (routeMethods?.allowed(path) ?? []) : []
      if (allowed.length) set.headers.allow = allowed.join(', ')
      const failure = bodyLimit.exceeded(request)
        ? new PayloadTooLargeError(config.maxBodyBytes)
        : allowed.length
          ? new AppError(
              405,
              'METHOD_NOT_ALLOWED',
              `${request.method} is not allowed here: this address answers ${allowed.join(', ')}`,
            )
          : (asStorageUnavailable(error) ?? error)
      const { status, body } = toErrorResponse(code, failure, { params, query, body: sent })
      const requestId = requestInfo(request).id
      set.status = status
      set.headers['content-type'] = 'application/json; charset=utf-8'
      set.headers['x-request-id'] = requestId
      const retryAfter = (failure as { retryAfterSeconds?: unknown })?.retryAfterSeconds
      if (typeof retryAfter === 'number') set.headers['retry-after'] = String(retryAfter)
      if (failure instanceof StorageUnavailableError)
        logger.warn('request failed: the database does not answer', {
          requestId,
          method: request.method,
          path,
          reason: failure.reason,
        })
      // 503s are outages to wait out (Redis, a data source, a shutdown), told as warnings like the database's.
      else if (status === 503)
        logger.warn('request refused: the service is unavailable for now', {
          requestId,
          method: request.method,
          path,
          code: (body as { code?: string }).code,
          // Why, where the error knows (a data source's driver message, without URLs or passwords).
          reason: (failure as { reason?: unknown })?.reason,
        })
      // A 504 is a query stopped at its time limit: the caller's query or a database that does not answer, told to
      // the caller already. Any caller can make one, so it is a warning without a stack, never an error to page on.
      else if (status === 504)
        logger.warn('request stopped at its time limit', {
          requestId,
          method: request.method,
          path,
          code: (body as { code?: string }).code,
          message: (body as { error?: string }).error,
        })
      else if (status >= 500) logger.error('request failed', { requestId, method: request.method, path, error })
      return body
    })
    .onAfterResponse({ as: 'global' }, ({ request, route, set, path }) => {
      const entry = requestInfo(request)
      const status = typeof set.status === 'number' ? set.status : 200
      const seconds = (performance.now() - entry.startedAt) / 1000
      const label = route || 'unmatched'
      requests.inc({ method: request.method, route: label, status })
      duration.observe({ method: request.method, route: label }, seconds)
      logger.info('request', {
        requestId: entry.id,
        method: request.method,
        path,
        route: label,
        status,
        ms: Math.round(seconds * 1000),
      })
    })
}
