import { createHash } from 'node:crypto'
import { and, eq } from 'drizzle-orm'
import { first } from '../../../db/client'
import type { dashboards } from '../../../db/schema'
import { BadRequestError, ConflictError, NotFoundError } from '../../../lib/errors'
import { randomToken } from '../../../lib/secrets'
import { requireAction } from '../access/key-policies'
import { isoTime, rowOfDeployment, writing, type ManagementContext, type WriteContext } from '../access/context'
import type {
  AiWidgetThread,
  Dashboard,
  DashboardConfigInput,
  DashboardFilter,
  DashboardsListQuery,
  DashboardsListResponse,
  DashboardTimeGrain,
  DashboardWidget,
  UpdateDashboardInput,
  UpdatePublishedAiWidgetThreadInput,
} from '../model'
import { byCreation, listPage } from '../pagination'
import { checkWidgetQueries, normalizeWidgets, resolveWidgetInputs } from './widget-inputs'
import { checkDashboardControls } from './controls'
import type { WidgetQueryCheck } from './query-check'

export type DashboardRow = typeof dashboards.$inferSelect

/** The parts of a dashboard its checksum covers: everything a user edits, nothing the server stamps. */
export interface DashboardContent {
  name: string
  published: boolean
  widgets: DashboardWidget[]
  filters: DashboardFilter[]
  timeGrains: DashboardTimeGrain[]
  aiWidgetThreads: AiWidgetThread[]
  restrictDataDownload: boolean
  useBoardDashboards: boolean
}

/**
 * The checksum of `content` written over a row whose checksum was `previous` (none for a new row). Chained, so every
 * change stamps a checksum the row never had: of content alone, changing a name from A to B and back gave the first
 * checksum again, and an update carrying it was taken as fresh although two changes had come between.
 */
export function dashboardChecksum(content: DashboardContent, previous = ''): string {
  const canonical = JSON.stringify([
    previous,
    content.name,
    content.published,
    content.widgets,
    content.filters,
    content.timeGrains,
    content.aiWidgetThreads,
    content.restrictDataDownload,
    content.useBoardDashboards,
  ])
  return createHash('sha256').update(canonical).digest('hex').slice(0, 32)
}

export function toDashboard(row: DashboardRow): Dashboard {
  return {
    id: row.id,
    deploymentId: row.deploymentId,
    workbookId: row.workbookId,
    name: row.name,
    published: row.published,
    publicId: row.publicId,
    widgets: row.widgets as DashboardWidget[],
    filters: row.filters as DashboardFilter[],
    timeGrains: row.timeGrains as DashboardTimeGrain[],
    aiWidgetThreads: row.aiWidgetThreads as AiWidgetThread[],
    restrictDataDownload: row.restrictDataDownload,
    useBoardDashboards: row.useBoardDashboards,
    fromSharedWorkspace: row.fromSharedWorkspace,
    checksum: row.checksum,
    createdAt: isoTime(row.createdAt),
    updatedAt: isoTime(row.updatedAt),
  }
}

/** A dashboard of the context's deployment, or 404. */
export async function requireDashboard(context: ManagementContext, id: number): Promise<DashboardRow> {
  const row = await rowOfDeployment(context, context.storage.tables.dashboards, id)
  if (!row) throw new NotFoundError(`Dashboard ${id} not found`, 'DASHBOARD_NOT_FOUND')
  return row
}

/** The dashboard of a workbook of the context's deployment, or 404 (for the workbook or its dashboard). */
export async function requireDashboardOfWorkbook(
  context: ManagementContext,
  workbookId: number,
): Promise<DashboardRow> {
  const { dashboards, workbooks } = context.storage.tables
  const workbook = await first(
    context.db
      .select({ id: workbooks.id })
      .from(workbooks)
      .where(and(eq(workbooks.id, workbookId), eq(workbooks.deploymentId, context.deploymentId))),
  )
  if (!workbook) throw new NotFoundError(`Workbook ${workbookId} not found`, 'WORKBOOK_NOT_FOUND')
  const row = await first(context.db.select().from(dashboards).where(eq(dashboards.workbookId, workbookId)))
  if (!row) throw new NotFoundError(`Workbook ${workbookId} has no dashboard`, 'DASHBOARD_NOT_FOUND')
  return row
}

export async function getDashboard(context: ManagementContext, id: number): Promise<Dashboard> {
  requireAction(context.actor, 'ContentRead')
  return toDashboard(await requireDashboard(context, id))
}

export async function listDashboards(
  context: ManagementContext,
  query: DashboardsListQuery,
): Promise<DashboardsListResponse> {
  requireAction(context.actor, 'ContentRead')
  const { dashboards } = context.storage.tables
  const page = await listPage(context.db, {
    table: dashboards,
    where: [
      eq(dashboards.deploymentId, context.deploymentId),
      query.workbookId !== undefined ? eq(dashboards.workbookId, query.workbookId) : undefined,
      query.published !== undefined ? eq(dashboards.published, query.published) : undefined,
    ],
    sorts: byCreation<DashboardRow>(dashboards.createdAt),
    sortBy: 'createdAt',
    query,
  })
  return { items: page.rows.map(toDashboard), pageInfo: page.pageInfo }
}

/** Publishing, unpublishing and restricting downloads decide who sees data, so they need `ContentManage`. */
function requireManageFor(
  context: ManagementContext,
  input: { published?: boolean; restrictDataDownload?: boolean },
  current?: DashboardRow,
): void {
  const publishing = input.published !== undefined && input.published !== (current?.published ?? false)
  const restricting =
    input.restrictDataDownload !== undefined && input.restrictDataDownload !== (current?.restrictDataDownload ?? false)
  if (publishing || restricting) requireAction(context.actor, 'ContentManage')
}

/** Inserts a dashboard row with its checksum; `fromSharedWorkspace` is set only by duplication. */
export async function insertDashboard(
  context: WriteContext,
  workbookId: number,
  content: DashboardContent,
  fromSharedWorkspace: boolean,
): Promise<DashboardRow> {
  const { dashboards } = context.storage.tables
  const [row] = await context.tx
    .insert(dashboards)
    .values({
      deploymentId: context.deploymentId,
      workbookId,
      ...content,
      publicId: content.published ? `pd_${randomToken(12)}` : null,
      fromSharedWorkspace,
      checksum: dashboardChecksum(content),
      createdAt: context.now,
      updatedAt: context.now,
    })
    .returning()
  return row
}

/** Creates the dashboard of a workbook (one per workbook: a second is 409). */
export async function createDashboard(
  context: ManagementContext,
  input: DashboardConfigInput,
  checkQuery?: WidgetQueryCheck,
): Promise<Dashboard> {
  requireAction(context.actor, 'ContentEdit')
  requireManageFor(context, input)
  const widgets = normalizeWidgets(await resolveWidgetInputs(context, input.widgets ?? []))
  const { dashboards, workbooks } = context.storage.tables
  return writing(context, async (context) => {
    const workbook = await first(
      context.db
        .select({ id: workbooks.id })
        .from(workbooks)
        .where(and(eq(workbooks.id, input.workbookId), eq(workbooks.deploymentId, context.deploymentId))),
    )
    if (!workbook)
      throw new BadRequestError(
        `workbookId: workbook ${input.workbookId} does not exist in this deployment`,
        'UNKNOWN_WORKBOOK',
      )
    const existing = await first(
      context.db.select({ id: dashboards.id }).from(dashboards).where(eq(dashboards.workbookId, input.workbookId)),
    )
    if (existing)
      throw new ConflictError(`Workbook ${input.workbookId} already has dashboard ${existing.id}`, 'DASHBOARD_EXISTS')
    checkWidgetQueries(widgets, checkQuery)
    checkDashboardControls(input.filters ?? [], input.timeGrains ?? [], checkQuery)
    const content: DashboardContent = {
      name: input.name,
      published: input.published ?? false,
      widgets,
      filters: input.filters ?? [],
      timeGrains: input.timeGrains ?? [],
      aiWidgetThreads: [],
      restrictDataDownload: input.restrictDataDownload ?? false,
      useBoardDashboards: input.useBoardDashboards ?? false,
    }
    return toDashboard(await insertDashboard(context, input.workbookId, content, false))
  })
}

function assertFreshChecksum(row: DashboardRow, checksum: string | undefined): void {
  if (checksum !== undefined && checksum !== row.checksum)
    throw new ConflictError(
      `The dashboard changed since checksum ${checksum} was read (current checksum ${row.checksum}); read it again and retry`,
      'STALE_CHECKSUM',
    )
}

/**
 * Writes new content over a row, stamping a new checksum; publishing assigns the `publicId` once. Written only if
 * the row still has the checksum it was read with, else `undefined`: on Postgres another node may commit a change
 * between this transaction's read and its write (SQLite runs one transaction at a time), and writing content built
 * from the older row would silently undo that change.
 */
async function writeContent(
  context: WriteContext,
  row: DashboardRow,
  content: DashboardContent,
): Promise<DashboardRow | undefined> {
  const { dashboards } = context.storage.tables
  const [written] = await context.tx
    .update(dashboards)
    .set({
      ...content,
      publicId: row.publicId ?? (content.published ? `pd_${randomToken(12)}` : null),
      checksum: dashboardChecksum(content, row.checksum),
      updatedAt: context.now,
    })
    .where(and(eq(dashboards.id, row.id), eq(dashboards.checksum, row.checksum)))
    .returning()
  return written
}

/** How often an edit is rebuilt on a newer row after losing a race, before answering 409. */
const EDIT_ATTEMPTS = 3

/**
 * Applies `edit` to the dashboard `load` reads and writes the result. When another writer changed the row in
 * between, the edit is made again on the new row (where an edit carrying the caller's checksum refuses it: 409).
 */
export async function editDashboard(
  context: WriteContext,
  load: () => Promise<DashboardRow>,
  edit: (row: DashboardRow) => DashboardContent,
): Promise<DashboardRow> {
  for (let attempt = 0; attempt < EDIT_ATTEMPTS; attempt++) {
    const row = await load()
    const written = await writeContent(context, row, edit(row))
    if (written) return written
  }
  throw new ConflictError(
    'The dashboard kept changing while this update was being saved; read it again and retry',
    'STALE_CHECKSUM',
  )
}

export function contentOf(row: DashboardRow): DashboardContent {
  const dashboard = toDashboard(row)
  return {
    name: dashboard.name,
    published: dashboard.published,
    widgets: dashboard.widgets,
    filters: dashboard.filters,
    timeGrains: dashboard.timeGrains,
    aiWidgetThreads: dashboard.aiWidgetThreads,
    restrictDataDownload: dashboard.restrictDataDownload,
    useBoardDashboards: dashboard.useBoardDashboards,
  }
}

/**
 * Updates a dashboard. With `checksum`, a dashboard changed since that checksum is 409 instead of being
 * overwritten. Replacing `widgets` drops the AI widget threads of widgets that are gone.
 */
export async function updateDashboard(
  context: ManagementContext,
  id: number,
  input: UpdateDashboardInput,
  checkQuery?: WidgetQueryCheck,
): Promise<Dashboard> {
  requireAction(context.actor, 'ContentEdit')
  const inputs = input.widgets && (await resolveWidgetInputs(context, input.widgets))
  return writing(context, async (context) => {
    const written = await editDashboard(
      context,
      () => requireDashboard(context, id),
      (row) => {
        requireManageFor(context, input, row)
        assertFreshChecksum(row, input.checksum)
        const current = contentOf(row)
        const widgets = inputs ? normalizeWidgets(inputs) : current.widgets
        // Only new widgets are checked: an unrelated edit (a rename) still saves when the model changed under a widget.
        if (input.widgets) checkWidgetQueries(widgets, checkQuery)
        checkDashboardControls(input.filters ?? [], input.timeGrains ?? [], checkQuery)
        const widgetIds = new Set(widgets.map((widget) => widget.id))
        return {
          name: input.name ?? current.name,
          published: input.published ?? current.published,
          widgets,
          filters: input.filters ?? current.filters,
          timeGrains: input.timeGrains ?? current.timeGrains,
          aiWidgetThreads: current.aiWidgetThreads.filter((thread) => widgetIds.has(thread.widgetId)),
          restrictDataDownload: input.restrictDataDownload ?? current.restrictDataDownload,
          useBoardDashboards: input.useBoardDashboards ?? current.useBoardDashboards,
        }
      },
    )
    return toDashboard(written)
  })
}

export async function deleteDashboard(context: ManagementContext, id: number): Promise<void> {
  requireAction(context.actor, 'ContentManage')
  const { dashboards } = context.storage.tables
  return writing(context, async (context) => {
    await requireDashboard(context, id)
    await context.tx.delete(dashboards).where(eq(dashboards.id, id))
  })
}

/**
 * A chat thread of this deployment, or 404: a widget names only a thread its dashboard's viewers can be shown (one of
 * another deployment or account, or none at all, was stored as it came).
 */
async function requireThreadOfDeployment(context: ManagementContext, threadId: string): Promise<void> {
  const { chatThreads } = context.storage.tables
  const thread = await first(
    context.db
      .select({ id: chatThreads.id })
      .from(chatThreads)
      .where(and(eq(chatThreads.id, threadId), eq(chatThreads.deploymentId, context.deploymentId))),
  )
  if (!thread) throw new NotFoundError(`Chat thread ${threadId} not found`, 'CHAT_NOT_FOUND')
}

/**
 * Attaches a chat thread to a widget of a workbook's published dashboard (replacing the widget's previous
 * thread). A `checksum` other than the current one is 409: the dashboard changed since the caller read it.
 */
export async function attachAiWidgetThread(
  context: ManagementContext,
  workbookId: number,
  input: UpdatePublishedAiWidgetThreadInput,
): Promise<Dashboard> {
  requireAction(context.actor, 'ContentEdit')
  return writing(context, async (context) => {
    const written = await editDashboard(
      context,
      async () => {
        const row = await requireDashboardOfWorkbook(context, workbookId)
        await requireThreadOfDeployment(context, input.threadId)
        return row
      },
      (row) => {
        if (!row.published)
          throw new ConflictError(
            `Dashboard ${row.id} is not published; publish it before attaching AI widget threads`,
            'DASHBOARD_NOT_PUBLISHED',
          )
        assertFreshChecksum(row, input.checksum)
        const current = contentOf(row)
        if (!current.widgets.some((widget) => widget.id === input.widgetId))
          throw new BadRequestError(`widgetId: dashboard ${row.id} has no widget "${input.widgetId}"`, 'UNKNOWN_WIDGET')
        const thread: AiWidgetThread = {
          widgetId: input.widgetId,
          threadId: input.threadId,
          attachedAt: isoTime(context.now),
        }
        const aiWidgetThreads = [
          ...current.aiWidgetThreads.filter((existing) => existing.widgetId !== input.widgetId),
          thread,
        ]
        return { ...current, aiWidgetThreads }
      },
    )
    return toDashboard(written)
  })
}
