import { count, eq } from 'drizzle-orm'
import { first } from '../../../db/client'
import type { folders } from '../../../db/schema'
import { BadRequestError, ConflictError, NotFoundError } from '../../../lib/errors'
import { requireAction } from '../access/key-policies'
import { isoTime, rowOfDeployment, writing, type ManagementContext } from '../access/context'
import type { CreateFolderInput, Folder, FoldersListQuery, FoldersListResponse, UpdateFolderInput } from '../model'
import { contentSorts, listPage, withDeprecatedTotals } from '../pagination'

type FolderRow = typeof folders.$inferSelect

function toFolder(row: FolderRow): Folder {
  return {
    id: row.id,
    deploymentId: row.deploymentId,
    name: row.name,
    parentId: row.parentId,
    createdAt: isoTime(row.createdAt),
    updatedAt: isoTime(row.updatedAt),
  }
}

function folderRow(context: ManagementContext, id: number): Promise<FolderRow | undefined> {
  return rowOfDeployment(context, context.storage.tables.folders, id)
}

/** A folder of the context's deployment, or 404 (other deployments' folders are invisible). */
export async function requireFolder(context: ManagementContext, id: number): Promise<FolderRow> {
  const row = await folderRow(context, id)
  if (!row) throw new NotFoundError(`Folder ${id} not found`, 'FOLDER_NOT_FOUND')
  return row
}

/** A folder named in a body (`folderId`, `parentId`): unknown ones are bad input, not a missing resource. */
export async function assertFolderReference(
  context: ManagementContext,
  field: string,
  id: number | null | undefined,
): Promise<void> {
  if (id === null || id === undefined) return
  if (!(await folderRow(context, id)))
    throw new BadRequestError(`${field}: folder ${id} does not exist in this deployment`, 'UNKNOWN_FOLDER')
}

export async function getFolder(context: ManagementContext, id: number): Promise<Folder> {
  requireAction(context.actor, 'ContentRead')
  return toFolder(await requireFolder(context, id))
}

/** Folders, filtered and cursor-paginated; default order: oldest first. */
export async function listFolders(context: ManagementContext, query: FoldersListQuery): Promise<FoldersListResponse> {
  requireAction(context.actor, 'ContentRead')
  const { folders } = context.storage.tables
  const page = await listPage(context.db, {
    table: folders,
    where: [
      eq(folders.deploymentId, context.deploymentId),
      query.search ? context.storage.text.contains(folders.name, query.search) : undefined,
      query.parentId !== undefined ? eq(folders.parentId, query.parentId) : undefined,
    ],
    sorts: contentSorts<FolderRow>(context.storage.text, folders),
    sortBy: query.sortBy ?? 'createdAt',
    query,
  })
  return withDeprecatedTotals(page.rows.map(toFolder), page)
}

export async function createFolder(context: ManagementContext, input: CreateFolderInput): Promise<Folder> {
  requireAction(context.actor, 'ContentEdit')
  const { folders } = context.storage.tables
  return writing(context, async (context) => {
    await assertFolderReference(context, 'parentId', input.parentId)
    const [row] = await context.tx
      .insert(folders)
      .values({
        deploymentId: context.deploymentId,
        name: input.name,
        parentId: input.parentId ?? null,
        createdAt: context.now,
        updatedAt: context.now,
      })
      .returning()
    return toFolder(row)
  })
}

/** Renames or moves a folder; moving it under itself or one of its descendants is refused. */
export async function updateFolder(context: ManagementContext, id: number, input: UpdateFolderInput): Promise<Folder> {
  requireAction(context.actor, 'ContentEdit')
  const { folders } = context.storage.tables
  return writing(context, async (context) => {
    await requireFolder(context, id)
    if (input.parentId !== undefined && input.parentId !== null) {
      await assertFolderReference(context, 'parentId', input.parentId)
      for (
        let ancestor: number | null = input.parentId;
        ancestor !== null;
        ancestor = (await requireFolder(context, ancestor)).parentId
      )
        if (ancestor === id)
          throw new BadRequestError('parentId: a folder cannot be moved into itself or its subfolders', 'FOLDER_CYCLE')
    }
    const [row] = await context.tx
      .update(folders)
      .set({ name: input.name, parentId: input.parentId, updatedAt: context.now })
      .where(eq(folders.id, id))
      .returning()
    return toFolder(row)
  })
}

/** Deletes an empty folder; one holding subfolders or reports is refused (409) rather than emptied silently. */
export async function deleteFolder(context: ManagementContext, id: number): Promise<void> {
  requireAction(context.actor, 'ContentManage')
  const { folders, reports } = context.storage.tables
  return writing(context, async (context) => {
    await requireFolder(context, id)
    const { tx } = context
    // Postgres counts in bigint, which its driver may hand back as a string.
    const children = Number(
      (await first(tx.select({ n: count() }).from(folders).where(eq(folders.parentId, id))))?.n ?? 0,
    )
    const held = Number((await first(tx.select({ n: count() }).from(reports).where(eq(reports.folderId, id))))?.n ?? 0)
    if (children + held > 0)
      throw new ConflictError(
        `Folder ${id} is not empty: it holds ${children} folder(s) and ${held} report(s)`,
        'FOLDER_NOT_EMPTY',
      )
    await tx.delete(folders).where(eq(folders.id, id))
  })
}
