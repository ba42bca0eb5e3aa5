import { t } from 'elysia'

/** A deployment as `GET /api/v1/deployments` lists it: enough to pick one and its agent, no secrets. */
export const DeploymentSummary = t.Object({
  id: t.Integer(),
  name: t.String(),
  branches: t.Array(t.String(), { description: 'Branch names, the default first' }),
  defaultBranch: t.String(),
  agents: t.Array(
    t.Object({ id: t.Integer(), name: t.String(), kind: t.Union([t.Literal('analyst'), t.Literal('scripted')]) }),
  ),
})
export type DeploymentSummary = typeof DeploymentSummary.static

export const DeploymentsResponse = t.Object({ items: t.Array(DeploymentSummary) })
export type DeploymentsResponse = typeof DeploymentsResponse.static
