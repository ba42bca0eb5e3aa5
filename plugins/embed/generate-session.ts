import { and, eq } from 'drizzle-orm'
import { first, type Db, type Storage } from '../../db/client'
import { BadRequestError, ForbiddenError } from '../../lib/errors'
import { assertDeploymentInScope, authorizeDeployment } from '../auth/deployment-authorization'
import type { Directory } from '../auth/directory'
import type { ApiKeyCaller } from '../auth/model'
import type { CatalogScope } from './catalog'
import { checkDefinitions, upsertAttributeDefinitions, upsertGroupDefinitions } from './catalog-definitions'
import { checkIdentity } from './identity'
import type { GenerateSessionBody } from './model'
import type { Provisioning } from './provisioning'
import type { SessionStore } from './sessions'

/** Fields that only make sense in a creator-mode session (tenant groups are creator-mode groups). */
const CREATOR_MODE_FIELDS = [
  'groupDefinitions',
  'userAttributeDefinitions',
  'tenantGroupDefinitions',
  'tenantGroups',
] as const

const EMBED_PLANS = new Set(['premium', 'enterprise'])

export interface GenerateSessionDeps {
  storage: Storage
  clock: () => number
  directory: Directory
  provisioning: Provisioning
  sessions: SessionStore
}

/**
 * `POST /api/v1/embed/generate-session`: checks the caller and the request, then in ONE
 * transaction resolves or creates the embed tenant, upserts creator-mode
 * definitions (all checked before any is written), provisions the user and mints the session with a snapshot of
 * the user's access. Any error rolls everything back.
 */
export function createSessionGenerator(deps: GenerateSessionDeps) {
  const { storage, clock, directory, provisioning, sessions } = deps
  const { tables } = storage
  const { embedTenants } = tables

  /** The named tenant of the account, created (without creator mode) when it does not exist yet. */
  async function findOrCreateTenant(tx: Db, accountId: number, name: string) {
    const columns = { id: embedTenants.id, useCreatorMode: embedTenants.useCreatorMode }
    const find = () =>
      first(
        tx
          .select(columns)
          .from(embedTenants)
          .where(and(eq(embedTenants.accountId, accountId), eq(embedTenants.name, name))),
      )
    const existing = await find()
    if (existing) return existing
    const [created] = await tx
      .insert(embedTenants)
      .values({ accountId, name, createdAt: clock() })
      // A concurrent session created it first (possible on Postgres, where transactions overlap): use that one.
      .onConflictDoNothing({ target: [embedTenants.accountId, embedTenants.name] })
      .returning(columns)
    return created ?? (await find())!
  }

  return async function generateSession(
    caller: ApiKeyCaller,
    body: GenerateSessionBody,
  ): Promise<{ sessionId: string }> {
    const account = await directory.account(caller.accountId)
    if (!account || !EMBED_PLANS.has(account.plan))
      throw new ForbiddenError(
        'Embed sessions are available on the premium and enterprise plans only',
        'PLAN_NOT_ELIGIBLE',
      )
    // A deployment-scoped key may mint sessions only for a deploymentId within its scope, else 403: checked before
    // the deployment is looked up, so one outside the scope is 403 whether or not it exists.
    assertDeploymentInScope(caller, body.deploymentId)
    const deployment = await authorizeDeployment(caller, body.deploymentId, directory)
    const identity = checkIdentity(body)
    const creatorMode = body.creatorMode === true
    if (!creatorMode) {
      const sent = CREATOR_MODE_FIELDS.find((field) => body[field] !== undefined)
      if (sent) throw new BadRequestError(`${sent} requires creatorMode: true`, 'CREATOR_MODE_REQUIRED')
    }
    if (creatorMode && body.embedTenantName === undefined)
      throw new BadRequestError('creatorMode requires embedTenantName', 'EMBED_TENANT_REQUIRED')
    if (body.embedTenantProfile !== undefined && body.embedTenantName === undefined)
      throw new BadRequestError('embedTenantProfile requires embedTenantName', 'EMBED_TENANT_REQUIRED')

    // One transaction: any error rolls back the tenant, the definitions, the user and the session together.
    const { sessionId, userId } = await storage.transaction(async (tx) => {
      await sessions.prune(tx)
      const tenant =
        body.embedTenantName === undefined ? undefined : await findOrCreateTenant(tx, account.id, body.embedTenantName)
      if (creatorMode && !tenant?.useCreatorMode)
        throw new ForbiddenError(
          `Creator mode is not enabled for embed tenant ${body.embedTenantName}`,
          'CREATOR_MODE_DISABLED',
        )
      const displayName = body.embedTenantProfile?.displayName
      if (tenant && displayName !== undefined)
        await tx.update(embedTenants).set({ displayName }).where(eq(embedTenants.id, tenant.id))

      const tenantScope: CatalogScope = { accountId: account.id, embedTenantId: tenant?.id ?? null }
      if (creatorMode) {
        await checkDefinitions(tx, tables, tenantScope, body)
        const now = clock()
        await upsertGroupDefinitions(tx, tables, tenantScope, 'group', body.groupDefinitions ?? [], now)
        await upsertGroupDefinitions(tx, tables, tenantScope, 'tenant_group', body.tenantGroupDefinitions ?? [], now)
        await upsertAttributeDefinitions(tx, tables, tenantScope, body.userAttributeDefinitions ?? [], now)
      }

      const user = await provisioning.provision(tx, {
        accountId: account.id,
        identity,
        email: body.email,
        userProfile: body.userProfile,
        groups: body.groups,
        userAttributes: body.userAttributes,
        securityContext: body.securityContext,
        tenantGroups: body.tenantGroups,
        scope: creatorMode ? tenantScope : { accountId: account.id, embedTenantId: null },
      })
      // Without a tenant the session sees what provisioning just read back; with one, the tenant's rows join in.
      const { groups, userAttributes, securityContext } = tenant
        ? await provisioning.snapshot(tx, user.userId, tenant.id)
        : user.access
      const sessionId = await sessions.mint(tx, {
        accountId: account.id,
        deploymentId: deployment.id,
        userId: user.userId,
        embedTenantId: tenant?.id ?? null,
        creatorMode,
        settings: body.settings ?? {},
        groups,
        userAttributes,
        securityContext,
      })
      return { sessionId, userId: user.userId }
    })
    // Committed: the nodes that keep users' access in memory read this one again.
    provisioning.changed(account.id, userId)
    return { sessionId }
  }
}
