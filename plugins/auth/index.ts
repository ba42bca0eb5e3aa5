import { Elysia } from 'elysia'
import { isDecimalInteger } from '../core/number-text'
import type { Config } from '../../lib/config'
import { ForbiddenError, NotFoundError, UnauthorizedError } from '../../lib/errors'
import {
  assertAdmin,
  assertDeploymentInScope,
  authorizeDeployment,
  deploymentIdParam,
} from './deployment-authorization'
import { readCredential } from './credentials'
import type { AgentInfo, DeploymentInfo, Directory } from './directory'
import type { ApiKeyAuthenticator, ApiKeyCaller, Caller, EmbedCaller, EmbedTokenVerifier } from './model'
import { isGenuineForAccount, verifyServiceToken } from './service-token'
import { checkBodyAfterAuthentication } from '../core/strict-json'

type Headers = Record<string, string | undefined>

/** What authentication needs from the app; every plugin that uses these macros passes at least this. */
export interface AuthDeps {
  config: Pick<Config, 'serviceTokenMaxTtlS'>
  directory: Directory
  authenticateApiKey: ApiKeyAuthenticator
  embedTokens: EmbedTokenVerifier
  clock: () => number
  /** Seeds the plugin name, so two apps in one process never share a deduplicated instance. */
  instanceId: string
}

/**
 * Authentication for every route, as macros that give the handler a typed `caller`:
 * - `apiKey`: an API key (embed tokens and service tokens are refused: 403 when genuine).
 * - `adminKey`: an admin API key.
 * - `deploymentAccess`: an API key in scope for `params.deploymentId`, or an embed token for that deployment.
 * - `managementAccess`: an API key in scope for `params.deploymentId`.
 * - `chatAccess`: any of the three schemes on `params.accountName` / `params.agentId` (embed tokens also as
 *   `?embedToken=` on a WebSocket upgrade, for browsers).
 * Missing credentials are 401, malformed ones 400, genuine ones without the right 403.
 */
export function authPlugin(deps: AuthDeps) {
  const { directory, authenticateApiKey, embedTokens, clock } = deps

  async function apiKeyCaller(headers: Headers): Promise<ApiKeyCaller> {
    const credential = readCredential(headers)
    if (!credential)
      throw new UnauthorizedError('Missing credentials: send "Authorization: Api-Key <key>"', 'MISSING_CREDENTIALS')
    if (credential.scheme === 'apiKey') return await authenticateApiKey(credential.value)
    if (credential.scheme === 'embedToken') {
      await embedTokens.verify(credential.value)
      throw new ForbiddenError('Embed tokens cannot be used on this route', 'EMBED_TOKEN_NOT_ALLOWED')
    }
    throw new ForbiddenError('X-Service-Auth-Token is accepted only on chat routes', 'SERVICE_TOKEN_NOT_ALLOWED')
  }

  async function deploymentCaller(
    headers: Headers,
    rawId: string | undefined,
  ): Promise<{ caller: ApiKeyCaller | EmbedCaller; deployment: DeploymentInfo }> {
    const credential = readCredential(headers)
    if (!credential) throw new UnauthorizedError('Missing credentials', 'MISSING_CREDENTIALS')
    if (credential.scheme === 'serviceToken')
      throw new ForbiddenError('X-Service-Auth-Token is accepted only on chat routes', 'SERVICE_TOKEN_NOT_ALLOWED')
    const caller =
      credential.scheme === 'apiKey'
        ? await authenticateApiKey(credential.value)
        : await embedTokens.verify(credential.value)
    return { caller, deployment: await authorizeDeployment(caller, deploymentIdParam(rawId), directory) }
  }

  async function chatCaller(
    headers: Headers,
    params: Record<string, string>,
    query: Record<string, string | undefined>,
  ): Promise<{ caller: Caller; agent: AgentInfo; deployment: DeploymentInfo }> {
    // Browsers cannot set headers on a WebSocket, so its upgrade also takes an embed token as `?embedToken=`. Only
    // there: anywhere else a bearer token in the address ends up in proxies' logs and browser history for nothing.
    const upgrade = headers.upgrade?.toLowerCase() === 'websocket'
    const credential =
      readCredential(headers) ??
      (upgrade && query.embedToken ? { scheme: 'embedToken' as const, value: query.embedToken } : undefined)
    // Written in decimal digits: `1e0` or `0x1` names no agent (Number() would read either as agent 1).
    const agentId = isDecimalInteger(params.agentId) ? Number(params.agentId) : 0
    const agent = agentId > 0 ? await directory.agent(agentId) : undefined
    const account = await directory.accountByName(params.accountName ?? '')
    if (!credential) throw new UnauthorizedError('Missing credentials', 'MISSING_CREDENTIALS')
    let caller: Caller
    if (credential.scheme === 'apiKey') caller = await authenticateApiKey(credential.value)
    else if (credential.scheme === 'embedToken') caller = await embedTokens.verify(credential.value)
    else {
      if (!agent || agent.deployment.accountName !== params.accountName) {
        // No deployment to verify the token with: it is refused as any token that is not genuine, unless a
        // deployment of the account the address names signed it (then only the agent is missing). A token that
        // proves nothing learns nothing of which accounts and agents exist.
        if (account && (await isGenuineForAccount(credential.value, account.id, directory, clock)))
          throw new NotFoundError(`Agent ${params.agentId} not found`, 'AGENT_NOT_FOUND')
        throw new UnauthorizedError('Invalid token', 'INVALID_TOKEN')
      }
      caller = await verifyServiceToken(
        credential.value,
        agent.deployment,
        directory,
        clock,
        deps.config.serviceTokenMaxTtlS,
      )
    }
    if (!account) throw new NotFoundError(`Account ${params.accountName} not found`, 'ACCOUNT_NOT_FOUND')
    if (!agent || agent.deployment.accountName !== params.accountName)
      throw new NotFoundError(`Agent ${params.agentId} not found`, 'AGENT_NOT_FOUND')
    if (caller.accountName !== params.accountName)
      throw new ForbiddenError('Credential belongs to another account', 'ACCOUNT_MISMATCH')
    assertDeploymentInScope(caller, agent.deployment.id)
    return { caller, agent, deployment: agent.deployment }
  }

  /**
   * Authentication runs in `transform`, before Elysia validates the body, so a request without valid credentials
   * is 401/403 whatever its body (a `jsonBody` route's parse faults wait for it, too); `resolve` then hands the result to the handler with its type.
   */
  function authenticated<T>(authenticate: (context: AuthContext) => Promise<T>) {
    const results = new WeakMap<Request, T>()
    // The hooks name the parts of the request they read: Elysia parses only what its hooks and handler name, and a
    // context passed on whole made it parse every request's cookies too, which no route reads.
    return {
      async transform({ request, headers, params, query }: AuthContext & { request: Request }) {
        results.set(request, await authenticate({ headers, params, query }))
        // A body's own faults (not JSON, unknown fields) are told only to a caller whose credentials passed.
        checkBodyAfterAuthentication(request)
      },
      async resolve({ request, headers, params, query }: AuthContext & { request: Request }): Promise<T> {
        return results.get(request) ?? authenticate({ headers, params, query })
      },
    }
  }

  const params = (context: AuthContext) => context.params as Record<string, string | undefined>

  return new Elysia({ name: 'auth', seed: deps.instanceId }).macro({
    apiKey: authenticated(async ({ headers }) => ({ caller: await apiKeyCaller(headers) })),
    adminKey: authenticated(async ({ headers }) => {
      const caller = await apiKeyCaller(headers)
      assertAdmin(caller)
      return { caller }
    }),
    managementAccess: authenticated(async (context) => {
      const caller = await apiKeyCaller(context.headers)
      return {
        caller,
        deployment: await authorizeDeployment(caller, deploymentIdParam(params(context).deploymentId), directory),
      }
    }),
    deploymentAccess: authenticated((context) => deploymentCaller(context.headers, params(context).deploymentId)),
    chatAccess: authenticated(async (context) => {
      const { headers } = context
      const query = context.query as Record<string, string | undefined>
      const path = params(context) as Record<string, string>
      // A WebSocket outlives its upgrade: it runs this same check again before each turn (revoked session, expired
      // token, revoked key), with the credential it was opened with.
      const reauthenticate = () => chatCaller(headers, path, query)
      return { ...(await reauthenticate()), reauthenticate }
    }),
  })
}

interface AuthContext {
  headers: Headers
  params: unknown
  query: unknown
}
