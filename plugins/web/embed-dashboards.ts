import type { Storage } from '../../db/client'
import { ForbiddenError, NotFoundError } from '../../lib/errors'
import type { DeploymentInfo, Directory } from '../auth/directory'
import type { EmbedCaller } from '../auth/model'
import type { UserAccess, UserProvisioner } from '../auth/user-provisioner'
import type { DashboardFilter, DashboardWidget } from '../management/model'
import { findPublishedDashboard, type PublishedDashboard } from '../management/dashboards/published'
import { callerAccess } from '../semantic/caller-access'
import { MAX_ROUTE_LIMIT, type SqlResult } from '../semantic/model'
import { titleOf } from '../semantic/semantic-model/semantic-model'
import type { SemanticService } from '../semantic/semantic-service'
import { applyControls, effectiveControls, type ViewerControls } from './dashboard-controls'
import { currentWidgetQuery } from '../management/dashboards/relative-period'
import { toEmbedWidget } from './embed-widgets'
import type { EmbedDashboard, EmbedWidgetData } from './model'
import { creatorTenantOf } from './tenant-dashboards'

/** Rows a widget draws at most; a download gets the semantic layer's route limit. */
export const WIDGET_VIEW_ROWS = 1000
/** Values a filter offers to choose from at most. */
const FILTER_OPTIONS = 200

export interface EmbedDashboardsOptions {
  storage: Storage
  directory: Directory
  semantic: SemanticService
  users: UserProvisioner
}

/**
 * Published dashboards as their embed viewers see them. A dashboard is visible only to sessions of its own
 * deployment; anything else is the same 404 as an unknown id, so a viewer cannot probe other deployments. Widget
 * queries run with the viewer's access (the session's groups, attributes and security context), so row-level
 * security shapes every number, and with the dashboard's filters and time grains (values the viewer may change).
 */
export function createEmbedDashboards(options: EmbedDashboardsOptions) {
  const { storage, directory, semantic, users } = options

  async function visibleDashboard(
    viewer: EmbedCaller,
    publicId: string,
  ): Promise<{ dashboard: PublishedDashboard; deployment: DeploymentInfo }> {
    const dashboard = await findPublishedDashboard(storage, publicId)
    const deployment = dashboard && (await directory.deployment(dashboard.deploymentId))
    if (
      !dashboard ||
      !deployment ||
      dashboard.accountId !== viewer.accountId ||
      dashboard.deploymentId !== viewer.deploymentId ||
      // An embed tenant's dashboard is its sessions' only.
      (dashboard.embedTenantId !== null && dashboard.embedTenantId !== viewer.embedTenantId)
    )
      throw new NotFoundError(`Dashboard ${publicId} not found`, 'DASHBOARD_NOT_FOUND')
    return { dashboard, deployment }
  }

  function widgetOf(dashboard: PublishedDashboard, widgetId: string): DashboardWidget {
    const widget = dashboard.widgets.find((candidate) => candidate.id === widgetId)
    if (!widget)
      throw new NotFoundError(`Dashboard ${dashboard.publicId} has no widget "${widgetId}"`, 'WIDGET_NOT_FOUND')
    return widget
  }

  /** Title and type of every member the viewer may see. */
  function members(deployment: DeploymentInfo, access: UserAccess): Map<string, { title: string; type: string }> {
    const found = new Map<string, { title: string; type: string }>()
    for (const cube of semantic.meta({ deployment, access }).cubes)
      for (const member of [...cube.measures, ...cube.dimensions])
        found.set(member.name, { title: member.title, type: member.type })
    return found
  }

  /**
   * The widget's query with the controls that apply to it: a filter on a member its cube cannot reach (another
   * part of the model) is left out for this widget rather than breaking it.
   */
  function controlledQuery(
    deployment: DeploymentInfo,
    access: UserAccess,
    dashboard: PublishedDashboard,
    widget: DashboardWidget,
    chosen: ViewerControls,
  ): string {
    const controls = effectiveControls(dashboard.filters, dashboard.timeGrains, chosen)
    if (controls.filters.length === 0 && controls.timeGrains.length === 0) return widget.query
    const types = new Map([...members(deployment, access)].map(([name, member]) => [name, member.type]))
    const fits = controls.filters.filter((filter) => {
      try {
        semantic.describe(
          { deployment, access },
          applyControls(widget.query, { filters: [filter], timeGrains: [] }, types),
        )
        return true
      } catch {
        return false
      }
    })
    return applyControls(widget.query, { filters: fits, timeGrains: controls.timeGrains }, types)
  }

  async function run(
    viewer: EmbedCaller,
    publicId: string,
    widgetId: string,
    chosen: ViewerControls,
    download: boolean,
  ) {
    const { dashboard, deployment } = await visibleDashboard(viewer, publicId)
    const widget = widgetOf(dashboard, widgetId)
    if (download && dashboard.restrictDataDownload)
      throw new ForbiddenError(`Data download is restricted on dashboard ${publicId}`, 'DATA_DOWNLOAD_RESTRICTED')
    const access = await callerAccess(viewer, undefined, users)
    // A relative period ends with the latest date this viewer may see, as the analyst counts it.
    const current = await currentWidgetQuery(widget, async (member, cube) => {
      const latest = await semantic.query({ deployment, access }, `SELECT MAX(${member}) FROM ${cube}`, 1)
      return latest.data[0]?.[0] ?? undefined
    })
    const query = controlledQuery(deployment, access, dashboard, { ...widget, query: current.query }, chosen)
    const data = await semantic.query({ deployment, access }, query, download ? MAX_ROUTE_LIMIT : WIDGET_VIEW_ROWS)
    const columns = semantic.describe({ deployment, access }, query)
    return { widget, data, columns, titles: columns.map((column) => column.title), period: current.period }
  }

  return {
    /**
     * The dashboard's name, download flag and widgets (kind and title; queries stay on the server), its filters
     * and time grains with their titles (string filters with the values this viewer may pick from), and the
     * attributes the session fixed, which no control can change.
     */
    async dashboard(viewer: EmbedCaller, publicId: string): Promise<EmbedDashboard> {
      const { dashboard, deployment } = await visibleDashboard(viewer, publicId)
      const access = await callerAccess(viewer, undefined, users)
      const known = dashboard.filters.length || dashboard.timeGrains.length ? members(deployment, access) : new Map()
      const filters = await Promise.all(
        dashboard.filters.map((filter) => filterControl(semantic, { deployment, access }, filter, known)),
      )
      const editable =
        dashboard.embedTenantId !== null && (await creatorTenantOf(storage, viewer)) === dashboard.embedTenantId
      return {
        publicId,
        name: dashboard.name,
        title: dashboard.name,
        checksum: dashboard.checksum,
        editable,
        restrictDataDownload: dashboard.restrictDataDownload,
        widgets: dashboard.widgets.map((widget, position) => toEmbedWidget(widget, position, editable)),
        filters,
        timeGrains: dashboard.timeGrains.map((grain) => ({
          member: grain.member,
          title: grain.title ?? known.get(grain.member)?.title ?? titleOf(grain.member),
          granularity: grain.granularity,
        })),
        locked: lockedAttributes(access),
      }
    },

    /** The rows a widget draws, with the viewer's access and controls, and its columns' titles from the model. */
    async widgetData(
      viewer: EmbedCaller,
      publicId: string,
      widgetId: string,
      chosen: ViewerControls = {},
    ): Promise<EmbedWidgetData> {
      const { data, titles, period } = await run(viewer, publicId, widgetId, chosen, false)
      return { ...data, titles, ...(period && { period }) }
    },

    /** A widget's whole result for download; 403 when the dashboard restricts data download (before any query). */
    async widgetDownload(
      viewer: EmbedCaller,
      publicId: string,
      widgetId: string,
      chosen: ViewerControls = {},
    ): Promise<{ widget: DashboardWidget; data: SqlResult; columns: Array<{ title: string; granularity?: string }> }> {
      const { widget, data, columns } = await run(viewer, publicId, widgetId, chosen, true)
      return { widget, data, columns }
    },
  }
}

export type EmbedDashboards = ReturnType<typeof createEmbedDashboards>

/**
 * A dashboard filter as its viewer sees it: titled from the model, and a string filter that equals (or not) with
 * the values this viewer may pick from (none offered when the model cannot list them).
 */
async function filterControl(
  semantic: SemanticService,
  context: { deployment: DeploymentInfo; access: UserAccess },
  filter: DashboardFilter,
  known: Map<string, { title: string; type: string }>,
): Promise<EmbedDashboard['filters'][number]> {
  const member = known.get(filter.member)
  let choices: string[] | undefined
  if (member?.type === 'string' && (filter.operator === 'equals' || filter.operator === 'notEquals')) {
    const [cube] = filter.member.split('.')
    const values = await semantic
      .query(context, `SELECT ${filter.member} FROM ${cube} GROUP BY 1 ORDER BY 1`, FILTER_OPTIONS)
      .catch(() => undefined)
    choices = values?.data.map((row) => row[0]).filter((value): value is string => value !== null)
  }
  return {
    member: filter.member,
    title: filter.title ?? member?.title ?? titleOf(filter.member),
    operator: filter.operator,
    values: filter.values,
    ...(choices && { choices }),
  }
}

/** The attributes the session fixed, which no control can change, as the page lists them. */
function lockedAttributes(access: UserAccess): EmbedDashboard['locked'] {
  return Object.entries(access.userAttributes)
    .filter(([, value]) => value !== null && value !== undefined)
    .map(([name, value]) => ({
      name,
      title: titleOf(name),
      value: Array.isArray(value) ? value.join(', ') : String(value),
    }))
}
