import { ForbiddenError, NotFoundError } from '../../../lib/errors'
import { requireAction } from '../access/key-policies'
import type { ManagementContext } from '../access/context'
import { requireDashboard } from './dashboards'
import type { DashboardWidget, WidgetData } from '../model'
import { currentWidgetQuery } from './relative-period'

/** Runs a widget's semantic SQL on a deployment with the whole model readable (an API-key caller names no user). */
export type WidgetQueryRunner = (deploymentId: number, query: string) => Promise<WidgetData>

/**
 * The data behind one widget, for download. Refused with 403 when the dashboard has `restrictDataDownload` set or
 * the key lacks `DownloadData`; the widget's query errors come back as the runner reports them.
 */
export async function downloadWidgetData(
  context: ManagementContext,
  dashboardId: number,
  widgetId: string,
  runQuery: WidgetQueryRunner,
): Promise<{ widget: DashboardWidget; data: WidgetData }> {
  requireAction(context.actor, 'ContentRead')
  const row = await requireDashboard(context, dashboardId)
  const widget = (row.widgets as DashboardWidget[]).find((candidate) => candidate.id === widgetId)
  if (!widget) throw new NotFoundError(`Dashboard ${dashboardId} has no widget "${widgetId}"`, 'WIDGET_NOT_FOUND')
  if (row.restrictDataDownload)
    throw new ForbiddenError(`Data download is restricted on dashboard ${dashboardId}`, 'DATA_DOWNLOAD_RESTRICTED')
  requireAction(context.actor, 'DownloadData')
  // A relative period ends with the latest date in the data, as the analyst counts it.
  const current = await currentWidgetQuery(widget, async (member, cube) => {
    const latest = await runQuery(context.deploymentId, `SELECT MAX(${member}) FROM ${cube}`)
    return latest.data[0]?.[0] ?? undefined
  })
  return { widget, data: await runQuery(context.deploymentId, current.query) }
}

/** RFC 4180 CSV: a header row of column names, then the rows; null cells are empty. */
export function toCsv(data: WidgetData): string {
  const cell = (value: string | null) =>
    value === null ? '' : /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value
  const lines = [data.schema.map((column) => cell(column.name)), ...data.data.map((row) => row.map(cell))]
  return lines.map((line) => line.join(',')).join('\r\n') + '\r\n'
}
