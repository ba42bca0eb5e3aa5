import type * as M from './wire-types'
import type {
  EmbedTokenResponse,
  GenerateSessionBody,
  GenerateSessionResponse,
  MetaResult,
  SqlBody,
  SqlResult,
} from './wire-types'
import { abortChat, ChatRun, type ChatStreamRequest, type ChatTarget } from './chat-stream'
import type { Query, Transport } from './transport'

type Page<T> = { items: T[]; pageInfo: M.PageInfo }

/** Every item of a cursor-paginated list, fetching page after page as the loop asks for more. */
async function* walk<T>(fetchPage: (after: string | undefined) => Promise<Page<T>>): AsyncGenerator<T> {
  let after: string | undefined
  for (;;) {
    const page = await fetchPage(after)
    yield* page.items
    if (!page.pageInfo.hasNextPage || page.pageInfo.endCursor === null) return
    after = page.pageInfo.endCursor
  }
}

const id = (value: number | string) => encodeURIComponent(String(value))

/** The management operations of one deployment (`/api/v1/deployments/{deploymentId}/...`). */
function deploymentClient(transport: Transport, deploymentId: number) {
  const base = `/api/v1/deployments/${id(deploymentId)}`
  const get = <T>(path: string, query?: Query) => transport.json<T>('GET', `${base}${path}`, { query })
  const send = <T>(method: string, path: string, body?: unknown) =>
    transport.json<T>(method, `${base}${path}`, { body })

  return {
    deploymentId,
    folders: {
      list: (query: M.FoldersListQuery = {}) => get<M.FoldersListResponse>('/folders', query),
      /** Every folder, page by page (`first` sets the page size). */
      listAll: (query: Omit<M.FoldersListQuery, 'after'> = {}) =>
        walk((after) => get<M.FoldersListResponse>('/folders', { ...query, after })),
      get: (folderId: number) => get<M.Folder>(`/folders/${id(folderId)}`),
      create: (input: M.CreateFolderInput) => send<M.Folder>('POST', '/folders', input),
      update: (folderId: number, input: M.UpdateFolderInput) =>
        send<M.Folder>('PATCH', `/folders/${id(folderId)}`, input),
      delete: (folderId: number) => send<void>('DELETE', `/folders/${id(folderId)}`),
    },
    reports: {
      list: (query: M.ReportsListQuery = {}) => get<M.ReportsListResponse>('/reports', query),
      /** Every report, page by page. Not with `sortBy: 'lastViewedAt'`, which has no cursors. */
      listAll: (query: Omit<M.ReportsListQuery, 'after'> = {}) =>
        walk((after) => get<M.ReportsListResponse>('/reports', { ...query, after })),
      get: (reportId: number) => get<M.Report>(`/reports/${id(reportId)}`),
      create: (input: M.CreateReportInput) => send<M.Report>('POST', '/reports', input),
      update: (reportId: number, input: M.UpdateReportInput) =>
        send<M.Report>('PATCH', `/reports/${id(reportId)}`, input),
      delete: (reportId: number) => send<void>('DELETE', `/reports/${id(reportId)}`),
      connectWorkbook: (reportId: number, input: M.ConnectReportToWorkbookInput) =>
        send<M.Report>('PUT', `/reports/${id(reportId)}/connect-workbook`, input),
      disconnectWorkbook: (reportId: number, externalWorkbookId: string) =>
        send<M.Report>('DELETE', `/reports/${id(reportId)}/connect-workbook/${id(externalWorkbookId)}`),
      snapshots: {
        list: (reportId: number, query: M.ReportSnapshotsListQuery = {}) =>
          get<M.ReportSnapshotsListResponse>(`/reports/${id(reportId)}/snapshots`, query),
        get: (reportId: number, snapshotId: number) =>
          get<M.ReportSnapshot>(`/reports/${id(reportId)}/snapshots/${id(snapshotId)}`),
        create: (reportId: number, input: M.CreateReportSnapshotInput = {}) =>
          send<M.ReportSnapshot>('POST', `/reports/${id(reportId)}/snapshots`, input),
        update: (reportId: number, snapshotId: number, input: M.UpdateReportSnapshotInput) =>
          send<M.ReportSnapshot>('PATCH', `/reports/${id(reportId)}/snapshots/${id(snapshotId)}`, input),
        delete: (reportId: number, snapshotId: number) =>
          send<void>('DELETE', `/reports/${id(reportId)}/snapshots/${id(snapshotId)}`),
      },
    },
    workbooks: {
      list: (query: M.WorkbooksListQuery = {}) => get<M.WorkbooksListResponse>('/workbooks', query),
      listAll: (query: Omit<M.WorkbooksListQuery, 'after'> = {}) =>
        walk((after) => get<M.WorkbooksListResponse>('/workbooks', { ...query, after })),
      get: (workbookId: number) => get<M.Workbook>(`/workbooks/${id(workbookId)}`),
      create: (input: M.CreateWorkbookInput) => send<M.Workbook>('POST', '/workbooks', input),
      update: (workbookId: number, input: M.UpdateWorkbookInput) =>
        send<M.Workbook>('PATCH', `/workbooks/${id(workbookId)}`, input),
      delete: (workbookId: number) => send<void>('DELETE', `/workbooks/${id(workbookId)}`),
      duplicate: (workbookId: number, input: M.DuplicateWorkbookInput = {}) =>
        send<M.Workbook>('POST', `/workbooks/${id(workbookId)}/duplicate`, input),
      /**
       * Attaches a chat thread of this deployment to a widget of the workbook's published dashboard (another is a
       * 404); a stale `checksum` is a 409.
       */
      attachAiWidgetThread: (workbookId: number, input: M.UpdatePublishedAiWidgetThreadInput) =>
        send<M.Dashboard>('POST', `/workbooks/${id(workbookId)}/dashboard/ai-widget-thread`, input),
    },
    dashboards: {
      list: (query: M.DashboardsListQuery = {}) => get<M.DashboardsListResponse>('/dashboards', query),
      get: (dashboardId: number) => get<M.Dashboard>(`/dashboards/${id(dashboardId)}`),
      create: (input: M.DashboardConfigInput) => send<M.Dashboard>('POST', '/dashboards', input),
      update: (dashboardId: number, input: M.UpdateDashboardInput) =>
        send<M.Dashboard>('PATCH', `/dashboards/${id(dashboardId)}`, input),
      delete: (dashboardId: number) => send<void>('DELETE', `/dashboards/${id(dashboardId)}`),
      widgetData: (dashboardId: number, widgetId: string) =>
        get<M.WidgetData>(`/dashboards/${id(dashboardId)}/widgets/${id(widgetId)}/data`),
      /** The widget's data as CSV text. */
      widgetCsv: async (dashboardId: number, widgetId: string) =>
        (
          await transport.raw('GET', `${base}/dashboards/${id(dashboardId)}/widgets/${id(widgetId)}/data`, {
            query: { format: 'csv' },
          })
        ).text(),
    },
    notifications: {
      list: (query: M.NotificationsListQuery = {}) => get<M.NotificationsListResponse>('/notifications', query),
      listAll: (query: Omit<M.NotificationsListQuery, 'after'> = {}) =>
        walk((after) => get<M.NotificationsListResponse>('/notifications', { ...query, after })),
      get: (notificationId: number) => get<M.Notification>(`/notifications/${id(notificationId)}`),
      create: (input: M.CreateNotificationInput) => send<M.Notification>('POST', '/notifications', input),
      update: (notificationId: number, input: M.UpdateNotificationInput) =>
        send<M.Notification>('PATCH', `/notifications/${id(notificationId)}`, input),
      delete: (notificationId: number) => send<void>('DELETE', `/notifications/${id(notificationId)}`),
    },
    dbtSync: {
      start: (input: M.StartDbtSyncInput = {}) => send<M.DbtSyncResponse>('POST', '/dbt-sync', input),
      get: (syncJobId: string) => get<M.DbtSyncJob>(`/dbt-sync/${id(syncJobId)}`),
    },
    aiEngineerSettings: {
      get: () => get<M.AIEngineerSettings>('/ai-engineer-settings'),
      update: (input: M.UpdateAIEngineerSettingsInput) =>
        send<M.AIEngineerSettings>('PATCH', '/ai-engineer-settings', input),
    },
    /** The semantic model the caller may see (`GET .../meta`). */
    meta: (query: { searchQuery?: string; branchName?: string } = {}) => get<MetaResult>('/meta', query),
    /** Semantic SQL (`POST .../sql`). */
    sql: (body: SqlBody) => send<SqlResult>('POST', '/sql', body),
  }
}

export type DeploymentClient = ReturnType<typeof deploymentClient>

export type CorePlatformClient = ReturnType<typeof coreClient>

/** The client's current API over one transport (`createPlatformClient` adds the deprecated names). */
export function coreClient(transport: Transport) {
  return {
    /** The credentials mode every request uses. */
    credentials: transport.credentials,
    deployment: (deploymentId: number) => deploymentClient(transport, deploymentId),
    appConfig: {
      get: () => transport.json<M.AppConfigResponse>('GET', '/api/v1/app-config'),
      update: (input: M.UpdateAppConfigInput) =>
        transport.json<M.AppConfigResponse>('PATCH', '/api/v1/app-config', { body: input }),
    },
    apiKeys: {
      getPolicy: (keyId: number) => transport.json<M.KeyPolicy>('GET', `/api/v1/api-keys/${id(keyId)}/policy`),
      setPolicy: (keyId: number, input: M.UpdateKeyPolicyInput) =>
        transport.json<M.KeyPolicy>('PUT', `/api/v1/api-keys/${id(keyId)}/policy`, { body: input }),
    },
    embed: {
      /** Mints an embed session (admin API key). */
      generateSession: (body: GenerateSessionBody) =>
        transport.json<GenerateSessionResponse>('POST', '/api/v1/embed/generate-session', { body }),
      /** Exchanges a session id for an embed token (once, within 5 minutes of minting; no credential needed). */
      exchangeSession: (sessionId: string) =>
        transport.json<EmbedTokenResponse>('POST', '/api/v1/embed/session/token', { body: { sessionId } }),
      revokeSession: (sessionId: string) =>
        transport.json<void>('POST', '/api/v1/embed/session/revoke', { body: { sessionId } }),
    },
    chat: {
      /** Starts (or rejoins, or reads) a chat turn; iterate the result for its lines. */
      stream: (request: ChatStreamRequest) => new ChatRun(transport, request),
      abort: (request: ChatTarget & { chatId: string; sessionSettings?: ChatStreamRequest['sessionSettings'] }) =>
        abortChat(transport, request),
    },
  }
}
