import { Elysia } from 'elysia'
import { jsonBody, noBody } from '../core/strict-json'
import type { Storage } from '../../db/client'
import type { ClusterBus } from '../../lib/cluster-bus'
import type { Lifecycle } from '../../lib/lifecycle'
import type { Logger } from '../../lib/logger'
import { NotFoundError } from '../../lib/errors'
import { authPlugin, type AuthDeps } from '../auth'
import { assertAccountWide } from '../auth/deployment-authorization'
import type { ApiKeyCaller } from '../auth/model'
import { actorOf, requireAction } from '../management/access/key-policies'
import type { PolicyAction } from '../management/model'
import { createEmbedTenantAdmin } from './embed-tenants'
import type { EmbedTokens } from './embed-tokens'
import { createSessionGenerator } from './generate-session'
import {
  EmbedTenantGroupParams,
  EmbedTenantGroupsPage,
  EmbedTenantParams,
  EmbedTokenResponse,
  GenerateSessionBody,
  GenerateSessionResponse,
  GroupsQuery,
  SessionIdBody,
} from './model'
import type { Provisioning } from './provisioning'
import { createSessionStore } from './sessions'

const PRUNE_INTERVAL_MS = 60_000
const TENANTS = '/api/v1/embed-tenants/:embedTenantName'
const ADMIN_SECURITY = [{ ApiKey: [] }]

function removedInV020(what: string): never {
  throw new NotFoundError(`${what} was removed in release v0.2.0`, 'REMOVED_IN_V0_2_0')
}

/** What the embed area needs from the app, besides what its routes' authentication needs. */
export interface EmbedDeps extends AuthDeps {
  storage: Storage
  logger: Logger
  lifecycle: Pick<Lifecycle, 'onShutdown'>
  /** Signs the tokens a session is exchanged for (the app's instance, which also checks them). */
  embedTokens: EmbedTokens
  /** The provisioning rules generate-session applies (the app's instance, which chat requests use too). */
  users: Provisioning
  /** Tells every node of a revocation, so open sockets of the session close at once. */
  bus: Pick<ClusterBus, 'publish'>
}

/** Embed sessions (generate-session, the token exchange and revocation) and the embed-tenant admin routes. */
export function embedPlugin(deps: EmbedDeps) {
  return new Elysia({ name: 'embed', seed: deps.instanceId }).use(sessionRoutes(deps)).use(embedTenantRoutes(deps))
}

/**
 * Generate-session, the token exchange and revocation. Expired sessions are pruned on every mint and once a minute
 * until the app shuts down.
 */
function sessionRoutes(deps: EmbedDeps) {
  const { storage, clock, logger } = deps
  const sessions = createSessionStore(storage, clock)
  const generateSession = createSessionGenerator({
    storage,
    clock,
    directory: deps.directory,
    provisioning: deps.users,
    sessions,
  })

  const timer = setInterval(() => {
    sessions.prune().catch((error: unknown) => logger.warn('embed session pruning failed', { error }))
  }, PRUNE_INTERVAL_MS)
  timer.unref()
  deps.lifecycle.onShutdown(() => clearInterval(timer))

  return new Elysia({ name: 'embed-sessions', seed: deps.instanceId })
    .use(authPlugin(deps))
    .post('/api/v1/embed/generate-session', ({ body, caller }) => generateSession(caller, body), {
      adminKey: true,
      // The specification requires the JSON type here; unknown fields are refused (a misspelt security field must
      // not mint a session without it). Both are told after authentication.
      ...jsonBody(GenerateSessionBody, { contentTypeRequired: true, removedFields: { ephemeralTtlSeconds: 'v0.2.0' } }),
      response: { 200: GenerateSessionResponse },
      detail: {
        summary: 'Generate an embed session',
        description:
          'Provisions or updates the user (external by `externalId`, or an existing internal user by `internalId`), ' +
          'bootstraps creator-mode definitions into the embed tenant, and mints a session to exchange once, within ' +
          '5 minutes, for an embed token. One call is one transaction. Admin key; premium and enterprise plans only.',
        tags: ['Embed'],
        security: ADMIN_SECURITY,
      },
    })
    .post(
      '/api/v1/embed/session/token',
      async ({ body }) => {
        const session = await sessions.exchange(body.sessionId)
        return { token: await deps.embedTokens.sign(session), expiresAt: new Date(session.expiresAt).toISOString() }
      },
      {
        ...jsonBody(SessionIdBody, { public: true }),
        response: { 200: EmbedTokenResponse },
        detail: {
          summary: 'Exchange a session for an embed token',
          description:
            'No credentials: the session id is the secret. Each session can be exchanged once, within 5 minutes of ' +
            'minting; a second or late exchange is 401. The token is valid for 24 hours unless the session is revoked.',
          tags: ['Embed'],
          security: [],
        },
      },
    )
    .post(
      '/api/v1/embed/session/revoke',
      async ({ body, caller, set }) => {
        // A scoped key revokes only its deployments' sessions: it must not log out users of other deployments.
        await sessions.revoke(caller.accountId, body.sessionId, caller.deploymentScope)
        // The revocation is stored; while Redis does not answer, the announcement waits and goes once it does.
        await deps.bus
          .publish({ type: 'embed-session-revoked', accountId: caller.accountId })
          .catch((error: unknown) => logger.warn('announcing an embed session revocation failed', { error }))
        set.status = 204
        return null
      },
      {
        adminKey: true,
        ...jsonBody(SessionIdBody),
        detail: {
          summary: 'Revoke an embed session',
          description:
            "204 also for unknown or already revoked ids, and for sessions of deployments outside a scoped key's scope (left alone). The session's tokens stop working at once.",
          tags: ['Embed'],
          security: ADMIN_SECURITY,
        },
      },
    )
}

/**
 * The embed-tenant admin routes: a tenant's groups listed and deleted, the tenant deleted with everything scoped to
 * it, and the two user-attribute routes v0.2.0 removed, which answer 404 saying so.
 */
function embedTenantRoutes(deps: EmbedDeps) {
  const tenants = createEmbedTenantAdmin(deps.storage)
  // The key's policy applies here as on the management API: a tenant's groups are content to read, and deleting
  // them, or the tenant with its dashboards, is deleting content (a viewer key reads only).
  const requirePolicy = async (caller: ApiKeyCaller, action: PolicyAction) =>
    requireAction(await actorOf(deps.storage, caller), action)
  return new Elysia({ name: 'embed-tenants', seed: deps.instanceId })
    .use(authPlugin(deps))
    .get(
      `${TENANTS}/groups`,
      async ({ caller, params, query }) => {
        await requirePolicy(caller, 'ContentRead')
        return tenants.listGroups(caller.accountId, params.embedTenantName, query.first, query.after)
      },
      {
        adminKey: true,
        params: EmbedTenantParams,
        query: GroupsQuery,
        response: { 200: EmbedTenantGroupsPage },
        detail: {
          summary: 'List the groups of an embed tenant',
          description:
            'Groups bootstrapped with `groupDefinitions`, oldest first. Cursor pagination: `first` (default 20, at most 100) and `after` (the previous `endCursor`). Admin key whose policy has ContentRead.',
          tags: ['Embed tenants'],
          security: ADMIN_SECURITY,
        },
      },
    )
    .delete(
      `${TENANTS}/groups/:id`,
      async ({ caller, params, set }) => {
        assertAccountWide(caller, 'Deleting an embed tenant group')
        await requirePolicy(caller, 'ContentManage')
        await tenants.deleteGroup(caller.accountId, params.embedTenantName, params.id)
        set.status = 204
        return null
      },
      {
        adminKey: true,
        ...noBody,
        params: EmbedTenantGroupParams,
        detail: {
          summary: 'Delete a group of an embed tenant',
          description:
            'Its memberships go with it. Unscoped admin key (a tenant spans deployments) whose policy has ContentManage.',
          tags: ['Embed tenants'],
          security: ADMIN_SECURITY,
        },
      },
    )
    .delete(
      TENANTS,
      async ({ caller, params, set }) => {
        assertAccountWide(caller, 'Deleting an embed tenant')
        await requirePolicy(caller, 'ContentManage')
        await tenants.deleteTenant(caller.accountId, params.embedTenantName)
        set.status = 204
        return null
      },
      {
        adminKey: true,
        ...noBody,
        params: EmbedTenantParams,
        detail: {
          operationId: 'deleteEmbedTenant',
          summary: 'Delete an embed tenant',
          description:
            'Deletes the tenant and everything scoped to it: groups, memberships, attribute definitions and values, sessions, dashboards. Unscoped admin key (a tenant spans deployments) whose policy has ContentManage. A trailing slash is accepted.',
          tags: ['Embed tenants'],
          security: ADMIN_SECURITY,
        },
      },
    )
    .get(`${TENANTS}/user-attributes`, () => removedInV020('Listing embed-tenant user attributes'), {
      params: EmbedTenantParams,
      // Gone since v0.2.0: left out of the API document, while the address answers 404 saying it was removed.
      detail: { hide: true },
    })
    .delete(`${TENANTS}/user-attributes/:id`, () => removedInV020('Deleting embed-tenant user attributes'), {
      ...noBody,
      params: EmbedTenantGroupParams,
      // Gone since v0.2.0: left out of the API document, while the address answers 404 saying it was removed.
      detail: { hide: true },
    })
}
