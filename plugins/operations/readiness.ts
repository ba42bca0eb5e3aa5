import type { Storage } from '../../db/client'
import type { Lifecycle } from '../../lib/lifecycle'

export interface CheckResult {
  status: 'ok' | 'failing'
  /** Why it fails (never a secret: messages of the storage driver only). */
  error?: string
  ms: number
}

export interface Readiness {
  ready: boolean
  checks: Record<string, CheckResult>
}

/** One named dependency the node needs to serve traffic. */
export type ReadinessCheck = () => void | Promise<void>

export interface ReadinessDeps {
  storage: Storage
  lifecycle: Pick<Lifecycle, 'isShuttingDown'>
  /** The chat's run registry: checked when it is shared with other nodes (Redis). */
  registry: { shared: boolean; check(): Promise<void> }
}

/**
 * Whether this node should get traffic: every check answers, and it is not shutting down (a load balancer then
 * stops sending new requests while in-flight ones finish). Liveness (`/healthz`) stays separate: a node whose
 * database is briefly locked is alive and should not be restarted for it.
 */
export function createReadiness(deps: ReadinessDeps, extra: Record<string, ReadinessCheck> = {}) {
  const ping = deps.storage.sqlite.query<{ ok: number }, []>('SELECT 1 AS ok')
  const checks: Record<string, ReadinessCheck> = {
    storage: () => {
      if (ping.get()?.ok !== 1) throw new Error('the database did not answer SELECT 1')
    },
    ...(deps.registry.shared ? { redis: () => deps.registry.check() } : {}),
    ...extra,
  }
  return async function readiness(): Promise<Readiness> {
    const results: Record<string, CheckResult> = {}
    for (const [name, check] of Object.entries(checks)) {
      const startedAt = performance.now()
      try {
        await check()
        results[name] = { status: 'ok', ms: elapsed(startedAt) }
      } catch (error) {
        results[name] = { status: 'failing', error: (error as Error)?.message ?? String(error), ms: elapsed(startedAt) }
      }
    }
    if (deps.lifecycle.isShuttingDown)
      results.shutdown = { status: 'failing', error: 'the node is shutting down', ms: 0 }
    return { ready: Object.values(results).every((result) => result.status === 'ok'), checks: results }
  }
}

const elapsed = (startedAt: number) => Math.round((performance.now() - startedAt) * 100) / 100
