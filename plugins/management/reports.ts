import { and, asc, eq, inArray } from 'drizzle-orm'
import { transaction } from '../../db/client'
import { reportPlacements, reports } from '../../db/schema'
import { BadRequestError, NotFoundError } from '../../lib/errors'
import { requireAction, type Actor } from './access-control'
import { isoTime, isoTimeOrNull, type ManagementContext } from './context'
import { assertFolderReference } from './folders'
import type {
  ConnectReportToWorkbookInput,
  CreateReportInput,
  Report,
  ReportSortBy,
  ReportsListQuery,
  ReportsListResponse,
  UpdateReportInput,
} from './model'
import { contentSorts, listPage, nameContains, withDeprecatedTotals, type SortOption } from './pagination'

type ReportRow = typeof reports.$inferSelect
type PlacementRow = typeof reportPlacements.$inferSelect

function toReport(row: ReportRow, placements: PlacementRow[], actor: Actor): Report {
  return {
    id: row.id,
    deploymentId: row.deploymentId,
    name: row.name,
    folderId: row.folderId,
    query: row.query,
    definition: row.definition ?? null,
    canEdit: actor.actions.has('ContentEdit'),
    canManage: actor.actions.has('ContentManage'),
    externalWorkbookPlacements: placements.map((placement) => ({
      workbookId: placement.externalWorkbookId,
      resultLocation: placement.resultLocation,
      endResultCell: placement.endResultCell,
      connectedAt: isoTime(placement.updatedAt),
    })),
    lastViewedAt: isoTimeOrNull(row.lastViewedAt),
    createdAt: isoTime(row.createdAt),
    updatedAt: isoTime(row.updatedAt),
  }
}

/** Maps rows with their placements, fetched in one query for the whole page. */
function toReports(context: ManagementContext, rows: ReportRow[]): Report[] {
  if (rows.length === 0) return []
  const placements = context.storage.db
    .select()
    .from(reportPlacements)
    .where(
      inArray(
        reportPlacements.reportId,
        rows.map((row) => row.id),
      ),
    )
    .orderBy(asc(reportPlacements.createdAt), asc(reportPlacements.externalWorkbookId))
    .all()
  return rows.map((row) =>
    toReport(
      row,
      placements.filter((placement) => placement.reportId === row.id),
      context.actor,
    ),
  )
}

/** A report of the context's deployment, or 404. */
export function requireReport(context: ManagementContext, id: number): ReportRow {
  const row = context.storage.db
    .select()
    .from(reports)
    .where(and(eq(reports.id, id), eq(reports.deploymentId, context.deploymentId)))
    .get()
  if (!row) throw new NotFoundError(`Report ${id} not found`, 'REPORT_NOT_FOUND')
  return row
}

function reportById(context: ManagementContext, id: number): Report {
  return toReports(context, [requireReport(context, id)])[0]
}

/** Reads a report and records the view: `lastViewedAt` is when it was last read through this operation. */
export function getReport(context: ManagementContext, id: number): Report {
  requireAction(context.actor, 'ContentRead')
  requireReport(context, id)
  context.storage.db.update(reports).set({ lastViewedAt: context.now }).where(eq(reports.id, id)).run()
  return reportById(context, id)
}

const REPORT_SORTS: Record<ReportSortBy, SortOption<ReportRow>> = {
  ...contentSorts<ReportRow>(reports),
  lastViewedAt: { key: { expression: reports.lastViewedAt, valueOf: (row) => row.lastViewedAt }, direction: 'desc' },
}

/**
 * Reports, filtered and cursor-paginated. Sorting by `lastViewedAt` serves only a first page (no `endCursor`;
 * `after` is 400): every read moves a report in that order, so a cursor would skip and repeat reports.
 */
export function listReports(context: ManagementContext, query: ReportsListQuery): ReportsListResponse {
  requireAction(context.actor, 'ContentRead')
  const sortBy = query.sortBy ?? 'createdAt'
  if (sortBy === 'lastViewedAt' && query.after !== undefined)
    throw new BadRequestError(
      'Cursor pagination is unavailable when sorting by lastViewedAt: request the first page without after (first up to 100), or sort by name, createdAt or updatedAt',
      'CURSOR_UNAVAILABLE',
    )
  const { db } = context.storage
  const page = listPage(db, {
    table: reports,
    where: [
      eq(reports.deploymentId, context.deploymentId),
      query.search ? nameContains(reports.name, query.search) : undefined,
      query.folderId !== undefined ? eq(reports.folderId, query.folderId) : undefined,
      query.externalWorkbookId !== undefined
        ? inArray(
            reports.id,
            db
              .select({ id: reportPlacements.reportId })
              .from(reportPlacements)
              .where(eq(reportPlacements.externalWorkbookId, query.externalWorkbookId)),
          )
        : undefined,
    ],
    sorts: REPORT_SORTS,
    sortBy,
    query,
    cursors: sortBy !== 'lastViewedAt',
  })
  return withDeprecatedTotals(toReports(context, page.rows), page)
}

export function createReport(context: ManagementContext, input: CreateReportInput): Report {
  requireAction(context.actor, 'ContentEdit')
  assertFolderReference(context, 'folderId', input.folderId)
  const row = context.storage.db
    .insert(reports)
    .values({
      deploymentId: context.deploymentId,
      name: input.name,
      query: input.query,
      folderId: input.folderId ?? null,
      definition: input.definition ?? null,
      createdByKeyId: context.actor.keyId,
      createdAt: context.now,
      updatedAt: context.now,
    })
    .returning()
    .get()
  return toReports(context, [row])[0]
}

export function updateReport(context: ManagementContext, id: number, input: UpdateReportInput): Report {
  requireAction(context.actor, 'ContentEdit')
  return transaction(context.storage, () => {
    requireReport(context, id)
    assertFolderReference(context, 'folderId', input.folderId)
    context.storage.db
      .update(reports)
      .set({
        name: input.name,
        query: input.query,
        folderId: input.folderId,
        definition: input.definition,
        updatedAt: context.now,
      })
      .where(eq(reports.id, id))
      .run()
    return reportById(context, id)
  })
}

export function deleteReport(context: ManagementContext, id: number): void {
  requireAction(context.actor, 'ContentManage')
  requireReport(context, id)
  context.storage.db.delete(reports).where(eq(reports.id, id)).run()
}

/**
 * Links a report to the caller's spreadsheet: needs only read access, since the report itself does not
 * change. Connecting the same workbook again moves the placement; the report's `updatedAt` is left alone.
 */
export function connectReportToWorkbook(
  context: ManagementContext,
  id: number,
  input: ConnectReportToWorkbookInput,
): Report {
  requireAction(context.actor, 'ContentRead')
  return transaction(context.storage, () => {
    requireReport(context, id)
    const placement = {
      resultLocation: input.resultLocation,
      endResultCell: input.endResultCell ?? null,
      connectedByKeyId: context.actor.keyId,
      updatedAt: context.now,
    }
    context.storage.db
      .insert(reportPlacements)
      .values({ reportId: id, externalWorkbookId: input.externalWorkbookId, createdAt: context.now, ...placement })
      .onConflictDoUpdate({ target: [reportPlacements.reportId, reportPlacements.externalWorkbookId], set: placement })
      .run()
    return reportById(context, id)
  })
}

/** Removes a report's placement in one external workbook (read access, like connecting); 404 when not linked. */
export function disconnectReportFromWorkbook(
  context: ManagementContext,
  id: number,
  externalWorkbookId: string,
): Report {
  requireAction(context.actor, 'ContentRead')
  return transaction(context.storage, () => {
    requireReport(context, id)
    const removed = context.storage.db
      .delete(reportPlacements)
      .where(and(eq(reportPlacements.reportId, id), eq(reportPlacements.externalWorkbookId, externalWorkbookId)))
      .returning()
      .all()
    if (removed.length === 0)
      throw new NotFoundError(`Report ${id} is not connected to workbook ${externalWorkbookId}`, 'PLACEMENT_NOT_FOUND')
    return reportById(context, id)
  })
}
