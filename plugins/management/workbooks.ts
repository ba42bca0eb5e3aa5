import { and, eq, inArray, ne } from 'drizzle-orm'
import { transaction } from '../../db/client'
import { apiKeys, dashboards, workbooks } from '../../db/schema'
import { ConflictError, NotFoundError } from '../../lib/errors'
import { requireAction } from './access-control'
import { isoTime, type ManagementContext } from './context'
import type {
  CreateWorkbookInput,
  UpdateWorkbookInput,
  Workbook,
  WorkbooksListQuery,
  WorkbooksListResponse,
} from './model'
import { contentSorts, listPage, nameContains } from './pagination'

export type WorkbookRow = typeof workbooks.$inferSelect

/** Maps rows with their owners' names and dashboards, in two queries for the whole page. */
export function toWorkbooks(context: ManagementContext, rows: WorkbookRow[]): Workbook[] {
  if (rows.length === 0) return []
  const { db } = context.storage
  const ownerIds = [...new Set(rows.flatMap((row) => (row.ownerKeyId === null ? [] : [row.ownerKeyId])))]
  const owners = new Map(
    ownerIds.length === 0
      ? []
      : db
          .select({ id: apiKeys.id, name: apiKeys.name })
          .from(apiKeys)
          .where(inArray(apiKeys.id, ownerIds))
          .all()
          .map((key) => [key.id, key.name] as const),
  )
  const boards = new Map(
    db
      .select({ id: dashboards.id, workbookId: dashboards.workbookId })
      .from(dashboards)
      .where(
        inArray(
          dashboards.workbookId,
          rows.map((row) => row.id),
        ),
      )
      .all()
      .map((board) => [board.workbookId, board.id] as const),
  )
  return rows.map((row) => ({
    id: row.id,
    deploymentId: row.deploymentId,
    name: row.name,
    slug: row.slug,
    shared: row.shared,
    user:
      row.ownerKeyId !== null && owners.has(row.ownerKeyId)
        ? { kind: 'apiKey', id: row.ownerKeyId, name: owners.get(row.ownerKeyId)! }
        : null,
    dashboardId: boards.get(row.id) ?? null,
    createdAt: isoTime(row.createdAt),
    updatedAt: isoTime(row.updatedAt),
  }))
}

export function workbookById(context: ManagementContext, id: number): Workbook {
  return toWorkbooks(context, [requireWorkbook(context, id)])[0]
}

/** A workbook of the context's deployment, or 404. */
export function requireWorkbook(context: ManagementContext, id: number): WorkbookRow {
  const row = context.storage.db
    .select()
    .from(workbooks)
    .where(and(eq(workbooks.id, id), eq(workbooks.deploymentId, context.deploymentId)))
    .get()
  if (!row) throw new NotFoundError(`Workbook ${id} not found`, 'WORKBOOK_NOT_FOUND')
  return row
}

/**
 * Makes `slug` free for workbook `selfId` (inside the caller's transaction): 409 when another workbook of the
 * deployment has it, unless `takeover` is set, in which case that workbook loses its slug.
 */
function claimSlug(
  context: ManagementContext,
  slug: string | null | undefined,
  takeover: boolean | undefined,
  selfId: number | null,
): void {
  if (slug === null || slug === undefined) return
  const conditions = [eq(workbooks.deploymentId, context.deploymentId), eq(workbooks.slug, slug)]
  if (selfId !== null) conditions.push(ne(workbooks.id, selfId))
  const holder = context.storage.db
    .select({ id: workbooks.id })
    .from(workbooks)
    .where(and(...conditions))
    .get()
  if (!holder) return
  if (!takeover)
    throw new ConflictError(
      `Slug "${slug}" is used by workbook ${holder.id}; send slugTakeover: true to take it over`,
      'SLUG_TAKEN',
    )
  context.storage.db
    .update(workbooks)
    .set({ slug: null, updatedAt: context.now })
    .where(eq(workbooks.id, holder.id))
    .run()
}

export function getWorkbook(context: ManagementContext, id: number): Workbook {
  requireAction(context.actor, 'ContentRead')
  return workbookById(context, id)
}

const WORKBOOK_SORTS = contentSorts<WorkbookRow>(workbooks)

export function listWorkbooks(context: ManagementContext, query: WorkbooksListQuery): WorkbooksListResponse {
  requireAction(context.actor, 'ContentRead')
  const page = listPage(context.storage.db, {
    table: workbooks,
    where: [
      eq(workbooks.deploymentId, context.deploymentId),
      query.search ? nameContains(workbooks.name, query.search) : undefined,
      query.shared !== undefined ? eq(workbooks.shared, query.shared) : undefined,
    ],
    sorts: WORKBOOK_SORTS,
    sortBy: query.sortBy ?? 'createdAt',
    query,
  })
  return { items: toWorkbooks(context, page.rows), pageInfo: page.pageInfo }
}

/** Creates a workbook owned by the calling key; taking over a slug and creating happen in one transaction. */
export function createWorkbook(context: ManagementContext, input: CreateWorkbookInput): Workbook {
  requireAction(context.actor, 'ContentEdit')
  return transaction(context.storage, () => {
    claimSlug(context, input.slug, input.slugTakeover, null)
    const row = context.storage.db
      .insert(workbooks)
      .values({
        deploymentId: context.deploymentId,
        name: input.name,
        slug: input.slug ?? null,
        shared: input.shared ?? false,
        ownerKeyId: context.actor.keyId,
        createdAt: context.now,
        updatedAt: context.now,
      })
      .returning()
      .get()
    return toWorkbooks(context, [row])[0]
  })
}

export function updateWorkbook(context: ManagementContext, id: number, input: UpdateWorkbookInput): Workbook {
  requireAction(context.actor, 'ContentEdit')
  return transaction(context.storage, () => {
    requireWorkbook(context, id)
    claimSlug(context, input.slug, input.slugTakeover, id)
    context.storage.db
      .update(workbooks)
      .set({ name: input.name, slug: input.slug, shared: input.shared, updatedAt: context.now })
      .where(eq(workbooks.id, id))
      .run()
    return workbookById(context, id)
  })
}

/** Deletes a workbook with its dashboard and that dashboard's notifications. */
export function deleteWorkbook(context: ManagementContext, id: number): void {
  requireAction(context.actor, 'ContentManage')
  requireWorkbook(context, id)
  context.storage.db.delete(workbooks).where(eq(workbooks.id, id)).run()
}
