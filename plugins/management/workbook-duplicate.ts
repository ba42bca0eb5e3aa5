import { eq } from 'drizzle-orm'
import { transaction } from '../../db/client'
import { dashboards, workbooks } from '../../db/schema'
import { NotFoundError } from '../../lib/errors'
import { requireAction } from './access-control'
import type { ManagementContext } from './context'
import { insertDashboard, toDashboard } from './dashboards'
import type { DuplicateWorkbookInput, Workbook } from './model'
import { requireWorkbook, toWorkbooks } from './workbooks'

/**
 * Copies a workbook and its dashboard for the calling key, in one transaction. With `shared: true` the source is
 * taken from the shared workspace (404 when it is not there) and the copy becomes a personal workbook whose
 * dashboard has `fromSharedWorkspace: true`; otherwise the copy stays in the source's workspace. Copies get no
 * slug, are unpublished and carry no AI widget threads (those belong to the original's viewers).
 */
export function duplicateWorkbook(context: ManagementContext, id: number, input: DuplicateWorkbookInput): Workbook {
  requireAction(context.actor, 'ContentEdit')
  return transaction(context.storage, () => {
    const source = requireWorkbook(context, id)
    if (input.shared && !source.shared)
      throw new NotFoundError(`Workbook ${id} is not in the shared workspace`, 'WORKBOOK_NOT_FOUND')
    const { db } = context.storage
    const copy = db
      .insert(workbooks)
      .values({
        deploymentId: context.deploymentId,
        name: input.name ?? `Copy of ${source.name}`,
        slug: null,
        shared: input.shared ? false : source.shared,
        ownerKeyId: context.actor.keyId,
        createdAt: context.now,
        updatedAt: context.now,
      })
      .returning()
      .get()
    const board = db.select().from(dashboards).where(eq(dashboards.workbookId, id)).get()
    if (board) {
      const original = toDashboard(board)
      insertDashboard(
        context,
        copy.id,
        {
          name: original.name,
          published: false,
          widgets: original.widgets,
          filters: original.filters,
          timeGrains: original.timeGrains,
          aiWidgetThreads: [],
          restrictDataDownload: original.restrictDataDownload,
          useBoardDashboards: original.useBoardDashboards,
        },
        input.shared === true || original.fromSharedWorkspace,
      )
    }
    return toWorkbooks(context, [copy])[0]
  })
}
