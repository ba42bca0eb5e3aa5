import { and, count, eq } from 'drizzle-orm'
import { transaction } from '../../db/client'
import { folders, reports } from '../../db/schema'
import { BadRequestError, ConflictError, NotFoundError } from '../../lib/errors'
import { requireAction } from './access-control'
import { isoTime, type ManagementContext } from './context'
import type { CreateFolderInput, Folder, FoldersListQuery, FoldersListResponse, UpdateFolderInput } from './model'
import { contentSorts, listPage, nameContains, withDeprecatedTotals } from './pagination'

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

function folderRow(context: ManagementContext, id: number): FolderRow | undefined {
  return context.storage.db
    .select()
    .from(folders)
    .where(and(eq(folders.id, id), eq(folders.deploymentId, context.deploymentId)))
    .get()
}

/** A folder of the context's deployment, or 404 (other deployments' folders are invisible). */
export function requireFolder(context: ManagementContext, id: number): FolderRow {
  const row = folderRow(context, id)
  if (!row) throw new NotFoundError(`Folder ${id} not found`, 'FOLDER_NOT_FOUND')
  return row
}

/** A folder named in a body (`folderId`, `parentId`): unknown ones are bad input, not a missing resource. */
export function assertFolderReference(context: ManagementContext, field: string, id: number | null | undefined): void {
  if (id === null || id === undefined) return
  if (!folderRow(context, id))
    throw new BadRequestError(`${field}: folder ${id} does not exist in this deployment`, 'UNKNOWN_FOLDER')
}

export function getFolder(context: ManagementContext, id: number): Folder {
  requireAction(context.actor, 'ContentRead')
  return toFolder(requireFolder(context, id))
}

const FOLDER_SORTS = contentSorts<FolderRow>(folders)

/** Folders, filtered and cursor-paginated; default order: oldest first. */
export function listFolders(context: ManagementContext, query: FoldersListQuery): FoldersListResponse {
  requireAction(context.actor, 'ContentRead')
  const page = listPage(context.storage.db, {
    table: folders,
    where: [
      eq(folders.deploymentId, context.deploymentId),
      query.search ? nameContains(folders.name, query.search) : undefined,
      query.parentId !== undefined ? eq(folders.parentId, query.parentId) : undefined,
    ],
    sorts: FOLDER_SORTS,
    sortBy: query.sortBy ?? 'createdAt',
    query,
  })
  return withDeprecatedTotals(page.rows.map(toFolder), page)
}

export function createFolder(context: ManagementContext, input: CreateFolderInput): Folder {
  requireAction(context.actor, 'ContentEdit')
  assertFolderReference(context, 'parentId', input.parentId)
  const row = context.storage.db
    .insert(folders)
    .values({
      deploymentId: context.deploymentId,
      name: input.name,
      parentId: input.parentId ?? null,
      createdAt: context.now,
      updatedAt: context.now,
    })
    .returning()
    .get()
  return toFolder(row)
}

/** Renames or moves a folder; moving it under itself or one of its descendants is refused. */
export function updateFolder(context: ManagementContext, id: number, input: UpdateFolderInput): Folder {
  requireAction(context.actor, 'ContentEdit')
  return transaction(context.storage, () => {
    requireFolder(context, id)
    if (input.parentId !== undefined && input.parentId !== null) {
      assertFolderReference(context, 'parentId', input.parentId)
      for (
        let ancestor: number | null = input.parentId;
        ancestor !== null;
        ancestor = requireFolder(context, ancestor).parentId
      )
        if (ancestor === id)
          throw new BadRequestError('parentId: a folder cannot be moved into itself or its subfolders', 'FOLDER_CYCLE')
    }
    const row = context.storage.db
      .update(folders)
      .set({ name: input.name, parentId: input.parentId, updatedAt: context.now })
      .where(eq(folders.id, id))
      .returning()
      .get()
    return toFolder(row)
  })
}

/** Deletes an empty folder; one holding subfolders or reports is refused (409) rather than emptied silently. */
export function deleteFolder(context: ManagementContext, id: number): void {
  requireAction(context.actor, 'ContentManage')
  transaction(context.storage, () => {
    requireFolder(context, id)
    const { db } = context.storage
    const children = db.select({ n: count() }).from(folders).where(eq(folders.parentId, id)).get()?.n ?? 0
    const held = db.select({ n: count() }).from(reports).where(eq(reports.folderId, id)).get()?.n ?? 0
    if (children + held > 0)
      throw new ConflictError(
        `Folder ${id} is not empty: it holds ${children} folder(s) and ${held} report(s)`,
        'FOLDER_NOT_EMPTY',
      )
    db.delete(folders).where(eq(folders.id, id)).run()
  })
}
