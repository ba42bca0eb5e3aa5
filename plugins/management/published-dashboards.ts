import { eq } from 'drizzle-orm'
import { first, type Storage } from '../../db/client'
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
export async function findPublishedDashboard(
  storage: Storage,
  publicId: string,
): Promise<PublishedDashboard | undefined> {
  const { dashboards, deployments } = storage.tables
  const found = await first(
    storage.db
      .select({ dashboard: dashboards, accountId: deployments.accountId })
      .from(dashboards)
      .innerJoin(deployments, eq(deployments.id, dashboards.deploymentId))
      .where(eq(dashboards.publicId, publicId)),
  )
  if (!found || !found.dashboard.published) return undefined
  return { ...toDashboard(found.dashboard), accountId: found.accountId }
}
