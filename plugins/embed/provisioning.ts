import { and, eq, sql } from 'drizzle-orm'
import { transaction, type Storage } from '../../db/client'
import { accounts, userAttributeValues, users, type AttributeValue } from '../../db/schema'
import { BadRequestError, ForbiddenError } from '../../src/errors'
import type { ResolvedUser, UserAccess, UserProvisioner } from '../auth/user-access'
import { assertAttributeValue, assertUniqueNames } from './attribute-values'
import { replaceMemberships, resolveAttributes, resolveGroups, type CatalogScope } from './catalog'
import { checkIdentity, checkPictureUrl, FORBIDDEN_WITH_INTERNAL_ID, normalizeIdentity, type Identity } from './identity'
import type { SessionSettings, UserAttributeInput } from './session-settings'

/** What one provisioning call may change of a user; the fields of generate-session and chat `sessionSettings`. */
export interface ProvisionRequest {
  accountId: number
  identity: Identity
  email?: string
  userProfile?: { displayName?: string; picture?: string }
  groups?: readonly string[]
  userAttributes?: readonly UserAttributeInput[]
  securityContext?: Record<string, unknown>
  /** Membership in the embed tenant's tenant groups (creator mode only; needs `scope.embedTenantId`). */
  tenantGroups?: readonly string[]
  /** Where `groups` and `userAttributes` resolve: tenant-wide, or the embed tenant's scoped catalog in creator mode. */
  scope: CatalogScope
}

/** The user's groups, attribute values and security context as one session or request sees them. */
export interface AccessSnapshot {
  groups: string[]
  userAttributes: Record<string, AttributeValue>
  securityContext: Record<string, unknown>
}

export interface Provisioning extends UserProvisioner {
  /**
   * Applies `request` without opening a transaction: the caller runs it inside one (generate-session runs its
   * definitions, provisioning and the session insert in a single transaction). Every check runs before any write.
   */
  provision(request: ProvisionRequest): ResolvedUser
  /** Tenant-wide access plus, for an embed tenant, that tenant's scoped groups and attributes (which win on a name clash). */
  snapshot(userId: number, embedTenantId: number | null): AccessSnapshot
}

/**
 * The user provisioning rules of spec 2.3 and 2.6 to 2.9, shared by generate-session, chat `sessionSettings`,
 * service tokens and `.../sql`: one implementation so the three entry points can never disagree on who a user is
 * or what they may see. Public calls each run in one transaction.
 */
export function createUserProvisioner(storage: Storage, clock: () => number): Provisioning {
  const { db, sqlite } = storage
  const groupNames = sqlite.query<{ name: string }, [number, number]>(
    `SELECT g.name AS name FROM group_memberships m JOIN groups g ON g.id = m.group_id
      WHERE m.user_id = ? AND g.namespace = 'group' AND (g.embed_tenant_id IS NULL OR g.embed_tenant_id = ?)
      ORDER BY g.name`,
  )
  const attributeValues = sqlite.query<{ name: string; value: string }, [number, number]>(
    `SELECT d.name AS name, v.value AS value FROM user_attribute_values v
       JOIN user_attribute_definitions d ON d.id = v.attribute_id
      WHERE v.user_id = ? AND (d.embed_tenant_id IS NULL OR d.embed_tenant_id = ?)
      ORDER BY d.embed_tenant_id IS NOT NULL, d.name`,
  )
  const securityContextOf = sqlite.query<{ securityContext: string | null }, [number]>(
    'SELECT security_context AS securityContext FROM users WHERE id = ?',
  )

  function snapshot(userId: number, embedTenantId: number | null): AccessSnapshot {
    // 0 never names a tenant (ids start at 1), so it selects the tenant-wide rows only.
    const tenant = embedTenantId ?? 0
    const userAttributes: Record<string, AttributeValue> = {}
    for (const row of attributeValues.all(userId, tenant)) userAttributes[row.name] = JSON.parse(row.value) as AttributeValue
    const stored = securityContextOf.get(userId)?.securityContext
    return {
      groups: [...new Set(groupNames.all(userId, tenant).map((row) => row.name))],
      userAttributes,
      securityContext: stored ? (JSON.parse(stored) as Record<string, unknown>) : {},
    }
  }

  function accessOf(userId: number): UserAccess {
    return { userId, ...snapshot(userId, null) }
  }

  function findUser(accountId: number, kind: 'internal' | 'external', identity: string) {
    return db
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.accountId, accountId), eq(users.kind, kind), eq(users.identity, identity)))
      .get()
  }

  /** Creates the external user, 403 once the account holds its `max_external_users`. */
  function createExternalUser(accountId: number, externalId: string, now: number): number {
    const account = db.select({ limit: accounts.maxExternalUsers }).from(accounts).where(eq(accounts.id, accountId)).get()
    const count =
      db
        .select({ count: sql<number>`count(*)` })
        .from(users)
        .where(and(eq(users.accountId, accountId), eq(users.kind, 'external')))
        .get()?.count ?? 0
    if (!account || count >= account.limit)
      throw new ForbiddenError(
        `External user limit reached: the account may have at most ${account?.limit ?? 0} external users`,
        'EXTERNAL_USER_LIMIT',
      )
    return db
      .insert(users)
      .values({ accountId, kind: 'external', identity: externalId, createdAt: now, updatedAt: now })
      .returning({ id: users.id })
      .get().id
  }

  function provision(request: ProvisionRequest): ResolvedUser {
    const { accountId, identity, scope } = request
    const attributes = request.userAttributes ?? []
    // Checks first, writes after: a failing call must not depend on the transaction to look clean.
    assertUniqueNames('userAttributes', attributes.map((attribute) => attribute.name), 'DUPLICATE_USER_ATTRIBUTE')
    if (request.userProfile?.picture !== undefined) checkPictureUrl(request.userProfile.picture)
    if (request.tenantGroups !== undefined && scope.embedTenantId === null)
      throw new BadRequestError('tenantGroups requires an embed tenant', 'EMBED_TENANT_REQUIRED')
    const groupIds = request.groups === undefined ? undefined : resolveGroups(db, scope, 'group', request.groups)
    const tenantGroupIds =
      request.tenantGroups === undefined ? undefined : resolveGroups(db, scope, 'tenant_group', request.tenantGroups)
    const definitions = resolveAttributes(db, scope, attributes.map((attribute) => attribute.name))
    for (const attribute of attributes)
      if (attribute.value !== null) assertAttributeValue(attribute.name, definitions.get(attribute.name)!.type, attribute.value)

    const now = clock()
    let userId: number
    if (identity.kind === 'internal') {
      const found = findUser(accountId, 'internal', identity.username)
      if (!found) throw new BadRequestError(`Internal user ${identity.username} not found`, 'INTERNAL_USER_NOT_FOUND')
      userId = found.id
    } else {
      userId = findUser(accountId, 'external', identity.externalId)?.id ?? createExternalUser(accountId, identity.externalId, now)
      const email = request.email?.trim()
      db.update(users)
        .set({
          updatedAt: now,
          ...(email !== undefined && { email: email === '' ? null : email }),
          ...(request.userProfile?.displayName !== undefined && { displayName: request.userProfile.displayName }),
          ...(request.userProfile?.picture !== undefined && { picture: request.userProfile.picture }),
          ...(request.securityContext !== undefined && { securityContext: request.securityContext }),
        })
        .where(eq(users.id, userId))
        .run()
    }

    for (const attribute of attributes) {
      const attributeId = definitions.get(attribute.name)!.id
      if (attribute.value === null) {
        db.delete(userAttributeValues)
          .where(and(eq(userAttributeValues.userId, userId), eq(userAttributeValues.attributeId, attributeId)))
          .run()
      } else {
        db.insert(userAttributeValues)
          .values({ userId, attributeId, value: attribute.value })
          .onConflictDoUpdate({ target: [userAttributeValues.userId, userAttributeValues.attributeId], set: { value: attribute.value } })
          .run()
      }
    }
    if (groupIds !== undefined) replaceMemberships(db, userId, scope, 'group', groupIds)
    if (tenantGroupIds !== undefined) replaceMemberships(db, userId, scope, 'tenant_group', tenantGroupIds)
    return { userId, kind: identity.kind, access: accessOf(userId) }
  }

  return {
    provision,
    snapshot,
    accessOf,
    fromSessionSettings(accountId: number, settings: SessionSettings): ResolvedUser {
      const identity = checkIdentity(settings, FORBIDDEN_WITH_INTERNAL_ID)
      return transaction(storage, () =>
        provision({
          accountId,
          identity,
          email: settings.email,
          groups: settings.groups,
          userAttributes: settings.userAttributes,
          securityContext: settings.securityContext,
          scope: { accountId, embedTenantId: null },
        }),
      )
    },
    fromExternalId(accountId: number, externalId: string, securityContext?: Record<string, unknown>): ResolvedUser {
      const id = normalizeIdentity(externalId)
      if (id === '') throw new BadRequestError('externalId must not be blank', 'BLANK_IDENTITY')
      const userId = transaction(storage, () => findUser(accountId, 'external', id)?.id ?? createExternalUser(accountId, id, clock()))
      const access = accessOf(userId)
      // The token's own context applies to its requests; the stored user is left as it was.
      return { userId, kind: 'external', access: securityContext === undefined ? access : { ...access, securityContext } }
    },
  }
}
