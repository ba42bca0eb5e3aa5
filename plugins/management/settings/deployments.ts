import { asc, eq } from 'drizzle-orm'
import type { Storage } from '../../../db/client'
import type { ApiKeyCaller } from '../../auth/model'
import type { Directory } from '../../auth/directory'
import type { DeploymentSummary } from '../model/deployments'

/**
 * The deployments an API key may act on (its account's, narrowed by the key's deployment scope), each with its
 * agents and branches: what a person needs to pick a deployment and agent for an embed session. Read-only.
 */
export async function listKeyDeployments(
  storage: Storage,
  directory: Directory,
  caller: ApiKeyCaller,
): Promise<DeploymentSummary[]> {
  const { agents, deployments } = storage.tables
  const rows = await storage.db
    .select({ id: deployments.id })
    .from(deployments)
    .where(eq(deployments.accountId, caller.accountId))
    .orderBy(asc(deployments.id))
  const summaries: DeploymentSummary[] = []
  for (const row of rows) {
    if (caller.deploymentScope !== null && !caller.deploymentScope.includes(row.id)) continue
    const deployment = await directory.deployment(row.id)
    if (!deployment) continue
    const agentRows = await storage.db
      .select({ id: agents.id, name: agents.name, kind: agents.kind })
      .from(agents)
      .where(eq(agents.deploymentId, row.id))
      .orderBy(asc(agents.id))
    summaries.push({
      id: deployment.id,
      name: deployment.name,
      branches: deployment.branches,
      defaultBranch: deployment.defaultBranch,
      agents: agentRows,
    })
  }
  return summaries
}
