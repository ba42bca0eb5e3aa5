import { and, eq } from 'drizzle-orm'
import { transaction } from '../../db/client'
import { reportSnapshots } from '../../db/schema'
import { NotFoundError } from '../../lib/errors'
import { requireAction } from './access-control'
import { isoTime, type ManagementContext } from './context'
import type {
  CreateReportSnapshotInput,
  ReportSnapshot,
  ReportSnapshotsListQuery,
  ReportSnapshotsListResponse,
  UpdateReportSnapshotInput,
} from './model'
import { byCreation, listPage } from './pagination'
import { requireReport } from './reports'

type SnapshotRow = typeof reportSnapshots.$inferSelect

function toSnapshot(row: SnapshotRow): ReportSnapshot {
  return {
    id: row.id,
    reportId: row.reportId,
    name: row.name,
    query: row.query,
    fillMissingRows: row.fillMissingRows ?? null,
    createdAt: isoTime(row.createdAt),
    updatedAt: isoTime(row.updatedAt),
  }
}

function requireSnapshot(context: ManagementContext, reportId: number, id: number): SnapshotRow {
  requireReport(context, reportId)
  const row = context.storage.db
    .select()
    .from(reportSnapshots)
    .where(and(eq(reportSnapshots.id, id), eq(reportSnapshots.reportId, reportId)))
    .get()
  if (!row) throw new NotFoundError(`Snapshot ${id} of report ${reportId} not found`, 'SNAPSHOT_NOT_FOUND')
  return row
}

/**
 * Freezes the report's current query with its fill-missing-rows setting, so later edits of the report leave the
 * snapshot as it was. The default name is the report's name and the time of the snapshot.
 */
export function createReportSnapshot(
  context: ManagementContext,
  reportId: number,
  input: CreateReportSnapshotInput,
): ReportSnapshot {
  requireAction(context.actor, 'ContentEdit')
  const report = requireReport(context, reportId)
  const row = context.storage.db
    .insert(reportSnapshots)
    .values({
      reportId,
      name: input.name ?? `${report.name} (${isoTime(context.now)})`,
      query: report.query,
      fillMissingRows: input.fillMissingRows ?? null,
      createdAt: context.now,
      updatedAt: context.now,
    })
    .returning()
    .get()
  return toSnapshot(row)
}

export function getReportSnapshot(context: ManagementContext, reportId: number, id: number): ReportSnapshot {
  requireAction(context.actor, 'ContentRead')
  return toSnapshot(requireSnapshot(context, reportId, id))
}

/** A report's snapshots, oldest first, cursor-paginated. */
export function listReportSnapshots(
  context: ManagementContext,
  reportId: number,
  query: ReportSnapshotsListQuery,
): ReportSnapshotsListResponse {
  requireAction(context.actor, 'ContentRead')
  requireReport(context, reportId)
  const page = listPage(context.storage.db, {
    table: reportSnapshots,
    where: [eq(reportSnapshots.reportId, reportId)],
    sorts: byCreation<SnapshotRow>(reportSnapshots.createdAt),
    sortBy: 'createdAt',
    query,
  })
  return { items: page.rows.map(toSnapshot), pageInfo: page.pageInfo }
}

export function updateReportSnapshot(
  context: ManagementContext,
  reportId: number,
  id: number,
  input: UpdateReportSnapshotInput,
): ReportSnapshot {
  requireAction(context.actor, 'ContentEdit')
  return transaction(context.storage, () => {
    requireSnapshot(context, reportId, id)
    const row = context.storage.db
      .update(reportSnapshots)
      .set({ name: input.name, fillMissingRows: input.fillMissingRows, updatedAt: context.now })
      .where(eq(reportSnapshots.id, id))
      .returning()
      .get()
    return toSnapshot(row)
  })
}

export function deleteReportSnapshot(context: ManagementContext, reportId: number, id: number): void {
  requireAction(context.actor, 'ContentManage')
  requireSnapshot(context, reportId, id)
  context.storage.db.delete(reportSnapshots).where(eq(reportSnapshots.id, id)).run()
}
