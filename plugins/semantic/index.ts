import { Elysia } from 'elysia'
import { jsonBody } from '../core/strict-json'
import type { Lifecycle } from '../../lib/lifecycle'
import { authPlugin, type AuthDeps } from '../auth'
import type { UserProvisioner } from '../auth/user-provisioner'
import { callerAccess } from './caller-access'
import { DeploymentParams, MetaQuery, MetaResult, ROW_CAP, SqlBody, SqlResult } from './model'
import type { SemanticService } from './semantic-service'

/** What the semantic routes need from the app, besides what their authentication needs. */
export interface SemanticDeps extends AuthDeps {
  semantic: SemanticService
  users: UserProvisioner
  lifecycle: Pick<Lifecycle, 'onShutdown'>
}

const SECURITY: Array<Record<string, string[]>> = [{ ApiKey: [] }, { EmbedToken: [] }]

/**
 * The semantic layer over HTTP: `GET .../meta` and `POST .../sql`, the same engine the
 * `serviceMeta` and `serviceSqlApi` tools use (`deps.semantic`). API key in scope or an embed token of the
 * deployment; an unknown branch is 400, a refused query 400 `INVALID_QUERY`.
 */
export function semanticPlugin(deps: SemanticDeps) {
  const { semantic, users } = deps
  deps.lifecycle.onShutdown(() => semantic.close())

  return new Elysia({ name: 'semantic', seed: deps.instanceId })
    .use(authPlugin(deps))
    .get(
      '/api/v1/deployments/:deploymentId/meta',
      async ({ caller, deployment, query }) =>
        semantic.meta(
          { deployment, branchName: query.branchName, access: await callerAccess(caller, undefined, users) },
          query.searchQuery,
        ),
      {
        deploymentAccess: true,
        params: DeploymentParams,
        query: MetaQuery,
        response: { 200: MetaResult },
        detail: {
          summary: 'Semantic model',
          description:
            'The cubes, views, measures, dimensions and joins the caller may query (the `serviceMeta` tool): the whole model ' +
            "for an API key, the user's view for an embed token. `searchQuery` keeps matching cubes and members.",
          tags: ['Semantic layer'],
          security: SECURITY,
        },
      },
    )
    .post(
      '/api/v1/deployments/:deploymentId/sql',
      async ({ caller, deployment, body }) =>
        semantic.query(
          { deployment, branchName: body.branchName, access: await callerAccess(caller, body.sessionSettings, users) },
          body.query,
          body.limit ?? ROW_CAP,
        ),
      {
        deploymentAccess: true,
        params: DeploymentParams,
        ...jsonBody(SqlBody),
        response: { 200: SqlResult },
        detail: {
          summary: 'Run a semantic SQL query',
          description:
            'One Postgres-style SELECT over cubes (the `serviceSqlApi` tool): dimensions as `cube.member`, measures as ' +
            "`MEASURE(cube.measure)`, `DATE_TRUNC('month', cube.time_dimension)`, WHERE, GROUP BY, HAVING, ORDER BY, LIMIT. " +
            'With an API key, `sessionSettings` names the user whose access applies; without it the whole model is readable. ' +
            `Returns at most \`limit\` rows (default ${ROW_CAP}, at most 10000); \`totalRows\` counts every row the query produced.`,
          tags: ['Semantic layer'],
          security: SECURITY,
        },
      },
    )
}
