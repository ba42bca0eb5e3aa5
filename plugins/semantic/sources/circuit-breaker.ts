import type { Logger } from '../../../lib/logger'
import { DataSourceUnavailableError, QueryTimeoutError } from '../errors'
import type { DataSource, SourceHealth } from './data-source'

export interface CircuitBreakerOptions {
  /** Consecutive failures (no answer, or no connection) that open the circuit. */
  failures: number
  /** How long an open circuit answers 503 at once before it lets one probe through. */
  coolDownMs: number
  /** Longest a health check waits for the database (`/readyz` answers within about a second). */
  healthTimeoutMs: number
  clock?: () => number
  logger?: Logger
  deploymentId?: number
}

export type CircuitState = 'closed' | 'open' | 'half-open'

/** A source behind a circuit breaker, and the breaker's state for `/readyz`. */
export interface GuardedSource extends DataSource {
  circuit(): CircuitState
}

/**
 * A data source behind a circuit breaker. A database that does not answer (a statement or handshake with no reply
 * before the deadline) or cannot be connected to fails each query only after its whole time limit; after `failures`
 * such failures in a row the circuit opens, and every query answers 503 `DATA_SOURCE_UNAVAILABLE` at once (with
 * `Retry-After`) for `coolDownMs`. Then one query goes through as a probe: its success closes the circuit, its
 * failure opens it again. A query the database stopped at its limit (slow, not hung) or refused proves the database
 * answers: it counts as a success, so a caller's slow queries never shut a source for the others.
 */
export function withCircuitBreaker(source: DataSource, options: CircuitBreakerOptions): GuardedSource {
  const clock = options.clock ?? Date.now
  let failures = 0
  let openedAt: number | undefined
  let probing = false
  let checking: Promise<SourceHealth> | undefined

  const state = (): CircuitState =>
    openedAt === undefined ? 'closed' : clock() - openedAt < options.coolDownMs ? 'open' : 'half-open'

  const refuse = () => {
    const waitMs = openedAt === undefined ? 0 : Math.max(0, options.coolDownMs - (clock() - openedAt))
    return new DataSourceUnavailableError(
      options.deploymentId,
      'circuit open after consecutive failures',
      'unreachable',
      Math.max(1, Math.ceil(waitMs / 1000)),
    )
  }

  const succeeded = () => {
    if (openedAt !== undefined)
      options.logger?.info('data source answers again: circuit closed', { deploymentId: options.deploymentId })
    failures = 0
    openedAt = undefined
  }

  const failed = (error: unknown) => {
    failures++
    if (openedAt !== undefined || failures >= options.failures) {
      if (openedAt === undefined)
        options.logger?.warn('data source circuit opened: queries answer 503 at once for the cool-down', {
          deploymentId: options.deploymentId,
          failures,
          coolDownMs: options.coolDownMs,
          reason: (error as { reason?: string }).reason ?? (error as Error).message,
        })
      openedAt = clock()
    }
  }

  /** Whether the error says the database is not there (as opposed to refusing or stopping this query). */
  const isOutage = (error: unknown) =>
    error instanceof DataSourceUnavailableError || (error instanceof QueryTimeoutError && error.kind === 'no answer')

  return {
    type: source.type,
    dialect: source.dialect,
    connect: () => source.connect(),
    circuit: state,
    async query(sql, params, maxRows) {
      const now = state()
      if (now === 'open' || (now === 'half-open' && probing)) throw refuse()
      const probe = now === 'half-open'
      if (probe) probing = true
      try {
        const output = await source.query(sql, params, maxRows)
        succeeded()
        return output
      } catch (error) {
        if (isOutage(error)) failed(error)
        else succeeded()
        throw error
      } finally {
        if (probe) probing = false
      }
    },
    /**
     * Within `healthTimeoutMs`, never more than one check of the database at a time, and none while the circuit is
     * open: a hung database must not gather a statement per `/readyz` call.
     */
    async health() {
      if (state() === 'open') return { ok: false, error: 'unreachable' }
      checking ??= source.health().finally(() => (checking = undefined))
      let timer: ReturnType<typeof setTimeout> | undefined
      const late = new Promise<SourceHealth>((resolve) => {
        timer = setTimeout(() => resolve({ ok: false, error: 'no answer' }), options.healthTimeoutMs)
      })
      try {
        return await Promise.race([checking, late])
      } finally {
        clearTimeout(timer)
      }
    },
    dataStamp: () => source.dataStamp(),
    close: () => source.close(),
  }
}
