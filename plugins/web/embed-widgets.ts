import type { DashboardWidget, DashboardWidgetKind } from '../management/model'
import type { EmbedWidget, WidgetChart } from './model'

/** The embed API names a KPI `kpi`; the management API (and the stored widget) `number`. */
export const chartOfKind = (kind: DashboardWidgetKind): WidgetChart => (kind === 'number' ? 'kpi' : kind)
export const kindOfChart = (chart: WidgetChart): DashboardWidgetKind => (chart === 'kpi' ? 'number' : chart)

/**
 * A stored widget as an embed page sees it: no query; the answer it came from only for a session that may change
 * the dashboard (another user's thread id means nothing to a viewer).
 */
export function toEmbedWidget(widget: DashboardWidget, position: number, editable: boolean): EmbedWidget {
  return {
    id: widget.id,
    kind: widget.kind,
    chart: chartOfKind(widget.kind),
    title: widget.title,
    position,
    ...(widget.size && { size: widget.size }),
    ...(widget.period && { period: { label: widget.period.label, member: widget.period.member } }),
    ...(editable && widget.source && { source: widget.source }),
  }
}
