import { and, asc, eq, gt } from 'drizzle-orm'
import { first, type Storage } from '../../db/client'
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError } from '../../lib/errors'
import type { EmbedCaller } from '../auth/model'
import { widgetFromAnswer } from '../management/dashboards/answer-widgets'
import { writing, type ManagementContext } from '../management/access/context'
import {
  contentOf,
  editDashboard,
  insertDashboard,
  type DashboardContent,
  type DashboardRow,
} from '../management/dashboards/dashboards'
import type { DashboardWidget } from '../management/model'
import { findDashboardRowByPublicId } from '../management/dashboards/published'
import { newWidgetId } from '../management/dashboards/widget-inputs'
import type { WidgetQueryCheck } from '../management/dashboards/query-check'
import { kindOfChart, toEmbedWidget } from './embed-widgets'
import type {
  EmbedDashboardsList,
  EmbedDashboardsListQuery,
  NewEmbedDashboard,
  NewEmbedWidget,
  SavedEmbedWidget,
  WidgetChange,
} from './model'

/** Widgets a dashboard holds at most, as the management API allows. */
const MAX_WIDGETS = 100
const DEFAULT_PAGE = 20

export interface TenantDashboardsOptions {
  storage: Storage
  clock: () => number
  /** The check that a widget's query can run on the deployment's model. */
  queryCheck: (deploymentId: number) => Promise<WidgetQueryCheck>
}

/**
 * The embed tenant whose dashboards this session may change: a creator-mode session's, while its tenant still has
 * creator mode on. `undefined` for every other session, which may only read.
 */
export async function creatorTenantOf(storage: Storage, viewer: EmbedCaller): Promise<number | undefined> {
  if (!viewer.creatorMode || viewer.embedTenantId === null) return undefined
  const { embedTenants } = storage.tables
  const tenant = await first(
    storage.db
      .select({ useCreatorMode: embedTenants.useCreatorMode })
      .from(embedTenants)
      .where(and(eq(embedTenants.id, viewer.embedTenantId), eq(embedTenants.accountId, viewer.accountId))),
  )
  return tenant?.useCreatorMode ? viewer.embedTenantId : undefined
}

/** A title as sent, refused when it holds nothing but spaces: the pages would show it as no name at all. */
function titled<T extends string | undefined>(title: T): T {
  if (title !== undefined && title.trim() === '')
    throw new BadRequestError('title: must hold more than spaces', 'VALIDATION_FAILED')
  return title
}

/** 403 `DASHBOARD_READ_ONLY`: the session may read the tenant's dashboards, not change them. */
export const readOnly = () =>
  new ForbiddenError(
    'This session reads dashboards only: building them takes a creator-mode session of an embed tenant with creator mode on',
    'DASHBOARD_READ_ONLY',
  )

const changed = (checksum: string) =>
  new ConflictError(
    `The dashboard changed since checksum ${checksum} was read (someone saved it meanwhile); read it again and retry`,
    'DASHBOARD_CHANGED',
  )

/**
 * Dashboards an embed tenant's creators build from their chat answers. Each is a published dashboard of the
 * session's deployment, in a workbook of the tenant, so it shows on the embedded dashboard page, to the tenant's
 * sessions only (another tenant's is 404, as an unknown one). Its widgets keep the answers' queries, never rows:
 * every viewer reads them under their own row-level security. Changes carry the checksum the page last read.
 */
export function createTenantDashboards(options: TenantDashboardsOptions) {
  const { storage, clock } = options

  /**
   * A context for the dashboards' shared write path. An embed session holds no management permission: what it may
   * change is decided here, so its actor has none.
   */
  const contextOf = (viewer: EmbedCaller): ManagementContext => ({
    storage,
    db: storage.db,
    now: clock(),
    deploymentId: viewer.deploymentId,
    actor: { accountId: viewer.accountId, keyId: 0, deploymentScope: [viewer.deploymentId], actions: new Set() },
  })

  async function requireCreator(viewer: EmbedCaller): Promise<number> {
    const tenant = await creatorTenantOf(storage, viewer)
    if (tenant === undefined) throw readOnly()
    return tenant
  }

  /** The dashboard if this creator may change it: 404 when the session cannot see it, 403 when it only may read it. */
  async function editableRow(
    context: ManagementContext,
    viewer: EmbedCaller,
    tenant: number,
    publicId: string,
  ): Promise<DashboardRow> {
    const found = await findDashboardRowByPublicId(storage, context.db, publicId)
    const visible =
      found &&
      found.row.published &&
      found.accountId === viewer.accountId &&
      found.row.deploymentId === viewer.deploymentId &&
      (found.embedTenantId === null || found.embedTenantId === tenant)
    if (!visible) throw new NotFoundError(`Dashboard ${publicId} not found`, 'DASHBOARD_NOT_FOUND')
    // The account's own dashboards are changed through the management API only.
    if (found.embedTenantId === null) throw readOnly()
    return found.row
  }

  function saved(row: DashboardRow, widgetId: string): SavedEmbedWidget {
    const widgets = contentOf(row).widgets
    const position = widgets.findIndex((widget) => widget.id === widgetId)
    return { ...toEmbedWidget(widgets[position], position, true), checksum: row.checksum }
  }

  function widgetIndex(content: DashboardContent, publicId: string, widgetId: string): number {
    const index = content.widgets.findIndex((widget) => widget.id === widgetId)
    if (index < 0) throw new NotFoundError(`Dashboard ${publicId} has no widget "${widgetId}"`, 'WIDGET_NOT_FOUND')
    return index
  }

  /** Writes `edit` of the dashboard, made again on the newer row when another writer got there first. */
  async function change(
    viewer: EmbedCaller,
    publicId: string,
    edit: (row: DashboardRow) => DashboardContent,
  ): Promise<DashboardRow> {
    const tenant = await requireCreator(viewer)
    return writing(contextOf(viewer), (context) =>
      editDashboard(context, () => editableRow(context, viewer, tenant, publicId), edit),
    )
  }

  return {
    /** A new, empty dashboard of the session's tenant, published at once so it opens on the embedded page. */
    async create(viewer: EmbedCaller, input: NewEmbedDashboard): Promise<string> {
      const tenant = await requireCreator(viewer)
      titled(input.title)
      const { workbooks } = storage.tables
      const row = await writing(contextOf(viewer), async (context) => {
        const [workbook] = await context.tx
          .insert(workbooks)
          .values({
            deploymentId: viewer.deploymentId,
            name: input.title,
            embedTenantId: tenant,
            createdAt: context.now,
            updatedAt: context.now,
          })
          .returning({ id: workbooks.id })
        return insertDashboard(context, workbook.id, emptyDashboard(input.title), false)
      })
      return row.publicId!
    },

    /** The dashboards of the session's embed tenant on its deployment, oldest first (none without a tenant). */
    list: (viewer: EmbedCaller, query: EmbedDashboardsListQuery) => listTenantDashboards(storage, viewer, query),

    /**
     * Adds a widget made from an answer of the session's own thread (another user's thread, an unknown message or
     * an answer that ran no query: 404), at the end of the dashboard.
     */
    async pin(viewer: EmbedCaller, publicId: string, input: NewEmbedWidget): Promise<SavedEmbedWidget> {
      const tenant = await requireCreator(viewer)
      titled(input.title)
      await editableRow(contextOf(viewer), viewer, tenant, publicId)
      const widget = await answerWidget(options, viewer, input)
      const row = await change(viewer, publicId, (row) => {
        const current = contentOf(row)
        if (current.widgets.length >= MAX_WIDGETS)
          throw new BadRequestError(`A dashboard holds at most ${MAX_WIDGETS} widgets`, 'TOO_MANY_WIDGETS')
        return { ...current, widgets: [...current.widgets, widget] }
      })
      return saved(row, widget.id)
    },

    /** Renames, re-charts, moves or resizes a widget; a `checksum` other than the dashboard's current one is 409. */
    async edit(
      viewer: EmbedCaller,
      publicId: string,
      widgetId: string,
      input: WidgetChange,
    ): Promise<SavedEmbedWidget> {
      titled(input.title)
      const row = await change(viewer, publicId, (row) => {
        if (row.checksum !== input.checksum) throw changed(input.checksum)
        const current = contentOf(row)
        return { ...current, widgets: changedWidgets(current.widgets, widgetIndex(current, publicId, widgetId), input) }
      })
      return saved(row, widgetId)
    },

    /** Removes a widget; with `checksum`, a dashboard changed since is 409. */
    async remove(viewer: EmbedCaller, publicId: string, widgetId: string, checksum?: string): Promise<void> {
      await change(viewer, publicId, (row) => {
        if (checksum !== undefined && row.checksum !== checksum) throw changed(checksum)
        const current = contentOf(row)
        const index = widgetIndex(current, publicId, widgetId)
        const widgets = current.widgets.filter((_, at) => at !== index)
        return {
          ...current,
          widgets,
          aiWidgetThreads: current.aiWidgetThreads.filter((thread) => thread.widgetId !== widgetId),
        }
      })
    },
  }
}

export type TenantDashboards = ReturnType<typeof createTenantDashboards>

/** A new dashboard's content: published at once, so it opens on the embedded page, and empty. */
const emptyDashboard = (name: string): DashboardContent => ({
  name,
  published: true,
  widgets: [],
  filters: [],
  timeGrains: [],
  aiWidgetThreads: [],
  restrictDataDownload: false,
  useBoardDashboards: false,
})

/** The id after which a page of the list starts, from the cursor a previous page ended with. */
function cursorId(after: string): number {
  const text = Buffer.from(after, 'base64url').toString('utf8')
  const decoded = Number(text)
  if (!/^\d{1,15}$/.test(text) || !Number.isSafeInteger(decoded))
    throw new BadRequestError('after: not a cursor of this list; pass pageInfo.endCursor unchanged', 'INVALID_CURSOR')
  return decoded
}

/** The dashboards of the session's embed tenant on its deployment, oldest first (none without a tenant). */
async function listTenantDashboards(
  storage: Storage,
  viewer: EmbedCaller,
  query: EmbedDashboardsListQuery,
): Promise<EmbedDashboardsList> {
  const size = query.first ?? DEFAULT_PAGE
  const afterId = query.after === undefined ? 0 : cursorId(query.after)
  if (viewer.embedTenantId === null) return { items: [], pageInfo: { hasNextPage: false, endCursor: null } }
  const { dashboards, workbooks } = storage.tables
  const rows = await storage.db
    .select({ row: dashboards })
    .from(dashboards)
    .innerJoin(workbooks, eq(workbooks.id, dashboards.workbookId))
    .where(
      and(
        eq(workbooks.embedTenantId, viewer.embedTenantId),
        eq(dashboards.deploymentId, viewer.deploymentId),
        eq(dashboards.published, true),
        gt(dashboards.id, afterId),
      ),
    )
    .orderBy(asc(dashboards.id))
    .limit(size + 1)
  const page = rows.slice(0, size).map(({ row }) => row)
  const last = page.at(-1)
  return {
    items: page.map((row) => ({
      publicId: row.publicId!,
      title: row.name,
      widgetCount: (row.widgets as unknown[]).length,
      updatedAt: new Date(row.updatedAt).toISOString(),
    })),
    pageInfo: {
      hasNextPage: rows.length > size,
      endCursor: last ? Buffer.from(String(last.id)).toString('base64url') : null,
    },
  }
}

/**
 * A widget made from an answer of the session's own thread (another user's thread, an unknown message or an answer
 * that ran no query: 404), whose query must still run on the model.
 */
async function answerWidget(
  options: TenantDashboardsOptions,
  viewer: EmbedCaller,
  input: NewEmbedWidget,
): Promise<DashboardWidget> {
  const { storage } = options
  const answer = await widgetFromAnswer(
    storage.db,
    storage.tables,
    { deploymentId: viewer.deploymentId, userId: viewer.userId },
    { chatId: input.chatId, messageId: input.messageId },
  )
  const check = await options.queryCheck(viewer.deploymentId)
  try {
    check(answer.query)
  } catch (error) {
    throw new BadRequestError(
      `The answer's query cannot run on the model any more: ${error instanceof Error ? error.message : String(error)}`,
      'INVALID_WIDGET_QUERY',
    )
  }
  return {
    id: newWidgetId(),
    kind: input.chart ? kindOfChart(input.chart) : answer.kind,
    title: input.title ?? answer.title,
    query: answer.query,
    size: 'narrow',
    source: answer.source,
    ...(answer.period && { period: answer.period }),
  }
}

/** The widgets with one renamed, re-charted, resized or moved to `input.position` (400 past the end). */
function changedWidgets(widgets: DashboardWidget[], index: number, input: WidgetChange): DashboardWidget[] {
  const widget: DashboardWidget = {
    ...widgets[index],
    ...(input.title !== undefined && { title: input.title }),
    ...(input.chart !== undefined && { kind: kindOfChart(input.chart) }),
    ...(input.size !== undefined && { size: input.size }),
  }
  const others = widgets.filter((_, at) => at !== index)
  const position = input.position ?? index
  if (position > others.length)
    throw new BadRequestError(
      `position: the dashboard has ${widgets.length} widgets, so a position is 0 to ${others.length}`,
      'INVALID_POSITION',
    )
  others.splice(position, 0, widget)
  return others
}
