import type { Db, Storage } from '../../db/client'
import type { AttributeValue, users } from '../../db/schema'
import { BadRequestError, ForbiddenError } from '../../lib/errors'
import { normalizeIdentity } from '../auth/normalize-identity'
import type { ResolvedUser, UserAccess, UserProvisioner } from '../auth/user-provisioner'
import type { UserChanges } from '../auth/user-changes'
import { assertAttributeValue, assertUniqueNames, readDefaultValue } from './attribute-values'
import { createCatalogQueries, type CatalogScope } from './catalog'
import { CHAT_FORBIDDEN_WITH_INTERNAL_ID, checkEmail, checkIdentity, checkPictureUrl, type Identity } from './identity'
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
  /** Whether the user has any group membership (1) or none (0), in any scope. */
  hasMemberships: number
  /** Whether the user has any attribute value (1) or none (0). */
  hasAttributeValues: number
  /** Whether the user's account has any attribute definition with a default value (1) or none (0). */
  hasAttributeDefaults: number
}

/** What a caller already read of the user the access snapshot is for, so the snapshot need not read it again. */
interface KnownUser {
  /** As stored (JSON text). */
  securityContext: string | null
  /** False when the user has none (undefined: unknown, read them). */
  hasMemberships?: boolean
  hasAttributeValues?: boolean
  hasAttributeDefaults?: boolean
}

/**
 * Thrown by a read-only provisioning pass at its first write: the call then runs again in a transaction. A user named
 * as stored (every chat request of a user names it again) is resolved by reads alone, without a transaction: on
 * Postgres a transaction is two more round trips and prepares its statements anew; on SQLite it takes the file's write
 * lock, which other processes on the file (WORKERS) wait for.
 */
class WriteNeeded extends Error {}

/** Lets a provisioning pass write, or (read-only) stops it at its first write. */
type BeforeWrite = () => void
const writesAllowed: BeforeWrite = () => {}
const readOnly: BeforeWrite = () => {
  throw new WriteNeeded('provisioning would write')
}

/** The user's groups, attribute values and security context as one session or request sees them. */
export interface AccessSnapshot {
  groups: string[]
  userAttributes: Record<string, AttributeValue>
  securityContext: Record<string, unknown>
}

export interface Provisioning extends UserProvisioner {
  /**
   * Applies `request` in the caller's transaction `tx` (generate-session runs its definitions, provisioning and the
   * session insert in a single transaction). Every check runs before any write.
   */
  provision(tx: Db, request: ProvisionRequest): Promise<ResolvedUser>
  /** Tenant-wide access plus, for an embed tenant, that tenant's scoped groups and attributes (which win on a name clash). */
  snapshot(tx: Db, userId: number, embedTenantId: number | null): Promise<AccessSnapshot>
  /** Announces that `provision` in a caller's transaction changed the user: called once that is committed. */
  changed(accountId: number, userId: number): void
}

/**
 * How old a user's access kept in memory may be (see `createUserProvisioner`): a change is announced to every node at
 * once, and this bounds it should the announcement be lost.
 */
export const USERS_MAX_AGE_MS = 5_000

/** How many users' access a node keeps in memory at most (the oldest go first). */
const USERS_KEPT = 10_000

/** Whether `sessionSettings` only names the user: provisioning it changes nothing stored, it only reads the user. */
const namesOnly = (settings: SessionSettings) =>
  settings.email === undefined &&
  settings.groups === undefined &&
  settings.userAttributes === undefined &&
  settings.securityContext === undefined

type UserQueries = ReturnType<Storage['repositories']['embedUsers']>

/** Reads what a user may see: their groups, attribute values and security context. */
function createAccessReader(queries: UserQueries) {
  const { membershipNames, attributeValues, attributeDefaults, securityContextOf } = queries

  async function snapshot(
    tx: Db,
    userId: number,
    embedTenantId: number | null,
    known?: KnownUser,
  ): Promise<AccessSnapshot> {
    // 0 never names a tenant (ids start at 1), so it selects the tenant-wide rows only.
    const tenant = embedTenantId ?? 0
    // Tenant-wide values first, then the tenant's (which win on a name clash), each by name.
    const values = (known?.hasAttributeValues === false ? [] : await attributeValues(tx).execute({ userId }))
      .filter(
        (row): row is typeof row & { name: string; value: string } =>
          row.name !== null && row.value !== null && (row.tenant === null || row.tenant === tenant),
      )
      .sort(
        (left, right) => Number(left.tenant !== null) - Number(right.tenant !== null) || byText(left.name, right.name),
      )
    const userAttributes: Record<string, AttributeValue> = {}
    for (const row of values) userAttributes[row.name] = JSON.parse(row.value) as AttributeValue
    // A definition's default stands in for a value the user does not have: the tenant's default before the
    // tenant-wide one, and any value of the user before either.
    if (known?.hasAttributeDefaults !== false) {
      const defaults = (await attributeDefaults(tx).execute({ userId, tenant })).sort(
        (left, right) => Number(right.tenant !== null) - Number(left.tenant !== null) || byText(left.name, right.name),
      )
      for (const row of defaults) {
        const value = Object.hasOwn(userAttributes, row.name) ? undefined : readDefaultValue(row.type, row.defaultValue)
        if (value !== undefined) userAttributes[row.name] = value
      }
    }
    const names = (
      known?.hasMemberships === false ? [] : await membershipNames(tx).execute({ tenant, userId })
    ).flatMap((row) => (row.name === null ? [] : [row.name]))
    const securityContext = known
      ? known.securityContext
      : (await securityContextOf(tx).execute({ userId }))[0]?.securityContext
    return {
      groups: [...new Set(names)].sort(byText),
      userAttributes,
      securityContext: securityContext ? (JSON.parse(securityContext) as Record<string, unknown>) : {},
    }
  }

  async function accessIn(tx: Db, userId: number, known?: KnownUser): Promise<UserAccess> {
    return { userId, ...(await snapshot(tx, userId, null, known)) }
  }

  return { snapshot, accessIn }
}

/** What the identity lookup told of the user's access. */
const knownFrom = (user: StoredUser): KnownUser => ({
  securityContext: user.securityContext,
  hasMemberships: user.hasMemberships === 1,
  hasAttributeValues: user.hasAttributeValues === 1,
  hasAttributeDefaults: user.hasAttributeDefaults === 1,
})

/** Finds, creates and updates stored users by their identity, within the external user limit. */
function createUserRecords(queries: UserQueries) {
  const { userByIdentity, externalUserRoom, insertUser, updateUser } = queries

  async function findUser(tx: Db, accountId: number, kind: 'internal' | 'external', identity: string) {
    const [found] = await userByIdentity(tx).execute({ accountId, kind, identity })
    return found as StoredUser | undefined
  }

  /**
   * Inserts the external user; undefined when a concurrent transaction created it first. The limit is checked after
   * the insert, in the same transaction, so the 403 rolls it back: the insert's trigger has then raised the counter,
   * and a concurrent creation waits for that row until this transaction ends, so two requests can never both take
   * the last place (a check before the insert could not see the other's uncommitted user).
   */
  async function insertExternalUser(
    tx: Db,
    accountId: number,
    identity: string,
    profile: Pick<StoredUser, 'email' | 'displayName' | 'picture' | 'securityContext'>,
    now: number,
    beforeWrite: BeforeWrite = writesAllowed,
  ): Promise<number | undefined> {
    beforeWrite()
    const [inserted] = await insertUser(tx).execute({ accountId, identity, ...profile, now })
    if (!inserted) return undefined
    const [room] = await externalUserRoom(tx).execute({ accountId })
    if (!room || room.count > room.limit)
      throw new ForbiddenError(
        `External user limit reached: the account may have at most ${room?.limit ?? 0} external users`,
        'EXTERNAL_USER_LIMIT',
      )
    return inserted.id
  }

  /**
   * Creates the external user or updates the fields the request sends. The profile of a known user is written only
   * when it changes: repeated requests of one user (every chat request names it again) then write nothing. Resolves
   * with the user's id and what is known of its access as now stored.
   */
  async function upsertExternalUser(
    tx: Db,
    request: ProvisionRequest,
    externalId: string,
    now: number,
    beforeWrite: BeforeWrite,
  ): Promise<KnownUser & { id: number }> {
    const email = request.email?.trim()
    const stored = await findUser(tx, request.accountId, 'external', externalId)
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
      const created = await insertExternalUser(tx, request.accountId, externalId, wanted, now, beforeWrite)
      // Created concurrently: it is stored now, so this request updates it like any known user.
      if (created === undefined) return upsertExternalUser(tx, request, externalId, now, beforeWrite)
      return { id: created, securityContext: wanted.securityContext }
    }
    if (
      wanted.email !== stored.email ||
      wanted.displayName !== stored.displayName ||
      wanted.picture !== stored.picture ||
      wanted.securityContext !== stored.securityContext
    ) {
      beforeWrite()
      await updateUser(tx).execute({ ...wanted, now, userId: stored.id })
    }
    return { ...knownFrom(stored), id: stored.id, securityContext: wanted.securityContext }
  }

  return { findUser, insertExternalUser, upsertExternalUser }
}

/** Writes the attribute values a request sends; values are stored as JSON text, an unchanged one not again. */
async function writeAttributeValues(
  queries: UserQueries,
  tx: Db,
  userId: number,
  attributes: readonly UserAttributeInput[],
  definitions: Map<string, { id: number }>,
  beforeWrite: BeforeWrite,
): Promise<void> {
  const { storedValues, upsertValue, deleteValue } = queries
  const rows = await storedValues(tx).execute({ userId })
  const current = new Map(rows.map((row) => [row.attributeId, row.value]))
  for (const attribute of attributes) {
    const attributeId = definitions.get(attribute.name)!.id
    if (attribute.value === null) {
      if (current.has(attributeId)) {
        beforeWrite()
        await deleteValue(tx).execute({ userId, attributeId })
      }
    } else {
      const value = JSON.stringify(attribute.value)
      if (current.get(attributeId) !== value) {
        beforeWrite()
        await upsertValue(tx).execute({ userId, attributeId, value })
      }
    }
  }
}

/** Resolves a chat request's `sessionSettings` to its user, provisioning it first when the settings change it. */
type SessionSettingsResolver = (accountId: number, settings: SessionSettings) => Promise<ResolvedUser>

/**
 * `resolve`, with the users that settings name by identity alone (they change nothing stored) kept in memory: the user
 * each identity names and each user's access, as last read, for at most `USERS_MAX_AGE_MS`. A change heard on
 * `changes` forgets that user (all users when changes may have been missed); a read under way when one comes is
 * answered but not kept.
 */
function cachedByIdentity(resolve: SessionSettingsResolver, changes: UserChanges, clock: () => number) {
  const userIds = new Map<string, number>()
  const known = new Map<number, { user: ResolvedUser; readAt: number }>()
  // Counts the changes heard: a read under way when one comes is answered but not kept.
  let heard = 0
  changes.listen((change) => {
    heard++
    if (change) known.delete(change.userId)
    else known.clear()
  })
  const keep = <K, V>(map: Map<K, V>, key: K, value: V) => {
    map.delete(key)
    map.set(key, value)
    if (map.size > USERS_KEPT) map.delete(map.keys().next().value as K)
  }

  return async (accountId: number, settings: SessionSettings): Promise<ResolvedUser> => {
    if (!namesOnly(settings)) return resolve(accountId, settings)
    const identity = checkIdentity(settings, CHAT_FORBIDDEN_WITH_INTERNAL_ID)
    const key = `${accountId}:${identity.kind}:${identity.kind === 'internal' ? identity.username : identity.externalId}`
    const userId = userIds.get(key)
    const kept = userId === undefined ? undefined : known.get(userId)
    if (kept && clock() - kept.readAt < USERS_MAX_AGE_MS) return kept.user
    const before = heard
    const readAt = clock()
    const user = await resolve(accountId, settings)
    if (heard === before) {
      keep(userIds, key, user.userId)
      keep(known, user.userId, { user, readAt })
    }
    return user
  }
}

/**
 * The user provisioning rules (identity, profile, attribute values, group memberships), shared by generate-session, chat `sessionSettings`,
 * service tokens and `.../sql`: one implementation so the three entry points can never disagree on who a user is
 * or what they may see. Public calls that write each run in one transaction.
 *
 * With `changes` and `keepUsers` (several nodes on one database), a `sessionSettings` that only names a stored user (every chat turn
 * of an embedded app or a backend names it again) is answered from memory, off the turn's path to the shared
 * database: the user's access as last read, at most `USERS_MAX_AGE_MS` old. A provisioning that writes a user
 * announces it once committed (`UserChanges.publish`), and every node forgets that user at once. A node that serves
 * alone keeps no users (`keepUsers` false) but still announces, to whoever listens in the process.
 */
export function createUserProvisioner(
  storage: Storage,
  clock: () => number,
  changes?: UserChanges,
  keepUsers = changes !== undefined,
): Provisioning {
  const catalog = createCatalogQueries(storage)
  const queries = storage.repositories.embedUsers()
  const { snapshot, accessIn } = createAccessReader(queries)
  const { findUser, insertExternalUser, upsertExternalUser } = createUserRecords(queries)

  async function provision(
    tx: Db,
    request: ProvisionRequest,
    beforeWrite: BeforeWrite = writesAllowed,
  ): Promise<ResolvedUser> {
    const { accountId, identity, scope } = request
    const attributes = request.userAttributes ?? []
    // Checks first, writes after: a failing call must not depend on the transaction to look clean.
    assertUniqueNames(
      'userAttributes',
      attributes.map((attribute) => attribute.name),
      'DUPLICATE_USER_ATTRIBUTE',
    )
    if (request.email !== undefined) checkEmail(request.email)
    if (request.userProfile?.picture !== undefined) checkPictureUrl(request.userProfile.picture)
    if (request.tenantGroups !== undefined && scope.embedTenantId === null)
      throw new BadRequestError('tenantGroups requires an embed tenant', 'EMBED_TENANT_REQUIRED')
    const groupIds =
      request.groups === undefined ? undefined : await catalog.resolveGroups(tx, scope, 'group', request.groups)
    const tenantGroupIds =
      request.tenantGroups === undefined
        ? undefined
        : await catalog.resolveGroups(tx, scope, 'tenant_group', request.tenantGroups)
    const definitions = await catalog.resolveAttributes(
      tx,
      scope,
      attributes.map((attribute) => attribute.name),
    )
    for (const attribute of attributes)
      if (attribute.value !== null)
        assertAttributeValue(attribute.name, definitions.get(attribute.name)!.type, attribute.value)

    const now = clock()
    let user: KnownUser & { id: number }
    if (identity.kind === 'internal') {
      const found = await findUser(tx, accountId, 'internal', identity.username)
      if (!found) throw new BadRequestError(`Internal user ${identity.username} not found`, 'INTERNAL_USER_NOT_FOUND')
      user = { ...knownFrom(found), id: found.id }
    } else {
      user = await upsertExternalUser(tx, request, identity.externalId, now, beforeWrite)
    }
    const userId = user.id

    if (attributes.length > 0) await writeAttributeValues(queries, tx, userId, attributes, definitions, beforeWrite)
    if (groupIds !== undefined) await catalog.replaceMemberships(tx, userId, scope, 'group', groupIds, beforeWrite)
    if (tenantGroupIds !== undefined)
      await catalog.replaceMemberships(tx, userId, scope, 'tenant_group', tenantGroupIds, beforeWrite)
    // The security context was read (or written) above: the snapshot does not read it again, nor memberships and
    // values the identity lookup found none of, unless this call looked at them since (a concurrent call may have
    // written some meanwhile, and this one then left them as they were).
    const known: KnownUser = {
      securityContext: user.securityContext,
      hasMemberships: groupIds === undefined && tenantGroupIds === undefined ? user.hasMemberships : undefined,
      hasAttributeValues: attributes.length === 0 ? user.hasAttributeValues : undefined,
      hasAttributeDefaults: user.hasAttributeDefaults,
    }
    return { userId, kind: identity.kind, access: await accessIn(tx, userId, known) }
  }

  async function resolveSessionSettings(accountId: number, settings: SessionSettings): Promise<ResolvedUser> {
    const identity = checkIdentity(settings, CHAT_FORBIDDEN_WITH_INTERNAL_ID)
    const request: ProvisionRequest = {
      accountId,
      identity,
      email: settings.email,
      groups: settings.groups,
      userAttributes: settings.userAttributes,
      securityContext: settings.securityContext,
      scope: { accountId, embedTenantId: null },
    }
    try {
      return await storage.readCommitted((db) => provision(db, request, readOnly))
    } catch (error) {
      if (!(error instanceof WriteNeeded)) throw error
    }
    const written = await storage.transaction((tx) => provision(tx, request))
    changes?.publish({ accountId, userId: written.userId })
    return written
  }

  return {
    provision: (tx, request) => provision(tx, request),
    snapshot,
    accessOf: (userId: number) => accessIn(storage.db, userId),
    fromSessionSettings:
      changes && keepUsers
        ? cachedByIdentity(resolveSessionSettings, changes, clock)
        : (accountId: number, settings: SessionSettings) => resolveSessionSettings(accountId, settings),
    changed(accountId: number, userId: number): void {
      changes?.publish({ accountId, userId })
    },
    async find(accountId: number, settings: { externalId?: string; internalId?: string }): Promise<number | undefined> {
      // The same rules as provisioning: an externalId that is not lowercase and trimmed is 400, never normalized
      // into someone else's (an abort naming `Acme-7` must not stop the runs of `acme-7`).
      const identity = checkIdentity(settings, CHAT_FORBIDDEN_WITH_INTERNAL_ID)
      return identity.kind === 'external'
        ? (await findUser(storage.db, accountId, 'external', identity.externalId))?.id
        : (await findUser(storage.db, accountId, 'internal', identity.username))?.id
    },
    async fromExternalId(
      accountId: number,
      externalId: string,
      securityContext?: Record<string, unknown>,
    ): Promise<ResolvedUser> {
      const id = normalizeIdentity(externalId)
      if (id === '') throw new BadRequestError('externalId must not be blank', 'BLANK_IDENTITY')
      // A known user (every request of a token names it again) is found without a transaction (see `WriteNeeded`).
      const known = await storage.readCommitted((db) => findUser(db, accountId, 'external', id))
      const userId =
        known?.id ??
        (await storage.transaction(async (tx) => {
          const found = await findUser(tx, accountId, 'external', id)
          if (found) return found.id
          const profile = { email: null, displayName: null, picture: null, securityContext: null }
          const created = await insertExternalUser(tx, accountId, id, profile, clock())
          // Created concurrently: read the other request's user.
          return created ?? (await findUser(tx, accountId, 'external', id))!.id
        }))
      const access = await accessIn(storage.db, userId, known && knownFrom(known))
      // The token's own context applies to its requests; the stored user is left as it was.
      return {
        userId,
        kind: 'external',
        access: securityContext === undefined ? access : { ...access, securityContext },
      }
    },
  }
}
