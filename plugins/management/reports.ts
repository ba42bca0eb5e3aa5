import { and, asc, count, eq, inArray, sql, type SQL } from 'drizzle-orm'
import { transaction } from '../../db/client'
import { reportPlacements, reports } from '../../db/schema'
import { BadRequestError, NotFoundError } from '../../src/errors'
import { requireAction, type Actor } from './access-control'
import { containsPattern, isoTime, isoTimeOrNull, type ManagementContext } from './context'
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
import { fetchPage, type SortDirection, type SortKey } from './pagination'

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

const REPORT_SORTS: Record<ReportSortBy, { key: SortKey<ReportRow>; direction: SortDirection }> = {
  name: { key: { expression: sql`${reports.name} COLLATE NOCASE`, valueOf: (row) => row.name }, direction: 'asc' },
  createdAt: { key: { expression: reports.createdAt, valueOf: (row) => row.createdAt }, direction: 'asc' },
  updatedAt: { key: { expression: reports.updatedAt, valueOf: (row) => row.updatedAt }, direction: 'desc' },
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
  const sort = REPORT_SORTS[sortBy]
  const { db } = context.storage
  const filters: (SQL | undefined)[] = [eq(reports.deploymentId, context.deploymentId)]
  if (query.search) filters.push(sql`${reports.name} LIKE ${containsPattern(query.search)} ESCAPE '\\'`)
  if (query.folderId !== undefined) filters.push(eq(reports.folderId, query.folderId))
  if (query.externalWorkbookId !== undefined)
    filters.push(
      inArray(
        reports.id,
        db
          .select({ id: reportPlacements.reportId })
          .from(reportPlacements)
          .where(eq(reportPlacements.externalWorkbookId, query.externalWorkbookId)),
      ),
    )
  const filter = and(...filters)
  const page = fetchPage({
    sortBy,
    direction: query.sortOrder ?? sort.direction,
    sort: sort.key,
    idColumn: reports.id,
    first: query.first,
    after: query.after,
    cursors: sortBy !== 'lastViewedAt',
    fetch: (where, orderBy, limit) => db.select().from(reports).where(and(filter, where)).orderBy(...orderBy).limit(limit).all(),
  })
  const total = db.select({ n: count() }).from(reports).where(filter).get()?.n ?? 0
  const items = toReports(context, page.rows)
  return { items, pageInfo: page.pageInfo, data: items, count: total }
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
      .set({ name: input.name, query: input.query, folderId: input.folderId, definition: input.definition, updatedAt: context.now })
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
 * Links a report to the caller's spreadsheet (spec 4.4): needs only read access, since the report itself does not
 * change. Connecting the same workbook again moves the placement; the report's `updatedAt` is left alone.
 */
export function connectReportToWorkbook(context: ManagementContext, id: number, input: ConnectReportToWorkbookInput): Report {
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
export function disconnectReportFromWorkbook(context: ManagementContext, id: number, externalWorkbookId: string): Report {
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
