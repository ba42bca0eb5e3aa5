import { BadRequestError, ForbiddenError, NotFoundError } from '../../lib/errors'
import type { DeploymentInfo, Directory } from './directory'
import type { ApiKeyCaller, Caller } from './model'

/**
 * The `deploymentId` of a path as a number: 400 naming it unless it is a positive integer written plainly (`abc`,
 * `0x1`, `1e0` and ` 1` are not deployment ids, though `Number` reads the last three as 1).
 */
export function deploymentIdParam(raw: string | undefined): number {
  const id = raw !== undefined && /^[1-9][0-9]{0,15}$/.test(raw) ? Number(raw) : Number.NaN
  if (!Number.isSafeInteger(id))
    throw new BadRequestError('path deploymentId: expected an integer of at least 1', 'VALIDATION_FAILED')
  return id
}

/** The deployment `id` if the caller may act on it: 404 when it is not the caller's account's, 403 outside scope. */
export async function authorizeDeployment(caller: Caller, id: number, directory: Directory): Promise<DeploymentInfo> {
  const deployment = Number.isSafeInteger(id) ? await directory.deployment(id) : undefined
  if (!deployment || deployment.accountId !== caller.accountId)
    throw new NotFoundError(`Deployment ${id} not found`, 'DEPLOYMENT_NOT_FOUND')
  assertDeploymentInScope(caller, deployment.id)
  return deployment
}

/** 403 unless the caller may act on deployment `id`. */
export function assertDeploymentInScope(caller: Caller, id: number): void {
  if (caller.kind === 'apiKey') {
    if (caller.deploymentScope !== null && !caller.deploymentScope.includes(id))
      throw new ForbiddenError(`API key is not allowed to access deployment ${id}`, 'DEPLOYMENT_OUT_OF_SCOPE')
    return
  }
  if (caller.deploymentId !== id)
    throw new ForbiddenError(`Credential is not valid for deployment ${id}`, 'DEPLOYMENT_OUT_OF_SCOPE')
}

export function assertAdmin(caller: ApiKeyCaller): void {
  if (!caller.admin) throw new ForbiddenError('This operation requires an admin API key', 'ADMIN_REQUIRED')
}

/**
 * 403 unless a key with `target` as its deployment scope lies within the reach of `manager`: an unscoped key
 * reaches every key of its account; a scoped key reaches only keys scoped to a subset of its own deployments.
 * Without this, a key scoped to one deployment could rewrite the policy of the account's unscoped admin key and
 * take the account over.
 */
export function assertKeyWithinReach(
  manager: { deploymentScope: readonly number[] | null },
  target: readonly number[] | null,
): void {
  if (manager.deploymentScope === null) return
  const reach = new Set(manager.deploymentScope)
  if (target === null || !target.every((id) => reach.has(id)))
    throw new ForbiddenError(
      'API key cannot manage a key that reaches deployments outside its own scope',
      'KEY_OUT_OF_SCOPE',
    )
}

/** 403 for deployment-scoped keys: account-wide settings and resources affect deployments outside their scope. */
export function assertAccountWide(caller: { deploymentScope: readonly number[] | null }, what: string): void {
  if (caller.deploymentScope !== null)
    throw new ForbiddenError(`${what} needs an API key that is not scoped to deployments`, 'ACCOUNT_WIDE_KEY_REQUIRED')
}
