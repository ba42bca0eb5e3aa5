import { eq } from 'drizzle-orm'
import { first } from '../../../db/client'
import { NotFoundError } from '../../../lib/errors'
import { requireAction } from '../access/key-policies'
import { writing, type ManagementContext } from '../access/context'
import { insertDashboard, toDashboard } from '../dashboards/dashboards'
import type { DuplicateWorkbookInput, Workbook } from '../model'
import { derivedName } from '../derived-name'
import { requireWorkbook, toWorkbooks } from './workbooks'

/**
 * Copies a workbook and its dashboard for the calling key, in one transaction. With `shared: true` the source is
 * taken from the shared workspace (404 when it is not there) and the copy becomes a personal workbook whose
 * dashboard has `fromSharedWorkspace: true`; otherwise the copy stays in the source's workspace. Copies get no
 * slug, are unpublished and carry no AI widget threads (those belong to the original's viewers).
 */
export async function duplicateWorkbook(
  context: ManagementContext,
  id: number,
  input: DuplicateWorkbookInput,
): Promise<Workbook> {
  requireAction(context.actor, 'ContentEdit')
  const { dashboards, workbooks } = context.storage.tables
  return writing(context, async (context) => {
    const source = await requireWorkbook(context, id)
    if (input.shared && !source.shared)
      throw new NotFoundError(`Workbook ${id} is not in the shared workspace`, 'WORKBOOK_NOT_FOUND')
    const { tx } = context
    const [copy] = await tx
      .insert(workbooks)
      .values({
        deploymentId: context.deploymentId,
        name: input.name ?? derivedName(source.name, { prefix: 'Copy of ' }),
        slug: null,
        shared: input.shared ? false : source.shared,
        ownerKeyId: context.actor.keyId,
        createdAt: context.now,
        updatedAt: context.now,
      })
      .returning()
    const board = await first(tx.select().from(dashboards).where(eq(dashboards.workbookId, id)))
    if (board) {
      const original = toDashboard(board)
      await insertDashboard(
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
    return (await toWorkbooks(context, [copy]))[0]
  })
}
