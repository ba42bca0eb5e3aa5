import { eq } from 'drizzle-orm'
import type { Storage } from '../../db/client'
import { dashboards, deployments } from '../../db/schema'
import { toDashboard } from './dashboards'
import type { Dashboard } from './model'

/** A published dashboard with the account it belongs to, for the embed pages. */
export interface PublishedDashboard extends Dashboard {
  accountId: number
}

/**
 * The published dashboard with this `publicId`, or `undefined` when there is none or it is unpublished. No
 * permission check: the caller (the embed pages) must check that its session may see `deploymentId`.
 */
export function findPublishedDashboard(storage: Storage, publicId: string): PublishedDashboard | undefined {
  const found = storage.db
    .select({ dashboard: dashboards, accountId: deployments.accountId })
    .from(dashboards)
    .innerJoin(deployments, eq(deployments.id, dashboards.deploymentId))
    .where(eq(dashboards.publicId, publicId))
    .get()
  if (!found || !found.dashboard.published) return undefined
  return { ...toDashboard(found.dashboard), accountId: found.accountId }
}
