import { Elysia, t } from 'elysia'
import type { Storage } from '../../../db/client'
import { authPlugin, type AuthDeps } from '../../auth'
import { managementContext } from '../access/context'
import { Id } from '../model'

/** What every route of the management API shares: the deployment prefix, its parameters and the docs' security. */
export const DEPLOYMENT = '/api/v1/deployments/:deploymentId'
export const DeploymentParams = t.Object({ deploymentId: Id })
export const NoContent = { 204: t.Void() }
const SECURITY = [{ ApiKey: [] }]

/** OpenAPI details of a management operation, behind an API key. */
export function doc(tag: string, summary: string, description?: string) {
  return { summary, description, tags: [tag], security: SECURITY }
}

/** What the management macro needs: authentication, plus the storage and clock its context reads. */
export interface ManagementAccessDeps extends AuthDeps {
  storage: Storage
}

/**
 * The `management` macro: an API key in scope for the route's deployment (`managementAccess`), and the management
 * context of that key on that deployment, built once per request and handed to the handler as `context`.
 */
export function managementAccess(deps: ManagementAccessDeps) {
  const { storage, clock } = deps
  return new Elysia({ name: 'management-access', seed: deps.instanceId }).use(authPlugin(deps)).macro('management', {
    managementAccess: true,
    resolve: async ({ caller, deployment }) => ({
      context: await managementContext(storage, clock(), caller, deployment.id),
    }),
  })
}
