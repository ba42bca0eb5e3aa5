import type { TSchema } from '@sinclair/typebox'
import { ChatRequest } from '../../plugins/chat/model'
import { GenerateSessionBody } from '../../plugins/embed/model'
import { CreateReportSnapshotInput, DuplicateWorkbookInput } from '../../plugins/management/model'
import { StartDbtSyncInput } from '../../plugins/management/model/dashboards'

/** What the document says about one operation beyond what its route declares. */
export interface OperationNotes {
  /** The short camelCase operation id clients are generated with. */
  id: string
  /** Error statuses besides those the route's shape implies (409 for conflicting state, say). */
  errors?: number[]
  /** The operation answers 204 with no body when it succeeds. */
  noContent?: true
  /** Media types the success response also declares, without a body schema. */
  alsoSucceedsWith?: string[]
  /** A body the route parses itself (optional bodies, strict parsing), so the generator cannot see its schema. */
  body?: { schema: TSchema; required: boolean }
  /** Request and response examples, by status. */
  examples?: { request?: unknown; responses?: Record<number, { mediaType?: string; value: unknown }> }
}

const DEPLOYMENT = '/api/v1/deployments/{deploymentId}'
const CHAT = '/api/v1/public/{accountName}/agents/{agentId}/chat'

/**
 * Every operation, keyed `METHOD path`. The route files stay about behaviour; the names and notes the document's
 * readers and client generators depend on are kept together here, where a missing one is easy to spot.
 */
export const OPERATIONS: Record<string, OperationNotes> = {
  'GET /healthz': { id: 'getHealth' },
  'GET /readyz': { id: 'getReadiness' },
  'GET /metrics': { id: 'getMetrics' },
  'GET /': { id: 'getFrontDoor' },
  'GET /readme': { id: 'getReadme' },
  'GET /docs/{name}': { id: 'getDocsChapter', errors: [404] },

  [`POST ${CHAT}/stream-chat-state`]: {
    id: 'streamChatState',
    errors: [429, 503],
    // The stream also declares a `text/html; charset=utf-8` success, without a body schema.
    alsoSucceedsWith: ['text/html; charset=utf-8'],
    body: { schema: ChatRequest, required: false },
    examples: {
      request: {
        input: 'How many orders per region?',
        messageId: '1752998400000-message',
        sessionSettings: { externalId: 'user-42' },
      },
      // The lines of a short exchange (on the wire, one JSON object per line).
      responses: {
        200: {
          value: [
            { id: '__cutoff__', sort: 0, state: { chatId: 'c_9f2d', isStreaming: false } },
            {
              id: '1752998400000-message',
              role: 'user',
              content: 'How many orders per region?',
              isDelta: false,
              isInProcess: false,
              sort: 1,
            },
            // An assistant message opens empty, grows by deltas and closes with an empty delta.
            {
              id: 'm_2',
              role: 'assistant',
              sort: 2,
              graphPath: ['final'],
              content: '',
              isDelta: false,
              isInProcess: true,
            },
            {
              id: 'm_2',
              role: 'assistant',
              sort: 2,
              graphPath: ['final'],
              content: 'Europe leads with 1,208 orders.',
              isDelta: true,
              isInProcess: true,
            },
            {
              id: 'm_2',
              role: 'assistant',
              sort: 2,
              graphPath: ['final'],
              content: '',
              isDelta: true,
              isInProcess: false,
            },
            {
              id: '__state__',
              sort: 3,
              state: {
                messages: [
                  {
                    id: '1752998400000-message',
                    role: 'user',
                    content: 'How many orders per region?',
                    isDelta: false,
                    isInProcess: false,
                    sort: 1,
                  },
                  {
                    id: 'm_2',
                    role: 'assistant',
                    sort: 2,
                    graphPath: ['final'],
                    content: 'Europe leads with 1,208 orders.',
                    isDelta: false,
                    isInProcess: false,
                  },
                ],
              },
            },
          ],
        },
      },
    },
  },
  [`POST ${CHAT}/abort`]: {
    id: 'abortChat',
    noContent: true,
    errors: [503],
    examples: { request: { chatId: 'c_9f2d' } },
  },

  'POST /api/v1/embed/generate-session': {
    id: 'generateSession',
    // A `deploymentId` that is unknown or of another account.
    errors: [404],
    body: { schema: GenerateSessionBody, required: true },
    examples: {
      request: {
        deploymentId: 1,
        externalId: 'user-42',
        email: 'ada@example.com',
        userProfile: { displayName: 'Ada Lovelace' },
        userAttributes: [{ name: 'region', value: 'Europe' }],
        groups: ['sales'],
      },
      responses: { 200: { value: { sessionId: 'es_3q2x8Yt0mZ5v7kQ1' } } },
    },
  },
  'POST /api/v1/embed/session/token': {
    id: 'exchangeEmbedSession',
    // A second, late or unknown exchange; the state database not answering (no credentials, so not implied).
    errors: [401, 503],
    examples: {
      request: { sessionId: 'es_3q2x8Yt0mZ5v7kQ1' },
      responses: {
        200: {
          value: {
            token: 'eyJhbGciOiJIUzI1NiJ9.eyJzaWQiOiIuLi4ifQ.c2lnbmF0dXJl',
            expiresAt: '2026-07-21T12:00:00.000Z',
          },
        },
      },
    },
  },
  'POST /api/v1/embed/session/revoke': {
    id: 'revokeEmbedSession',
    noContent: true,
    examples: { request: { sessionId: 'es_3q2x8Yt0mZ5v7kQ1' } },
  },
  // The session's deployment or account no longer exists while its token is still valid.
  'GET /api/v1/embed/session/context': { id: 'getEmbedSessionContext', errors: [404] },
  'GET /api/v1/embed/dashboards/{publicId}': { id: 'getEmbeddedDashboard' },
  // Dashboards built from chat answers. DASHBOARD_CHANGED: a stale checksum.
  'GET /api/v1/embed/dashboards': { id: 'listEmbedDashboards' },
  'POST /api/v1/embed/dashboards': { id: 'createEmbedDashboard', examples: { request: { title: 'My sales' } } },
  'POST /api/v1/embed/dashboards/{publicId}/widgets': {
    id: 'pinAnswerWidget',
    examples: { request: { chatId: 'c_9f2d', messageId: '1752998400000-message', chart: 'line' } },
  },
  'PATCH /api/v1/embed/dashboards/{publicId}/widgets/{widgetId}': {
    id: 'updateEmbedWidget',
    errors: [409],
    examples: { request: { checksum: '5d41402abc4b2a76b9719d911017c592', size: 'wide', position: 0 } },
  },
  'DELETE /api/v1/embed/dashboards/{publicId}/widgets/{widgetId}': {
    id: 'removeEmbedWidget',
    noContent: true,
    errors: [409],
  },
  // The widget's query runs on the deployment's data source, as `runSemanticSql` does.
  'GET /api/v1/embed/dashboards/{publicId}/widgets/{widgetId}/data': {
    id: 'getEmbeddedWidgetData',
    errors: [429, 503, 504],
  },

  'GET /api/v1/embed-tenants/{embedTenantName}/groups': { id: 'listEmbedTenantGroups' },
  'DELETE /api/v1/embed-tenants/{embedTenantName}/groups/{id}': { id: 'deleteEmbedTenantGroup' },
  'DELETE /api/v1/embed-tenants/{embedTenantName}': { id: 'deleteEmbedTenant' },

  'GET /api/v1/deployments': { id: 'listDeployments' },
  [`GET ${DEPLOYMENT}/folders`]: { id: 'listFolders' },
  [`POST ${DEPLOYMENT}/folders`]: { id: 'createFolder', errors: [409] },
  [`GET ${DEPLOYMENT}/folders/{folderId}`]: { id: 'getFolder' },
  [`PATCH ${DEPLOYMENT}/folders/{folderId}`]: { id: 'updateFolder', errors: [409] },
  [`DELETE ${DEPLOYMENT}/folders/{folderId}`]: { id: 'deleteFolder', errors: [409] },

  [`GET ${DEPLOYMENT}/reports`]: {
    id: 'listReports',
    examples: {
      responses: {
        200: {
          value: {
            // An empty first page: a report's full shape is in the schema below.
            items: [],
            pageInfo: { hasNextPage: false, endCursor: null },
            data: [],
            count: 0,
          },
        },
      },
    },
  },
  [`POST ${DEPLOYMENT}/reports`]: { id: 'createReport', errors: [409] },
  [`GET ${DEPLOYMENT}/reports/{reportId}`]: { id: 'getReport' },
  [`PATCH ${DEPLOYMENT}/reports/{reportId}`]: { id: 'updateReport', errors: [409] },
  [`DELETE ${DEPLOYMENT}/reports/{reportId}`]: { id: 'deleteReport' },
  [`PUT ${DEPLOYMENT}/reports/{reportId}/connect-workbook`]: { id: 'connectReportToWorkbook' },
  [`DELETE ${DEPLOYMENT}/reports/{reportId}/connect-workbook/{externalWorkbookId}`]: {
    id: 'disconnectReportFromWorkbook',
  },
  [`GET ${DEPLOYMENT}/reports/{reportId}/snapshots`]: { id: 'listReportSnapshots' },
  [`POST ${DEPLOYMENT}/reports/{reportId}/snapshots`]: {
    id: 'createReportSnapshot',
    body: { schema: CreateReportSnapshotInput, required: false },
  },
  [`GET ${DEPLOYMENT}/reports/{reportId}/snapshots/{snapshotId}`]: { id: 'getReportSnapshot' },
  [`PATCH ${DEPLOYMENT}/reports/{reportId}/snapshots/{snapshotId}`]: { id: 'updateReportSnapshot' },
  [`DELETE ${DEPLOYMENT}/reports/{reportId}/snapshots/{snapshotId}`]: { id: 'deleteReportSnapshot' },

  [`GET ${DEPLOYMENT}/workbooks`]: { id: 'listWorkbooks' },
  [`POST ${DEPLOYMENT}/workbooks`]: { id: 'createWorkbook', errors: [409] },
  [`GET ${DEPLOYMENT}/workbooks/{workbookId}`]: { id: 'getWorkbook' },
  [`PATCH ${DEPLOYMENT}/workbooks/{workbookId}`]: { id: 'updateWorkbook', errors: [409] },
  [`DELETE ${DEPLOYMENT}/workbooks/{workbookId}`]: { id: 'deleteWorkbook' },
  [`POST ${DEPLOYMENT}/workbooks/{workbookId}/duplicate`]: {
    id: 'duplicateWorkbook',
    body: { schema: DuplicateWorkbookInput, required: false },
  },
  [`POST ${DEPLOYMENT}/workbooks/{workbookId}/dashboard/ai-widget-thread`]: {
    id: 'updatePublishedAiWidgetThread',
    errors: [409],
  },

  [`GET ${DEPLOYMENT}/dashboards`]: { id: 'listDashboards' },
  [`POST ${DEPLOYMENT}/dashboards`]: { id: 'createDashboard', errors: [409] },
  [`GET ${DEPLOYMENT}/dashboards/{dashboardId}`]: { id: 'getDashboard' },
  [`PATCH ${DEPLOYMENT}/dashboards/{dashboardId}`]: { id: 'updateDashboard', errors: [409] },
  [`DELETE ${DEPLOYMENT}/dashboards/{dashboardId}`]: { id: 'deleteDashboard' },
  // The widget's query runs on the deployment's data source, as `runSemanticSql` does.
  [`GET ${DEPLOYMENT}/dashboards/{dashboardId}/widgets/{widgetId}/data`]: {
    id: 'getDashboardWidgetData',
    errors: [429, 503, 504],
  },

  [`GET ${DEPLOYMENT}/notifications`]: { id: 'listNotifications' },
  [`POST ${DEPLOYMENT}/notifications`]: { id: 'createNotification' },
  [`GET ${DEPLOYMENT}/notifications/{notificationId}`]: { id: 'getNotification' },
  [`PATCH ${DEPLOYMENT}/notifications/{notificationId}`]: { id: 'updateNotification' },
  [`DELETE ${DEPLOYMENT}/notifications/{notificationId}`]: { id: 'deleteNotification' },

  [`POST ${DEPLOYMENT}/dbt-sync`]: {
    id: 'startDbtSync',
    // DBT_SYNC_IN_PROGRESS: a sync of the branch is still queued or running.
    errors: [409],
    body: { schema: StartDbtSyncInput, required: false },
  },
  [`GET ${DEPLOYMENT}/dbt-sync/{syncJobId}`]: { id: 'getDbtSyncJob' },
  [`GET ${DEPLOYMENT}/ai-engineer-settings`]: { id: 'getAiEngineerSettings' },
  [`PATCH ${DEPLOYMENT}/ai-engineer-settings`]: { id: 'updateAiEngineerSettings' },
  'GET /api/v1/app-config': { id: 'getAppConfig' },
  'PATCH /api/v1/app-config': { id: 'updateAppConfig' },
  'GET /api/v1/api-keys/{keyId}/policy': { id: 'getApiKeyPolicy' },
  // SELF_LOCKOUT: a key removing SecretsManage from itself.
  'PUT /api/v1/api-keys/{keyId}/policy': { id: 'setApiKeyPolicy', errors: [409] },

  [`GET ${DEPLOYMENT}/meta`]: {
    id: 'getSemanticModel',
    // MODEL_INVALID: a deployment's model first loaded after the start (another node's bootstrap named it) is broken.
    errors: [409],
    examples: {
      responses: {
        200: {
          value: {
            cubes: [
              {
                name: 'orders',
                title: 'Orders',
                type: 'cube',
                measures: [{ name: 'orders.count', title: 'Orders', type: 'count' }],
                dimensions: [{ name: 'orders.status', title: 'Status', type: 'string' }],
                joins: [{ name: 'customers', relationship: 'many_to_one' }],
              },
            ],
          },
        },
      },
    },
  },
  [`POST ${DEPLOYMENT}/sql`]: {
    id: 'runSemanticSql',
    // The deployment's model first loaded after the start is broken (MODEL_INVALID); too many of the account's
    // queries wait for the source; the deployment's data source does not answer (or its circuit is open); the query
    // ran past the statement limit, or the database did not answer within it.
    errors: [409, 429, 503, 504],
    examples: {
      request: { query: 'SELECT customers.region, MEASURE(orders.count) FROM orders GROUP BY 1 ORDER BY 2 DESC' },
      responses: {
        200: {
          value: {
            schema: [
              { name: 'customers.region', column_type: 'string' },
              { name: 'orders.count', column_type: 'number' },
            ],
            data: [
              ['Europe', '1208'],
              ['Asia', '1131'],
            ],
            totalRows: 2,
          },
        },
      },
    },
  },

  'GET /embed/dashboard/{publicId}': {
    id: 'openEmbeddedDashboardPage',
    alsoSucceedsWith: ['text/html; charset=utf-8'],
  },
  'GET /embed/chat': { id: 'openEmbeddedChatPage', alsoSucceedsWith: ['text/html; charset=utf-8'] },
  'GET /embed/assets/{file}': { id: 'getEmbedAsset', errors: [404] },
}
