import { eq } from 'drizzle-orm'
import { first, type Db, type Storage } from '../../../db/client'
import { toDashboard, type DashboardRow } from './dashboards'
import type { Dashboard } from '../model'

/** A published dashboard with the account it belongs to, for the embed pages. */
export interface PublishedDashboard extends Dashboard {
  accountId: number
  /** The embed tenant whose creators made it, or `null` for the account's own dashboards. */
  embedTenantId: number | null
}

/** A dashboard row by `publicId` (published or not), with its account and embed tenant. */
export async function findDashboardRowByPublicId(
  storage: Storage,
  db: Db,
  publicId: string,
): Promise<{ row: DashboardRow; accountId: number; embedTenantId: number | null } | undefined> {
  const { dashboards, deployments, workbooks } = storage.tables
  const found = await first(
    db
      .select({ row: dashboards, accountId: deployments.accountId, embedTenantId: workbooks.embedTenantId })
      .from(dashboards)
      .innerJoin(deployments, eq(deployments.id, dashboards.deploymentId))
      .innerJoin(workbooks, eq(workbooks.id, dashboards.workbookId))
      .where(eq(dashboards.publicId, publicId)),
  )
  return found
}

/**
 * The published dashboard with this `publicId`, or `undefined` when there is none or it is unpublished. No
 * permission check: the caller (the embed pages) must check that its session may see `deploymentId` (and, for a
 * dashboard of an embed tenant, that it is of that tenant).
 */
export async function findPublishedDashboard(
  storage: Storage,
  publicId: string,
): Promise<PublishedDashboard | undefined> {
  const found = await findDashboardRowByPublicId(storage, storage.db, publicId)
  if (!found || !found.row.published) return undefined
  return { ...toDashboard(found.row), accountId: found.accountId, embedTenantId: found.embedTenantId }
}
