import type { Storage } from '../../db/client'
import type { ApiKeyCaller } from '../auth/model'
import { actorOf, type Actor } from './access-control'

/** What every deployment-scoped management operation works with: plain values, no request. */
export interface ManagementContext {
  storage: Storage
  /** Milliseconds since the epoch, from the app's clock. */
  now: number
  deploymentId: number
  actor: Actor
}

/** Stored times are Unix milliseconds; the wire carries ISO 8601. */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString()
}

export function isoTimeOrNull(ms: number | null): string | null {
  return ms === null ? null : isoTime(ms)
}

/** The context of a management request: the key's actor on the deployment the route names. */
export function managementContext(
  storage: Storage,
  now: number,
  caller: ApiKeyCaller,
  deploymentId: number,
): ManagementContext {
  return { storage, now, deploymentId, actor: actorOf(storage, caller) }
}
