import { transaction, type Storage } from '../../db/client'
import type { AttributeValue, users } from '../../db/schema'
import { BadRequestError, ForbiddenError } from '../../lib/errors'
import { normalizeIdentity } from '../auth/normalize-identity'
import type { ResolvedUser, UserAccess, UserProvisioner } from '../auth/user-access'
import { assertAttributeValue, assertUniqueNames } from './attribute-values'
import { createCatalogQueries, type CatalogScope } from './catalog'
import { checkIdentity, checkPictureUrl, type Identity } from './identity'
import type { SessionSettings, UserAttributeInput } from '../auth/session-settings'

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

/** Byte order of the UTF-8 text, as SQLite's default collation sorts (not UTF-16 units, as `sort()` would). */
function byText(left: string, right: string): number {
  return Buffer.compare(Buffer.from(left), Buffer.from(right))
}

/** The stored profile of a user, as provisioning compares it: the security context as its stored JSON text. */
type StoredUser = Pick<typeof users.$inferSelect, 'id' | 'email' | 'displayName' | 'picture'> & {
  securityContext: string | null
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
 * The user provisioning rules (identity, profile, attribute values, group memberships), shared by generate-session, chat `sessionSettings`,
 * service tokens and `.../sql`: one implementation so the three entry points can never disagree on who a user is
 * or what they may see. Public calls each run in one transaction.
 */
export function createUserProvisioner(storage: Storage, clock: () => number): Provisioning {
  const { sqlite } = storage
  const catalog = createCatalogQueries(sqlite)
  // Single-table reads with scalar subqueries, filtered and sorted here: in this SQLite a JOIN costs about ten times
  // as much per execution as these, and the snapshot is read on every chat request.
  const membershipNames = sqlite.query<{ name: string | null }, [number, number]>(
    `SELECT (SELECT name FROM groups g
              WHERE g.id = m.group_id AND g.namespace = 'group' AND (g.embed_tenant_id IS NULL OR g.embed_tenant_id = ?)) AS name
       FROM group_memberships m WHERE m.user_id = ?`,
  )
  const attributeValues = sqlite.query<{ name: string | null; tenant: number | null; value: string }, [number]>(
    `SELECT (SELECT name FROM user_attribute_definitions d WHERE d.id = v.attribute_id) AS name,
            (SELECT embed_tenant_id FROM user_attribute_definitions d WHERE d.id = v.attribute_id) AS tenant, value
       FROM user_attribute_values v WHERE v.user_id = ?`,
  )
  const securityContextOf = sqlite.query<{ securityContext: string | null }, [number]>(
    'SELECT security_context AS securityContext FROM users WHERE id = ?',
  )
  const userByIdentity = sqlite.query<StoredUser, [number, string, string]>(
    `SELECT id, email, display_name AS displayName, picture, security_context AS securityContext
       FROM users WHERE account_id = ? AND kind = ? AND identity = ?`,
  )
  // The counter table is kept by triggers on users (migration 0005): one row read instead of a count(*).
  const externalUserRoom = sqlite.query<{ limit: number; count: number }, [number]>(
    `SELECT max_external_users AS "limit", ifnull((SELECT count FROM external_user_counts c WHERE c.account_id = a.id), 0) AS count
       FROM accounts a WHERE a.id = ?`,
  )
  const insertUser = sqlite.query<
    { id: number },
    [number, string, string | null, string | null, string | null, string | null, number, number]
  >(
    `INSERT INTO users (account_id, kind, identity, email, display_name, picture, security_context, created_at, updated_at)
     VALUES (?, 'external', ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
  )
  const updateUser = sqlite.query<never, [string | null, string | null, string | null, string | null, number, number]>(
    'UPDATE users SET email = ?, display_name = ?, picture = ?, security_context = ?, updated_at = ? WHERE id = ?',
  )
  const storedValues = sqlite.query<{ attributeId: number; value: string }, [number]>(
    'SELECT attribute_id AS attributeId, value FROM user_attribute_values WHERE user_id = ?',
  )
  const upsertValue = sqlite.query<never, [number, number, string]>(
    `INSERT INTO user_attribute_values (user_id, attribute_id, value) VALUES (?, ?, ?)
       ON CONFLICT (user_id, attribute_id) DO UPDATE SET value = excluded.value`,
  )
  const deleteValue = sqlite.query<never, [number, number]>(
    'DELETE FROM user_attribute_values WHERE user_id = ? AND attribute_id = ?',
  )

  function snapshot(userId: number, embedTenantId: number | null): AccessSnapshot {
    // 0 never names a tenant (ids start at 1), so it selects the tenant-wide rows only.
    const tenant = embedTenantId ?? 0
    // Tenant-wide values first, then the tenant's (which win on a name clash), each by name.
    const values = attributeValues
      .all(userId)
      .filter(
        (row): row is typeof row & { name: string } =>
          row.name !== null && (row.tenant === null || row.tenant === tenant),
      )
      .sort(
        (left, right) => Number(left.tenant !== null) - Number(right.tenant !== null) || byText(left.name, right.name),
      )
    const userAttributes: Record<string, AttributeValue> = {}
    for (const row of values) userAttributes[row.name] = JSON.parse(row.value) as AttributeValue
    const names = membershipNames.all(tenant, userId).flatMap((row) => (row.name === null ? [] : [row.name]))
    const stored = securityContextOf.get(userId)?.securityContext
    return {
      groups: [...new Set(names)].sort(byText),
      userAttributes,
      securityContext: stored ? (JSON.parse(stored) as Record<string, unknown>) : {},
    }
  }

  function accessOf(userId: number): UserAccess {
    return { userId, ...snapshot(userId, null) }
  }

  /** 403 once the account holds its `max_external_users`. */
  function assertRoomForExternalUser(accountId: number): void {
    const room = externalUserRoom.get(accountId)
    if (!room || room.count >= room.limit)
      throw new ForbiddenError(
        `External user limit reached: the account may have at most ${room?.limit ?? 0} external users`,
        'EXTERNAL_USER_LIMIT',
      )
  }

  /**
   * Creates the external user or updates the fields the request sends. The profile of a known user is written only
   * when it changes: repeated requests of one user (every chat request names it again) then write nothing.
   */
  function upsertExternalUser(request: ProvisionRequest, externalId: string, now: number): number {
    const email = request.email?.trim()
    const stored = userByIdentity.get(request.accountId, 'external', externalId)
    const wanted = {
      email: email !== undefined ? (email === '' ? null : email) : (stored?.email ?? null),
      displayName: request.userProfile?.displayName ?? stored?.displayName ?? null,
      picture: request.userProfile?.picture ?? stored?.picture ?? null,
      securityContext:
        request.securityContext !== undefined
          ? JSON.stringify(request.securityContext)
          : (stored?.securityContext ?? null),
    }
    if (!stored) {
      assertRoomForExternalUser(request.accountId)
      return insertUser.get(
        request.accountId,
        externalId,
        wanted.email,
        wanted.displayName,
        wanted.picture,
        wanted.securityContext,
        now,
        now,
      )!.id
    }
    if (
      wanted.email !== stored.email ||
      wanted.displayName !== stored.displayName ||
      wanted.picture !== stored.picture ||
      wanted.securityContext !== stored.securityContext
    )
      updateUser.run(wanted.email, wanted.displayName, wanted.picture, wanted.securityContext, now, stored.id)
    return stored.id
  }

  function provision(request: ProvisionRequest): ResolvedUser {
    const { accountId, identity, scope } = request
    const attributes = request.userAttributes ?? []
    // Checks first, writes after: a failing call must not depend on the transaction to look clean.
    assertUniqueNames(
      'userAttributes',
      attributes.map((attribute) => attribute.name),
      'DUPLICATE_USER_ATTRIBUTE',
    )
    if (request.userProfile?.picture !== undefined) checkPictureUrl(request.userProfile.picture)
    if (request.tenantGroups !== undefined && scope.embedTenantId === null)
      throw new BadRequestError('tenantGroups requires an embed tenant', 'EMBED_TENANT_REQUIRED')
    const groupIds = request.groups === undefined ? undefined : catalog.resolveGroups(scope, 'group', request.groups)
    const tenantGroupIds =
      request.tenantGroups === undefined
        ? undefined
        : catalog.resolveGroups(scope, 'tenant_group', request.tenantGroups)
    const definitions = catalog.resolveAttributes(
      scope,
      attributes.map((attribute) => attribute.name),
    )
    for (const attribute of attributes)
      if (attribute.value !== null)
        assertAttributeValue(attribute.name, definitions.get(attribute.name)!.type, attribute.value)

    const now = clock()
    let userId: number
    if (identity.kind === 'internal') {
      const found = userByIdentity.get(accountId, 'internal', identity.username)
      if (!found) throw new BadRequestError(`Internal user ${identity.username} not found`, 'INTERNAL_USER_NOT_FOUND')
      userId = found.id
    } else {
      userId = upsertExternalUser(request, identity.externalId, now)
    }

    if (attributes.length > 0) {
      // Values are stored as JSON text; an unchanged value is not written again.
      const current = new Map(storedValues.all(userId).map((row) => [row.attributeId, row.value]))
      for (const attribute of attributes) {
        const attributeId = definitions.get(attribute.name)!.id
        if (attribute.value === null) {
          if (current.has(attributeId)) deleteValue.run(userId, attributeId)
        } else {
          const value = JSON.stringify(attribute.value)
          if (current.get(attributeId) !== value) upsertValue.run(userId, attributeId, value)
        }
      }
    }
    if (groupIds !== undefined) catalog.replaceMemberships(userId, scope, 'group', groupIds)
    if (tenantGroupIds !== undefined) catalog.replaceMemberships(userId, scope, 'tenant_group', tenantGroupIds)
    return { userId, kind: identity.kind, access: accessOf(userId) }
  }

  return {
    provision,
    snapshot,
    accessOf,
    fromSessionSettings(accountId: number, settings: SessionSettings): ResolvedUser {
      const identity = checkIdentity(settings)
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
    find(accountId: number, settings: { externalId?: string; internalId?: string }): number | undefined {
      const kind = settings.externalId !== undefined ? 'external' : 'internal'
      return userByIdentity.get(accountId, kind, normalizeIdentity(settings.externalId ?? settings.internalId ?? ''))
        ?.id
    },
    fromExternalId(accountId: number, externalId: string, securityContext?: Record<string, unknown>): ResolvedUser {
      const id = normalizeIdentity(externalId)
      if (id === '') throw new BadRequestError('externalId must not be blank', 'BLANK_IDENTITY')
      const userId = transaction(storage, () => {
        const found = userByIdentity.get(accountId, 'external', id)
        if (found) return found.id
        assertRoomForExternalUser(accountId)
        const now = clock()
        return insertUser.get(accountId, id, null, null, null, null, now, now)!.id
      })
      const access = accessOf(userId)
      // The token's own context applies to its requests; the stored user is left as it was.
      return {
        userId,
        kind: 'external',
        access: securityContext === undefined ? access : { ...access, securityContext },
      }
    },
  }
}
