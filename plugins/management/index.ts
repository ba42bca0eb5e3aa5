import { Elysia } from 'elysia'
import type { AppDeps } from '../../src/deps'
import { AppError } from '../../src/errors'
import { reportRoutes } from './report-routes'
import { settingsRoutes } from './settings-routes'
import type { WidgetQueryRunner } from './widget-data'
import { workbookRoutes } from './workbook-routes'

export { evaluateChatThreadPolicies, loadChatThreadPolicies } from './chat-thread-policies'
export { findPublishedDashboard } from './published-dashboards'

/**
 * The management API of release v0.2.1 (spec 4.4, contract section 3): folders, reports, snapshots, workbooks,
 * dashboards, notifications, dbt syncs, app configuration, AI engineer settings and key policies, all behind an
 * API key (embed and service tokens are refused by the auth macros).
 */
export function managementPlugin(deps: AppDeps, options: { runWidgetQuery?: WidgetQueryRunner } = {}) {
  const runWidgetQuery: WidgetQueryRunner =
    options.runWidgetQuery ??
    (async () => {
      throw new AppError(503, 'QUERY_RUNNER_UNAVAILABLE', 'The semantic layer is not available to run widget queries')
    })
  return new Elysia({ name: 'management', seed: deps.instanceId })
    .use(reportRoutes(deps))
    .use(workbookRoutes(deps, runWidgetQuery))
    .use(settingsRoutes(deps))
}
