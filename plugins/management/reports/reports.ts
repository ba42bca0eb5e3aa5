import { and, asc, eq, inArray } from 'drizzle-orm'
import type { TextRules } from '../../../db/text-rules'
import type { reportPlacements, reports } from '../../../db/schema'
import { BadRequestError, NotFoundError } from '../../../lib/errors'
import { requireAction, type Actor } from '../access/key-policies'
import { isoTime, isoTimeOrNull, rowOfDeployment, writing, type ManagementContext } from '../access/context'
import { assertFolderReference } from '../workbooks/folders'
import type {
  ConnectReportToWorkbookInput,
  CreateReportInput,
  Report,
  ReportSortBy,
  ReportsListQuery,
  ReportsListResponse,
  UpdateReportInput,
} from '../model'
import { contentSorts, listPage, withDeprecatedTotals, type SortOption } from '../pagination'

type ReportRow = typeof reports.$inferSelect
type PlacementRow = typeof reportPlacements.$inferSelect
type ReportsTable = typeof reports

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
async function toReports(context: ManagementContext, rows: ReportRow[]): Promise<Report[]> {
  if (rows.length === 0) return []
  const { reportPlacements } = context.storage.tables
  const placements = await context.db
    .select()
    .from(reportPlacements)
    .where(
      inArray(
        reportPlacements.reportId,
        rows.map((row) => row.id),
      ),
    )
    .orderBy(asc(reportPlacements.createdAt), asc(reportPlacements.externalWorkbookId))
  return rows.map((row) =>
    toReport(
      row,
      placements.filter((placement) => placement.reportId === row.id),
      context.actor,
    ),
  )
}

/** A report of the context's deployment, or 404. */
export async function requireReport(context: ManagementContext, id: number): Promise<ReportRow> {
  const row = await rowOfDeployment(context, context.storage.tables.reports, id)
  if (!row) throw new NotFoundError(`Report ${id} not found`, 'REPORT_NOT_FOUND')
  return row
}

async function reportById(context: ManagementContext, id: number): Promise<Report> {
  return (await toReports(context, [await requireReport(context, id)]))[0]
}

/** Reads a report and records the view: `lastViewedAt` is when it was last read through this operation. */
export async function getReport(context: ManagementContext, id: number): Promise<Report> {
  requireAction(context.actor, 'ContentRead')
  const { reports } = context.storage.tables
  return writing(context, async (context) => {
    await requireReport(context, id)
    await context.tx.update(reports).set({ lastViewedAt: context.now }).where(eq(reports.id, id))
    return reportById(context, id)
  })
}

function reportSorts(text: TextRules, reports: ReportsTable): Record<ReportSortBy, SortOption<ReportRow>> {
  return {
    ...contentSorts<ReportRow>(text, reports),
    lastViewedAt: {
      key: { expression: reports.lastViewedAt, valueOf: (row) => row.lastViewedAt, nullable: true },
      direction: 'desc',
    },
  }
}

/**
 * Reports, filtered and cursor-paginated. Sorting by `lastViewedAt` serves only a first page (no `endCursor`;
 * `after` is 400): every read moves a report in that order, so a cursor would skip and repeat reports.
 */
export async function listReports(context: ManagementContext, query: ReportsListQuery): Promise<ReportsListResponse> {
  requireAction(context.actor, 'ContentRead')
  const sortBy = query.sortBy ?? 'createdAt'
  if (sortBy === 'lastViewedAt' && query.after !== undefined)
    throw new BadRequestError(
      'Cursor pagination is unavailable when sorting by lastViewedAt: request the first page without after (first up to 100), or sort by name, createdAt or updatedAt',
      'CURSOR_UNAVAILABLE',
    )
  const { db } = context
  const { reportPlacements, reports } = context.storage.tables
  const page = await listPage(db, {
    table: reports,
    where: [
      eq(reports.deploymentId, context.deploymentId),
      query.search ? context.storage.text.contains(reports.name, query.search) : undefined,
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
    sorts: reportSorts(context.storage.text, reports),
    sortBy,
    query,
    cursors: sortBy !== 'lastViewedAt',
  })
  return withDeprecatedTotals(await toReports(context, page.rows), page)
}

export async function createReport(context: ManagementContext, input: CreateReportInput): Promise<Report> {
  requireAction(context.actor, 'ContentEdit')
  const { reports } = context.storage.tables
  return writing(context, async (context) => {
    await assertFolderReference(context, 'folderId', input.folderId)
    const [row] = await context.tx
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
    return (await toReports(context, [row]))[0]
  })
}

export async function updateReport(context: ManagementContext, id: number, input: UpdateReportInput): Promise<Report> {
  requireAction(context.actor, 'ContentEdit')
  const { reports } = context.storage.tables
  return writing(context, async (context) => {
    await requireReport(context, id)
    await assertFolderReference(context, 'folderId', input.folderId)
    await context.tx
      .update(reports)
      .set({
        name: input.name,
        query: input.query,
        folderId: input.folderId,
        definition: input.definition,
        updatedAt: context.now,
      })
      .where(eq(reports.id, id))
    return reportById(context, id)
  })
}

export async function deleteReport(context: ManagementContext, id: number): Promise<void> {
  requireAction(context.actor, 'ContentManage')
  const { reports } = context.storage.tables
  return writing(context, async (context) => {
    await requireReport(context, id)
    await context.tx.delete(reports).where(eq(reports.id, id))
  })
}

/**
 * Links a report to the caller's spreadsheet: needs only read access, since the report itself does not
 * change. Connecting the same workbook again moves the placement; the report's `updatedAt` is left alone.
 */
export async function connectReportToWorkbook(
  context: ManagementContext,
  id: number,
  input: ConnectReportToWorkbookInput,
): Promise<Report> {
  requireAction(context.actor, 'ContentRead')
  const { reportPlacements } = context.storage.tables
  return writing(context, async (context) => {
    await requireReport(context, id)
    const placement = {
      resultLocation: input.resultLocation,
      endResultCell: input.endResultCell ?? null,
      connectedByKeyId: context.actor.keyId,
      updatedAt: context.now,
    }
    await context.tx
      .insert(reportPlacements)
      .values({ reportId: id, externalWorkbookId: input.externalWorkbookId, createdAt: context.now, ...placement })
      .onConflictDoUpdate({ target: [reportPlacements.reportId, reportPlacements.externalWorkbookId], set: placement })
    return reportById(context, id)
  })
}

/** Removes a report's placement in one external workbook (read access, like connecting); 404 when not linked. */
export async function disconnectReportFromWorkbook(
  context: ManagementContext,
  id: number,
  externalWorkbookId: string,
): Promise<Report> {
  requireAction(context.actor, 'ContentRead')
  const { reportPlacements } = context.storage.tables
  return writing(context, async (context) => {
    await requireReport(context, id)
    const removed = await context.tx
      .delete(reportPlacements)
      .where(and(eq(reportPlacements.reportId, id), eq(reportPlacements.externalWorkbookId, externalWorkbookId)))
      .returning()
    if (removed.length === 0)
      throw new NotFoundError(`Report ${id} is not connected to workbook ${externalWorkbookId}`, 'PLACEMENT_NOT_FOUND')
    return reportById(context, id)
  })
}
