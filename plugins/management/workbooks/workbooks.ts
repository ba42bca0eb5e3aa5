import { and, eq, inArray, ne } from 'drizzle-orm'
import { first } from '../../../db/client'
import type { workbooks } from '../../../db/schema'
import { ConflictError, NotFoundError } from '../../../lib/errors'
import { requireAction } from '../access/key-policies'
import { isoTime, rowOfDeployment, writing, type ManagementContext, type WriteContext } from '../access/context'
import type {
  CreateWorkbookInput,
  UpdateWorkbookInput,
  Workbook,
  WorkbooksListQuery,
  WorkbooksListResponse,
} from '../model'
import { contentSorts, listPage } from '../pagination'

export type WorkbookRow = typeof workbooks.$inferSelect

/** Maps rows with their owners' names and dashboards, in two queries for the whole page. */
export async function toWorkbooks(context: ManagementContext, rows: WorkbookRow[]): Promise<Workbook[]> {
  if (rows.length === 0) return []
  const { db } = context
  const { apiKeys, dashboards } = context.storage.tables
  const ownerIds = [...new Set(rows.flatMap((row) => (row.ownerKeyId === null ? [] : [row.ownerKeyId])))]
  const ownerKeys =
    ownerIds.length === 0
      ? []
      : await db.select({ id: apiKeys.id, name: apiKeys.name }).from(apiKeys).where(inArray(apiKeys.id, ownerIds))
  const owners = new Map(ownerKeys.map((key) => [key.id, key.name] as const))
  const boardRows = await db
    .select({ id: dashboards.id, workbookId: dashboards.workbookId })
    .from(dashboards)
    .where(
      inArray(
        dashboards.workbookId,
        rows.map((row) => row.id),
      ),
    )
  const boards = new Map(boardRows.map((board) => [board.workbookId, board.id] as const))
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

export async function workbookById(context: ManagementContext, id: number): Promise<Workbook> {
  return (await toWorkbooks(context, [await requireWorkbook(context, id)]))[0]
}

/** A workbook of the context's deployment, or 404. */
export async function requireWorkbook(context: ManagementContext, id: number): Promise<WorkbookRow> {
  const row = await rowOfDeployment(context, context.storage.tables.workbooks, id)
  if (!row) throw new NotFoundError(`Workbook ${id} not found`, 'WORKBOOK_NOT_FOUND')
  return row
}

/**
 * Makes `slug` free for workbook `selfId` (inside the caller's transaction): 409 when another workbook of the
 * deployment has it, unless `takeover` is set, in which case that workbook loses its slug.
 */
async function claimSlug(
  context: WriteContext,
  slug: string | null | undefined,
  takeover: boolean | undefined,
  selfId: number | null,
): Promise<void> {
  if (slug === null || slug === undefined) return
  const { workbooks } = context.storage.tables
  const conditions = [eq(workbooks.deploymentId, context.deploymentId), eq(workbooks.slug, slug)]
  if (selfId !== null) conditions.push(ne(workbooks.id, selfId))
  const holder = await first(
    context.tx
      .select({ id: workbooks.id })
      .from(workbooks)
      .where(and(...conditions))
      .limit(1),
  )
  if (!holder) return
  if (!takeover)
    throw new ConflictError(
      `Slug "${slug}" is used by workbook ${holder.id}; send slugTakeover: true to take it over`,
      'SLUG_TAKEN',
    )
  await context.tx.update(workbooks).set({ slug: null, updatedAt: context.now }).where(eq(workbooks.id, holder.id))
}

export async function getWorkbook(context: ManagementContext, id: number): Promise<Workbook> {
  requireAction(context.actor, 'ContentRead')
  return workbookById(context, id)
}

export async function listWorkbooks(
  context: ManagementContext,
  query: WorkbooksListQuery,
): Promise<WorkbooksListResponse> {
  requireAction(context.actor, 'ContentRead')
  const { workbooks } = context.storage.tables
  const page = await listPage(context.db, {
    table: workbooks,
    where: [
      eq(workbooks.deploymentId, context.deploymentId),
      query.search ? context.storage.text.contains(workbooks.name, query.search) : undefined,
      query.shared !== undefined ? eq(workbooks.shared, query.shared) : undefined,
    ],
    sorts: contentSorts<WorkbookRow>(context.storage.text, workbooks),
    sortBy: query.sortBy ?? 'createdAt',
    query,
  })
  return { items: await toWorkbooks(context, page.rows), pageInfo: page.pageInfo }
}

/** Creates a workbook owned by the calling key; taking over a slug and creating happen in one transaction. */
export async function createWorkbook(context: ManagementContext, input: CreateWorkbookInput): Promise<Workbook> {
  requireAction(context.actor, 'ContentEdit')
  const { workbooks } = context.storage.tables
  return writing(context, async (context) => {
    await claimSlug(context, input.slug, input.slugTakeover, null)
    const [row] = await context.tx
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
    return (await toWorkbooks(context, [row]))[0]
  })
}

export async function updateWorkbook(
  context: ManagementContext,
  id: number,
  input: UpdateWorkbookInput,
): Promise<Workbook> {
  requireAction(context.actor, 'ContentEdit')
  const { workbooks } = context.storage.tables
  return writing(context, async (context) => {
    await requireWorkbook(context, id)
    await claimSlug(context, input.slug, input.slugTakeover, id)
    await context.tx
      .update(workbooks)
      .set({ name: input.name, slug: input.slug, shared: input.shared, updatedAt: context.now })
      .where(eq(workbooks.id, id))
    return workbookById(context, id)
  })
}

/** Deletes a workbook with its dashboard and that dashboard's notifications. */
export async function deleteWorkbook(context: ManagementContext, id: number): Promise<void> {
  requireAction(context.actor, 'ContentManage')
  const { workbooks } = context.storage.tables
  return writing(context, async (context) => {
    await requireWorkbook(context, id)
    await context.tx.delete(workbooks).where(eq(workbooks.id, id))
  })
}
