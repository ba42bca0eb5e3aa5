import { Elysia } from 'elysia'
import { authPlugin } from '../auth'
import { listKeyDeployments } from './settings/deployments'
import { DeploymentsResponse } from './model/deployments'
import { NotFoundError } from '../../lib/errors'
import { MAX_ROUTE_LIMIT } from '../semantic/model'
import { WHOLE_MODEL } from '../semantic/semantic-service'
import { reportRoutes } from './routes/reports'
import { settingsRoutes, type SettingsRoutesDeps } from './routes/settings'
import type { WidgetQueryRunner } from './dashboards/widget-data'
import { workbookRoutes, type WorkbookRoutesDeps } from './routes/workbooks'

/** The management API's routes together need what the workbook and settings routes need. */
export type ManagementDeps = WorkbookRoutesDeps & SettingsRoutesDeps

export {
  evaluateChatThreadPolicies,
  loadChatThreadPolicies,
  type ChatThreadDecision,
  type ChatThreadRequest,
} from './access/chat-thread-policies'
export { findPublishedDashboard } from './dashboards/published'

/**
 * The management API of release v0.2.1: folders, reports, snapshots, workbooks,
 * dashboards, notifications, dbt syncs, app configuration, AI engineer settings and key policies, all behind an
 * API key (embed and service tokens are refused by the auth macros).
 */
export function managementPlugin(deps: ManagementDeps, options: { runWidgetQuery?: WidgetQueryRunner } = {}) {
  // A download is the whole result, up to the semantic layer's route limit rather than the chat tools' row cap.
  const runWidgetQuery: WidgetQueryRunner =
    options.runWidgetQuery ??
    (async (deploymentId, query) => {
      const deployment = await deps.directory.deployment(deploymentId)
      if (!deployment) throw new NotFoundError(`Deployment ${deploymentId} not found`, 'DEPLOYMENT_NOT_FOUND')
      return deps.semantic.query({ deployment, access: WHOLE_MODEL }, query, MAX_ROUTE_LIMIT)
    })
  return new Elysia({ name: 'management', seed: deps.instanceId })
    .use(authPlugin(deps))
    .get(
      '/api/v1/deployments',
      async ({ caller }) => ({ items: await listKeyDeployments(deps.storage, deps.directory, caller) }),
      {
        apiKey: true,
        response: { 200: DeploymentsResponse },
        detail: {
          operationId: 'listDeployments',
          summary: 'List the deployments this API key may use',
          description:
            "The key's account's deployments, narrowed by the key's deployment scope, each with its agents and branches. " +
            'Read-only; any API key of the account (admin or not).',
          tags: ['Deployments'],
          security: [{ ApiKey: [] }],
        },
      },
    )
    .use(reportRoutes(deps))
    .use(workbookRoutes(deps, runWidgetQuery))
    .use(settingsRoutes(deps))
}
