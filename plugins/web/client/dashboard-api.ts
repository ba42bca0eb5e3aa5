import type { EmbedDashboard, EmbedDashboardsList, NewEmbedWidget, SavedEmbedWidget, WidgetChange } from '../model'
import { request, requestJson } from './api'

/** The embed API of dashboards built from chat answers, as the pages call it with their token. */
const base = '/api/v1/embed/dashboards'
const at = (publicId: string) => `${base}/${encodeURIComponent(publicId)}`

/** Told on the page when a dashboard gained a widget from its chat, so a dashboard shown there reloads. */
export const DASHBOARD_CHANGED_EVENT = 'embed:dashboard-changed'

export const dashboardApi = {
  list: (token: string) => requestJson<EmbedDashboardsList>(`${base}?first=100`, token),
  read: (token: string, publicId: string) => requestJson<EmbedDashboard>(at(publicId), token),
  create: (token: string, title: string) =>
    requestJson<EmbedDashboard>(base, token, { method: 'POST', body: { title } }),
  pin: (token: string, publicId: string, body: NewEmbedWidget) =>
    requestJson<SavedEmbedWidget>(`${at(publicId)}/widgets`, token, { method: 'POST', body }),
  change: (token: string, publicId: string, widgetId: string, body: WidgetChange) =>
    requestJson<SavedEmbedWidget>(`${at(publicId)}/widgets/${encodeURIComponent(widgetId)}`, token, {
      method: 'PATCH',
      body,
    }),
  remove: async (token: string, publicId: string, widgetId: string, checksum: string) => {
    await request(
      `${at(publicId)}/widgets/${encodeURIComponent(widgetId)}?checksum=${encodeURIComponent(checksum)}`,
      token,
      { method: 'DELETE' },
    )
  },
}
