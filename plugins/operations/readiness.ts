import { first, type Storage } from '../../db/client'
import { asStorageUnavailable } from '../../db/storage-errors'
import type { Lifecycle } from '../../lib/lifecycle'

export interface CheckResult {
  status: 'ok' | 'failing'
  /** Why it fails (never a secret: messages of the storage driver only). */
  error?: string
  ms: number
  /** Data sources only: false, they never make the node unready (one deployment's database being down is not the node's). */
  required?: false
  /** Data sources only: whose source it is and of what type. */
  deploymentId?: number
  type?: string
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
  /** The deployments' data sources, listed with their state as `dataSource:<deploymentId>`. */
  semantic?: {
    sourceHealth(): Promise<Array<{ deploymentId: number; type: string; ok: boolean; error?: string; ms?: number }>>
  }
}

/**
 * Whether this node should get traffic: every check answers, and it is not shutting down (a load balancer then
 * stops sending new requests while in-flight ones finish). Liveness (`/healthz`) stays separate: a node whose
 * database is briefly locked is alive and should not be restarted for it.
 */
export function createReadiness(
  deps: ReadinessDeps,
  extra: Record<string, ReadinessCheck> = {},
  timeoutMs = CHECK_TIMEOUT_MS,
) {
  const { storage } = deps
  const checks: Record<string, ReadinessCheck> = {
    // A read of a table of the service: the database answers and is migrated.
    storage: async () => {
      await first(storage.db.select({ id: storage.tables.accounts.id }).from(storage.tables.accounts).limit(1))
    },
    ...storage.readinessChecks,
    ...(deps.registry.shared ? { redis: () => deps.registry.check() } : {}),
    ...extra,
  }
  return async function readiness(): Promise<Readiness> {
    const results: Record<string, CheckResult> = {}
    // Checked beside the node's own dependencies, so a source that hangs adds no time to the answer.
    const sources = deps.semantic ? dataSourceResults(deps.semantic, timeoutMs) : undefined
    await Promise.all(
      Object.entries(checks).map(async ([name, check]) => {
        const startedAt = performance.now()
        try {
          await withTimeoutValue(Promise.resolve().then(check), timeoutMs, name)
          results[name] = { status: 'ok', ms: elapsed(startedAt) }
        } catch (error) {
          // A database that does not answer: the driver's reason, not the text of the query that found out.
          const message = asStorageUnavailable(error)?.reason ?? (error as Error)?.message ?? String(error)
          results[name] = { status: 'failing', error: message, ms: elapsed(startedAt) }
        }
      }),
    )
    if (deps.lifecycle.isShuttingDown)
      results.shutdown = { status: 'failing', error: 'the node is shutting down', ms: 0 }
    const ready = Object.values(results).every((result) => result.status === 'ok')
    if (sources) Object.assign(results, await sources)
    return { ready, checks: results }
  }
}

/** Each deployment's data source with its state, as checks that are not required (a source that hangs: failing). */
async function dataSourceResults(
  semantic: NonNullable<ReadinessDeps['semantic']>,
  timeoutMs: number,
): Promise<Record<string, CheckResult>> {
  const startedAt = performance.now()
  let listed: Awaited<ReturnType<typeof semantic.sourceHealth>>
  try {
    listed = await withTimeoutValue(semantic.sourceHealth(), timeoutMs, 'the data sources')
  } catch (error) {
    const message = (error as Error)?.message ?? String(error)
    return { dataSources: { status: 'failing', error: message, ms: elapsed(startedAt), required: false } }
  }
  const ms = elapsed(startedAt)
  const results: Record<string, CheckResult> = {}
  for (const source of listed)
    results[`dataSource:${source.deploymentId}`] = {
      status: source.ok ? 'ok' : 'failing',
      ...(source.ok ? {} : { error: source.error }),
      ms: source.ms ?? ms,
      required: false,
      deploymentId: source.deploymentId,
      type: source.type,
    }
  return results
}

/** A dependency that does not answer within this is as good as down for a load balancer. */
const CHECK_TIMEOUT_MS = 2000

async function withTimeoutValue<T>(work: Promise<T>, timeoutMs: number, name: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${name} did not answer within ${timeoutMs} ms`)), timeoutMs)
  })
  try {
    return await Promise.race([work, timeout])
  } finally {
    clearTimeout(timer)
  }
}

const elapsed = (startedAt: number) => Math.round((performance.now() - startedAt) * 100) / 100
