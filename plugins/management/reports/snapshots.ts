import { and, eq } from 'drizzle-orm'
import { first } from '../../../db/client'
import type { reportSnapshots } from '../../../db/schema'
import { NotFoundError } from '../../../lib/errors'
import { requireAction } from '../access/key-policies'
import { isoTime, writing, type ManagementContext } from '../access/context'
import type {
  CreateReportSnapshotInput,
  ReportSnapshot,
  ReportSnapshotsListQuery,
  ReportSnapshotsListResponse,
  UpdateReportSnapshotInput,
} from '../model'
import { derivedName } from '../derived-name'
import { byCreation, listPage } from '../pagination'
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

async function requireSnapshot(context: ManagementContext, reportId: number, id: number): Promise<SnapshotRow> {
  await requireReport(context, reportId)
  const { reportSnapshots } = context.storage.tables
  const row = await first(
    context.db
      .select()
      .from(reportSnapshots)
      .where(and(eq(reportSnapshots.id, id), eq(reportSnapshots.reportId, reportId))),
  )
  if (!row) throw new NotFoundError(`Snapshot ${id} of report ${reportId} not found`, 'SNAPSHOT_NOT_FOUND')
  return row
}

/**
 * Freezes the report's current query with its fill-missing-rows setting, so later edits of the report leave the
 * snapshot as it was. The default name is the report's name and the time of the snapshot.
 */
export async function createReportSnapshot(
  context: ManagementContext,
  reportId: number,
  input: CreateReportSnapshotInput,
): Promise<ReportSnapshot> {
  requireAction(context.actor, 'ContentEdit')
  const { reportSnapshots } = context.storage.tables
  // The report is read in the snapshot's transaction, so the snapshot freezes the query as it is when written.
  return writing(context, async (context) => {
    const report = await requireReport(context, reportId)
    const [row] = await context.tx
      .insert(reportSnapshots)
      .values({
        reportId,
        name: input.name ?? derivedName(report.name, { suffix: ` (${isoTime(context.now)})` }),
        query: report.query,
        fillMissingRows: input.fillMissingRows ?? null,
        createdAt: context.now,
        updatedAt: context.now,
      })
      .returning()
    return toSnapshot(row)
  })
}

export async function getReportSnapshot(
  context: ManagementContext,
  reportId: number,
  id: number,
): Promise<ReportSnapshot> {
  requireAction(context.actor, 'ContentRead')
  return toSnapshot(await requireSnapshot(context, reportId, id))
}

/** A report's snapshots, oldest first, cursor-paginated. */
export async function listReportSnapshots(
  context: ManagementContext,
  reportId: number,
  query: ReportSnapshotsListQuery,
): Promise<ReportSnapshotsListResponse> {
  requireAction(context.actor, 'ContentRead')
  await requireReport(context, reportId)
  const { reportSnapshots } = context.storage.tables
  const page = await listPage(context.db, {
    table: reportSnapshots,
    where: [eq(reportSnapshots.reportId, reportId)],
    sorts: byCreation<SnapshotRow>(reportSnapshots.createdAt),
    sortBy: 'createdAt',
    query,
  })
  return { items: page.rows.map(toSnapshot), pageInfo: page.pageInfo }
}

export async function updateReportSnapshot(
  context: ManagementContext,
  reportId: number,
  id: number,
  input: UpdateReportSnapshotInput,
): Promise<ReportSnapshot> {
  requireAction(context.actor, 'ContentEdit')
  const { reportSnapshots } = context.storage.tables
  return writing(context, async (context) => {
    await requireSnapshot(context, reportId, id)
    const [row] = await context.tx
      .update(reportSnapshots)
      .set({ name: input.name, fillMissingRows: input.fillMissingRows, updatedAt: context.now })
      .where(eq(reportSnapshots.id, id))
      .returning()
    return toSnapshot(row)
  })
}

export async function deleteReportSnapshot(context: ManagementContext, reportId: number, id: number): Promise<void> {
  requireAction(context.actor, 'ContentManage')
  const { reportSnapshots } = context.storage.tables
  return writing(context, async (context) => {
    await requireSnapshot(context, reportId, id)
    await context.tx.delete(reportSnapshots).where(eq(reportSnapshots.id, id))
  })
}
