import type { Storage } from '../../db/client'
import { ForbiddenError, NotFoundError } from '../../src/errors'
import type { Directory } from '../auth/directory'
import type { EmbedCaller } from '../auth/model'
import type { UserProvisioner } from '../auth/user-access'
import type { DashboardWidget } from '../management/model'
import { findPublishedDashboard, type PublishedDashboard } from '../management/published-dashboards'
import { callerAccess } from '../semantic/caller-access'
import { MAX_ROUTE_LIMIT, type SqlResult } from '../semantic/model'
import type { SemanticService } from '../semantic/semantic-service'
import type { EmbedDashboard } from './model'

/** Rows a widget draws at most; a download gets the semantic layer's route limit. */
export const WIDGET_VIEW_ROWS = 1000

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
 * security shapes every number.
 */
export function createEmbedDashboards(options: EmbedDashboardsOptions) {
  const { storage, directory, semantic, users } = options

  function visibleDashboard(viewer: EmbedCaller, publicId: string): PublishedDashboard {
    const dashboard = findPublishedDashboard(storage, publicId)
    if (!dashboard || dashboard.accountId !== viewer.accountId || dashboard.deploymentId !== viewer.deploymentId)
      throw new NotFoundError(`Dashboard ${publicId} not found`, 'DASHBOARD_NOT_FOUND')
    return dashboard
  }

  function widgetOf(dashboard: PublishedDashboard, widgetId: string): DashboardWidget {
    const widget = dashboard.widgets.find((candidate) => candidate.id === widgetId)
    if (!widget) throw new NotFoundError(`Dashboard ${dashboard.publicId} has no widget "${widgetId}"`, 'WIDGET_NOT_FOUND')
    return widget
  }

  async function run(viewer: EmbedCaller, dashboard: PublishedDashboard, widget: DashboardWidget, limit: number): Promise<SqlResult> {
    const deployment = directory.deployment(dashboard.deploymentId)
    if (!deployment) throw new NotFoundError(`Dashboard ${dashboard.publicId} not found`, 'DASHBOARD_NOT_FOUND')
    return semantic.query({ deployment, access: callerAccess(viewer, undefined, users) }, widget.query, limit)
  }

  return {
    /** The dashboard's name, download flag and widgets (kind and title; queries stay on the server). */
    dashboard(viewer: EmbedCaller, publicId: string): EmbedDashboard {
      const dashboard = visibleDashboard(viewer, publicId)
      return {
        publicId,
        name: dashboard.name,
        restrictDataDownload: dashboard.restrictDataDownload,
        widgets: dashboard.widgets.map((widget) => ({ id: widget.id, kind: widget.kind, title: widget.title })),
      }
    },

    /** The rows a widget draws, with the viewer's access, and its columns' titles from the model. */
    async widgetData(viewer: EmbedCaller, publicId: string, widgetId: string): Promise<SqlResult & { titles: string[] }> {
      const dashboard = visibleDashboard(viewer, publicId)
      const widget = widgetOf(dashboard, widgetId)
      const result = await run(viewer, dashboard, widget, WIDGET_VIEW_ROWS)
      const deployment = directory.deployment(dashboard.deploymentId)!
      const columns = semantic.describe({ deployment, access: callerAccess(viewer, undefined, users) }, widget.query)
      return { ...result, titles: columns.map((column) => column.title) }
    },

    /** A widget's whole result for download; 403 when the dashboard restricts data download (before any query). */
    async widgetDownload(viewer: EmbedCaller, publicId: string, widgetId: string): Promise<{ widget: DashboardWidget; data: SqlResult }> {
      const dashboard = visibleDashboard(viewer, publicId)
      const widget = widgetOf(dashboard, widgetId)
      if (dashboard.restrictDataDownload)
        throw new ForbiddenError(`Data download is restricted on dashboard ${publicId}`, 'DATA_DOWNLOAD_RESTRICTED')
      return { widget, data: await run(viewer, dashboard, widget, MAX_ROUTE_LIMIT) }
    },
  }
}

export type EmbedDashboards = ReturnType<typeof createEmbedDashboards>
