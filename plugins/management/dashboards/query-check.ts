import { NotFoundError } from '../../../lib/errors'
import type { Directory } from '../../auth/directory'
import { WHOLE_MODEL, type SemanticService } from '../../semantic/semantic-service'

/** Throws when a query cannot run on the deployment's model (plans it, runs nothing). */
export type WidgetQueryCheck = (query: string) => void

/**
 * The check of queries saved with a deployment's content (widget queries, dashboard filters and time grains): planned
 * on the deployment's model over all its data (no user's policies), running nothing.
 */
export function modelQueryCheck(deps: { directory: Directory; semantic: SemanticService }) {
  return async (deploymentId: number): Promise<WidgetQueryCheck> => {
    const deployment = await deps.directory.deployment(deploymentId)
    if (!deployment) throw new NotFoundError(`Deployment ${deploymentId} not found`, 'DEPLOYMENT_NOT_FOUND')
    return (query) => {
      deps.semantic.describe({ deployment, access: WHOLE_MODEL }, query)
    }
  }
}
