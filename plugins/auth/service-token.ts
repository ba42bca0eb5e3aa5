import { decodeJwt, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose'
import { ForbiddenError, UnauthorizedError } from '../../lib/errors'
import type { DeploymentInfo, Directory } from './directory'
import type { ServiceTokenCaller } from './model'
import { isNormalizedIdentity } from './normalize-identity'

const encoder = new TextEncoder()

/** Default of `SERVICE_TOKEN_MAX_TTL_S`: a day. */
export const DEFAULT_SERVICE_TOKEN_MAX_TTL_S = 86_400

/**
 * Verifies an `X-Service-Auth-Token`: an HS256 JWT signed with the deployment's own secret, accepted only when the
 * deployment enables token auth. `exp` is required and `nbf` honoured; a token whose lifetime (`exp - iat`, or
 * `exp - now` without `iat`) is over `maxTtlSeconds` is refused, so a leaked token cannot work forever. The user is
 * the `externalId` claim, else `sub`, and must be lowercase and trimmed like every external user id; the `scope`
 * claim must be an array holding `chat`; a `deploymentId` claim, when there, is a JSON number. A token that is genuine
 * but made for another deployment of the same account (signed with its secret) is 403; anything else, another
 * account's genuine token included, is 401: an account's agents tell nothing about another account's tokens.
 */
export async function verifyServiceToken(
  token: string,
  deployment: DeploymentInfo,
  directory: Directory,
  now: () => number,
  maxTtlSeconds: number = DEFAULT_SERVICE_TOKEN_MAX_TTL_S,
): Promise<ServiceTokenCaller> {
  if (!deployment.tokenAuthEnabled || !deployment.tokenAuthSecret)
    throw new ForbiddenError('Token authentication is disabled for this deployment', 'TOKEN_AUTH_DISABLED')

  let payload: JWTPayload
  try {
    payload = (await verify(token, deployment.tokenAuthSecret, now)).payload
  } catch (error) {
    if (error instanceof joseErrors.JWTExpired) throw new UnauthorizedError('Token expired', 'TOKEN_EXPIRED')
    if (error instanceof joseErrors.JWTClaimValidationFailed && error.claim === 'nbf')
      throw new UnauthorizedError('Token is not valid yet', 'TOKEN_NOT_YET_VALID')
    if (await isGenuineForOtherDeployment(token, deployment, directory, now))
      throw new ForbiddenError('Token was issued for another deployment', 'TOKEN_WRONG_DEPLOYMENT')
    throw new UnauthorizedError('Invalid token', 'INVALID_TOKEN')
  }

  const claimed = payload.deploymentId
  if (claimed !== undefined && !isDeploymentIdClaim(claimed))
    throw new UnauthorizedError('Token claim deploymentId must be a positive integer', 'INVALID_TOKEN')
  if (claimed !== undefined && claimed !== deployment.id)
    throw new ForbiddenError('Token was issued for another deployment', 'TOKEN_WRONG_DEPLOYMENT')
  checkLifetime(payload, now, maxTtlSeconds)
  // An externalId claim that is there names the user, or the token is refused: falling back to `sub` past a blank
  // or mistyped externalId would chat as another user than the one its issuer meant.
  const claim = payload.externalId !== undefined ? 'externalId' : 'sub'
  const identity = payload[claim]
  if (claim === 'externalId' && (typeof identity !== 'string' || identity.trim() === ''))
    throw new UnauthorizedError('Token claim externalId must be a non-blank string', 'INVALID_EXTERNAL_ID')
  if (typeof identity !== 'string' || identity.trim() === '')
    throw new UnauthorizedError('Token has neither an externalId nor a sub claim', 'INVALID_TOKEN')
  if (!identity.isWellFormed())
    throw new UnauthorizedError(`Token claim ${claim} must be well-formed Unicode text`, 'INVALID_EXTERNAL_ID')
  // Never normalized: `Acme-7` and `acme-7` may be two people, and merging them would merge their row-level security.
  if (!isNormalizedIdentity(identity))
    throw new UnauthorizedError(
      `Token claim ${claim} must be lowercase and trimmed: it names an external user`,
      'INVALID_EXTERNAL_ID',
    )
  if (!Array.isArray(payload.scope) || !payload.scope.includes('chat'))
    throw new ForbiddenError('Token scope must be an array containing "chat"', 'TOKEN_SCOPE')
  const securityContext = payload.securityContext
  if (
    securityContext !== undefined &&
    (securityContext === null || typeof securityContext !== 'object' || Array.isArray(securityContext))
  )
    throw new UnauthorizedError('Token claim securityContext must be an object', 'INVALID_TOKEN')
  return {
    kind: 'serviceToken',
    accountId: deployment.accountId,
    accountName: deployment.accountName,
    deploymentId: deployment.id,
    externalId: identity,
    securityContext: securityContext as Record<string, unknown> | undefined,
  }
}

/** A `deploymentId` claim names a deployment as a JSON number: `"3"` is not 3, as `Number()` would make it. */
function isDeploymentIdClaim(claimed: unknown): claimed is number {
  return typeof claimed === 'number' && Number.isSafeInteger(claimed) && claimed > 0
}

/** 401 for a token without `exp`, or whose lifetime is over `maxTtlSeconds`. */
function checkLifetime(payload: JWTPayload, now: () => number, maxTtlSeconds: number): void {
  if (typeof payload.exp !== 'number')
    throw new UnauthorizedError('Token must carry an exp claim', 'TOKEN_EXP_REQUIRED')
  // An `iat` in the future does not stretch the window: the lifetime counts from now at the latest.
  const nowSeconds = now() / 1000
  const from = typeof payload.iat === 'number' ? Math.min(payload.iat, nowSeconds) : nowSeconds
  if (payload.exp - from > maxTtlSeconds)
    throw new UnauthorizedError(
      `Token lifetime is over the ${maxTtlSeconds} s this server accepts`,
      'TOKEN_LIFETIME_TOO_LONG',
    )
}

function verify(token: string, secret: string, now: () => number) {
  return jwtVerify(token, encoder.encode(secret), { algorithms: ['HS256'], currentDate: new Date(now()) })
}

/** How many other deployments' secrets a refused token is checked against (each check costs about 30 µs). */
const MAX_OTHER_SECRETS = 16

/**
 * Whether a token that the deployment's secret refused is genuine for another deployment: the one its `deploymentId`
 * claim names, else another deployment of the same account that takes service tokens (the specification defines no
 * such claim, so a client sends a token made for deployment 10 to an agent of deployment 11 without one). Only signatures are compared here;
 * such a token is refused either way, as 403 rather than 401.
 */
async function isGenuineForOtherDeployment(
  token: string,
  deployment: DeploymentInfo,
  directory: Directory,
  now: () => number,
): Promise<boolean> {
  let claimed: unknown
  try {
    claimed = decodeJwt(token).deploymentId
  } catch {
    return false
  }
  if (claimed !== undefined) {
    if (!isDeploymentIdClaim(claimed) || claimed === deployment.id) return false
    const other = await directory.deployment(claimed)
    if (!other?.tokenAuthSecret || other.accountId !== deployment.accountId) return false
    return signedBy(token, other.tokenAuthSecret, now)
  }
  return isGenuineForAccount(token, deployment.accountId, directory, now, deployment)
}

/**
 * Whether `token` is signed by a deployment of account `accountId` that takes service tokens (other than `except`).
 * At most a few are tried: a token anyone may send must not cost a check per deployment of the server, nor tell
 * whether it was made for another account's.
 */
export async function isGenuineForAccount(
  token: string,
  accountId: number,
  directory: Directory,
  now: () => number,
  except?: DeploymentInfo,
): Promise<boolean> {
  try {
    decodeJwt(token)
  } catch {
    return false
  }
  const candidates = (await directory.tokenSecrets()).filter(
    (other) => other.accountId === accountId && other.id !== except?.id && other.secret !== except?.tokenAuthSecret,
  )
  for (const other of candidates.slice(0, MAX_OTHER_SECRETS)) if (await signedBy(token, other.secret, now)) return true
  return false
}

/** Whether `secret` signed `token`, expired or not yet valid as it may be. */
async function signedBy(token: string, secret: string, now: () => number): Promise<boolean> {
  try {
    await verify(token, secret, now)
    return true
  } catch (error) {
    // Genuine but expired or not yet valid: still made for that deployment.
    return error instanceof joseErrors.JWTExpired || error instanceof joseErrors.JWTClaimValidationFailed
  }
}
