import type { Db } from '../../query-builder'
import type { embedSessions, groups, userAttributeDefinitions } from '../../schema'

/*
 * The statements of embed sessions and user provisioning: a dozen per generate-session, four per chat request. Each
 * backend writes them its cheapest way (`sqlite.ts`: bun:sqlite statements; `postgres.ts`: drizzle queries), with the
 * same SQL meaning; the callers build the rules on top (`plugins/embed`).
 */

/**
 * A statement prepared once per query executor, run in the caller's transaction `tx` as `statement(tx).execute(values)`
 * and awaited (on SQLite its answer is there at once, on Postgres it is a promise).
 */
export type Statement<Values, Result> = (db: Db) => {
  execute(...values: Values extends undefined ? [] : [values: Values]): Result | Promise<Result>
}

/** Whose catalog a name is looked up in: 0 for the account's tenant-wide catalog, else one embed tenant's own. */
type InCatalog = {
  accountId: number
  /** The embed tenant's id, or 0 for tenant-wide rows (ids start at 1, so 0 names none). */
  tenant: number
}

export type GroupNamespace = NonNullable<(typeof groups.$inferSelect)['namespace']>
export type AttributeType = (typeof userAttributeDefinitions.$inferSelect)['type']

/** A session as minting stores it (JSON columns as their values; the statement encodes them). */
export type NewSession = Pick<
  typeof embedSessions.$inferInsert,
  | 'publicId'
  | 'secretHash'
  | 'accountId'
  | 'deploymentId'
  | 'userId'
  | 'embedTenantId'
  | 'creatorMode'
  | 'settings'
  | 'securityContext'
  | 'groups'
  | 'userAttributes'
  | 'createdAt'
  | 'expiresAt'
>

export interface EmbedSessionStatements {
  insertSession: Statement<NewSession, unknown>
  /**
   * Sessions whose exchange window or token lifetime ended by `now`, deleted; their ids. A revoked session stays until
   * then, so its tokens are told apart from forged ones (`EMBED_SESSION_REVOKED`) for as long as they could be used.
   */
  pruneExpired: Statement<{ now: number }, Array<{ id: number }>>
}

export interface EmbedCatalogStatements {
  /** The group of that name in the catalog and namespace (none or one row). */
  groupByName: Statement<InCatalog & { namespace: GroupNamespace; name: string }, Array<{ id: number }>>
  /** The attribute definition of that name in the catalog (none or one row). */
  attributeByName: Statement<InCatalog & { name: string }, Array<{ id: number; type: AttributeType }>>
  /** The user's memberships among the catalog's groups of one namespace. */
  membershipsIn: Statement<InCatalog & { userId: number; namespace: GroupNamespace }, Array<{ groupId: number }>>
  /** Adds a membership (nothing when it exists). */
  insertMembership: Statement<{ userId: number; groupId: number }, unknown>
  deleteMembership: Statement<{ userId: number; groupId: number }, unknown>
}

/** A user's profile fields as stored: the security context as its JSON text. */
type Profile = {
  email: string | null
  displayName: string | null
  picture: string | null
  securityContext: string | null
}

export interface EmbedUserStatements {
  /** The names of the user's groups (namespace `group`) tenant-wide or in `tenant`; null for others' groups. */
  membershipNames: Statement<{ userId: number; tenant: number }, Array<{ name: string | null }>>
  /** The user's attribute values (JSON text) with their definitions' names and tenants. */
  attributeValues: Statement<
    { userId: number },
    Array<{ name: string | null; tenant: number | null; value: string | null }>
  >
  /**
   * The default values (as written in the definition) of the attributes of the user's account, tenant-wide or in
   * `tenant`, that have one, with their types and tenants.
   */
  attributeDefaults: Statement<
    { userId: number; tenant: number },
    Array<{ name: string; tenant: number | null; type: AttributeType; defaultValue: string }>
  >
  securityContextOf: Statement<{ userId: number }, Array<{ securityContext: string | null }>>
  /**
   * The user of that identity, and whether it has memberships and attribute values, and its account attribute
   * defaults, to read at all (most have none, and each read is a statement on every chat request): 1 or 0.
   */
  userByIdentity: Statement<
    { accountId: number; kind: 'internal' | 'external'; identity: string },
    Array<Profile & { id: number; hasMemberships: number; hasAttributeValues: number; hasAttributeDefaults: number }>
  >
  /** The account's limit of external users and how many it has. */
  externalUserRoom: Statement<{ accountId: number }, Array<{ limit: number; count: number }>>
  /** Inserts an external user; no row when a concurrent transaction created the same identity first. */
  insertUser: Statement<Profile & { accountId: number; identity: string; now: number }, Array<{ id: number }>>
  updateUser: Statement<Profile & { userId: number; now: number }, unknown>
  storedValues: Statement<{ userId: number }, Array<{ attributeId: number; value: string | null }>>
  /** Sets an attribute value (its JSON text). */
  upsertValue: Statement<{ userId: number; attributeId: number; value: string }, unknown>
  deleteValue: Statement<{ userId: number; attributeId: number }, unknown>
}
