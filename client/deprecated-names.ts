import type * as M from './wire-types'
import type { GenerateSessionBody } from './wire-types'
import type { CorePlatformClient } from './platform-client'

/**
 * The client's names before release v0.0.20, kept as aliases of the new ones until a future major version.
 * Each forwards to its replacement unchanged.
 */
export function deprecatedAliases(client: CorePlatformClient) {
  const at = (deploymentId: number) => client.deployment(deploymentId)
  return {
    /** @deprecated Since v0.0.20: use `client.deployment(id).reports.list(query)`. */
    getReports: (deploymentId: number, query?: M.ReportsListQuery) => at(deploymentId).reports.list(query),
    /** @deprecated Since v0.0.20: use `client.deployment(id).reports.get(reportId)`. */
    getReport: (deploymentId: number, reportId: number) => at(deploymentId).reports.get(reportId),
    /** @deprecated Since v0.0.20: use `client.deployment(id).reports.create(input)`. */
    createReport: (deploymentId: number, input: M.CreateReportInput) => at(deploymentId).reports.create(input),
    /** @deprecated Since v0.0.20: use `client.deployment(id).reports.update(reportId, input)`. */
    updateReport: (deploymentId: number, reportId: number, input: M.UpdateReportInput) =>
      at(deploymentId).reports.update(reportId, input),
    /** @deprecated Since v0.0.20: use `client.deployment(id).reports.delete(reportId)`. */
    deleteReport: (deploymentId: number, reportId: number) => at(deploymentId).reports.delete(reportId),
    /** @deprecated Since v0.0.20: use `client.deployment(id).folders.list(query)`. */
    getFolders: (deploymentId: number, query?: M.FoldersListQuery) => at(deploymentId).folders.list(query),
    /** @deprecated Since v0.0.20: use `client.deployment(id).folders.create(input)`. */
    createFolder: (deploymentId: number, input: M.CreateFolderInput) => at(deploymentId).folders.create(input),
    /** @deprecated Since v0.0.20: use `client.deployment(id).workbooks.list(query)`. */
    getWorkbooks: (deploymentId: number, query?: M.WorkbooksListQuery) => at(deploymentId).workbooks.list(query),
    /** @deprecated Since v0.0.20: use `client.deployment(id).dashboards.list(query)`. */
    getDashboards: (deploymentId: number, query?: M.DashboardsListQuery) => at(deploymentId).dashboards.list(query),
    /** @deprecated Since v0.0.20: use `client.deployment(id).notifications.list(query)`. */
    getNotifications: (deploymentId: number, query?: M.NotificationsListQuery) =>
      at(deploymentId).notifications.list(query),
    /** @deprecated Since v0.0.20: use `client.embed.generateSession(body)`. */
    generateEmbedSession: (body: GenerateSessionBody) => client.embed.generateSession(body),
  }
}
