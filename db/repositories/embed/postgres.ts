import { and, eq, isNotNull, lte, sql, type SQLWrapper } from 'drizzle-orm'
import { preparedPer } from '../../prepared'
import type { Tables } from '../../query-builder'
import type { EmbedCatalogStatements, EmbedSessionStatements, EmbedUserStatements } from '.'

/*
 * The embed statements on Postgres, as drizzle queries prepared once per query executor (see `preparedPer`): each
 * transaction has an executor of its own, so a statement runs inside the transaction that asks for it.
 */

/** Minting's and pruning's statements as drizzle queries. */
export function postgresSessionStatements(tables: Tables): EmbedSessionStatements {
  const { embedSessions } = tables
  const insertSession = preparedPer((db) =>
    db
      .insert(embedSessions)
      .values({
        publicId: sql.placeholder('publicId'),
        secretHash: sql.placeholder('secretHash'),
        accountId: sql.placeholder('accountId'),
        deploymentId: sql.placeholder('deploymentId'),
        userId: sql.placeholder('userId'),
        embedTenantId: sql.placeholder('embedTenantId'),
        creatorMode: sql.placeholder('creatorMode'),
        settings: sql.placeholder('settings'),
        securityContext: sql.placeholder('securityContext'),
        groups: sql.placeholder('groups'),
        userAttributes: sql.placeholder('userAttributes'),
        createdAt: sql.placeholder('createdAt'),
        expiresAt: sql.placeholder('expiresAt'),
      })
      .prepare(),
  )

  // Prepared once: every generate-session prunes first, and building and compiling it per call cost a tenth of its
  // CPU.
  const pruneExpired = preparedPer((db) =>
    db
      .delete(embedSessions)
      .where(lte(embedSessions.expiresAt, sql.placeholder('now')))
      .returning({ id: embedSessions.id })
      .prepare(),
  )
  return { insertSession, pruneExpired }
}

/**
 * The catalog statements as drizzle queries. Tenant-wide rows have no tenant, so the tenant or 0 selects them with 0,
 * written as the unique indexes write it: a database uses an expression index only for the same expression
 * (Postgres's indexes say `coalesce`).
 */
export function postgresCatalogStatements(tables: Tables): EmbedCatalogStatements {
  const { groups, groupMemberships, userAttributeDefinitions } = tables
  const placeholder = sql.placeholder
  const tenantOrZero = sql.raw('coalesce')
  // One indexed lookup per name: cheaper here than one statement with a list (IN) or a JOIN.
  const groupByName = preparedPer((db) =>
    db
      .select({ id: groups.id })
      .from(groups)
      .where(
        and(
          eq(groups.accountId, placeholder('accountId')),
          sql`${tenantOrZero}(${groups.embedTenantId}, 0) = ${placeholder('tenant')}`,
          eq(groups.namespace, placeholder('namespace')),
          eq(groups.name, placeholder('name')),
        ),
      )
      .prepare(),
  )
  const attributeByName = preparedPer((db) =>
    db
      .select({ id: userAttributeDefinitions.id, type: userAttributeDefinitions.type })
      .from(userAttributeDefinitions)
      .where(
        and(
          eq(userAttributeDefinitions.accountId, placeholder('accountId')),
          sql`${tenantOrZero}(${userAttributeDefinitions.embedTenantId}, 0) = ${placeholder('tenant')}`,
          eq(userAttributeDefinitions.name, placeholder('name')),
        ),
      )
      .prepare(),
  )
  // The group's scope as a scalar subquery rather than a JOIN: cheaper per execution in SQLite.
  const membershipsIn = preparedPer((db) =>
    db
      .select({ groupId: groupMemberships.groupId })
      .from(groupMemberships)
      .where(
        and(
          eq(groupMemberships.userId, placeholder('userId')),
          sql`(SELECT ${groups.accountId} = ${placeholder('accountId')}
                      AND ${tenantOrZero}(${groups.embedTenantId}, 0) = ${placeholder('tenant')}
                      AND ${groups.namespace} = ${placeholder('namespace')}
                 FROM ${groups} WHERE ${groups.id} = ${groupMemberships.groupId})`,
        ),
      )
      .prepare(),
  )
  const insertMembership = preparedPer((db) =>
    db
      .insert(groupMemberships)
      .values({ userId: placeholder('userId'), groupId: placeholder('groupId') })
      .onConflictDoNothing()
      .prepare(),
  )
  const deleteMembership = preparedPer((db) =>
    db
      .delete(groupMemberships)
      .where(
        and(eq(groupMemberships.userId, placeholder('userId')), eq(groupMemberships.groupId, placeholder('groupId'))),
      )
      .prepare(),
  )
  return { groupByName, attributeByName, membershipsIn, insertMembership, deleteMembership }
}

/** A JSON column as its stored text: compared and written as text, never parsed and printed again. */
const asText = (column: SQLWrapper) => sql<string | null>`${column}`
/** A value written as it is (stored JSON text), without the column's JSON encoding. */
const raw = (name: string) => sql`${sql.placeholder(name)}`

/** Users as provisioning reads and writes them, as drizzle queries: their access, their rows, their values. */
export function postgresUserStatements(tables: Tables): EmbedUserStatements {
  return { ...accessStatements(tables), ...userRowStatements(tables), ...attributeValueStatements(tables) }
}

/** What a user may see: group names, attribute values and the security context, read on every chat request. */
function accessStatements(
  tables: Tables,
): Pick<EmbedUserStatements, 'membershipNames' | 'attributeValues' | 'attributeDefaults' | 'securityContextOf'> {
  const { groupMemberships, groups, userAttributeDefinitions, userAttributeValues, users } = tables
  const placeholder = sql.placeholder
  // Single-table reads with scalar subqueries, filtered and sorted here: in SQLite a JOIN costs about ten times as
  // much per execution as these, and the snapshot is read on every chat request.
  const membershipNames = preparedPer((db) =>
    db
      .select({
        name: sql<string | null>`(SELECT ${groups.name} FROM ${groups}
          WHERE ${groups.id} = ${groupMemberships.groupId} AND ${groups.namespace} = 'group'
            AND (${groups.embedTenantId} IS NULL OR ${groups.embedTenantId} = ${placeholder('tenant')}))`,
      })
      .from(groupMemberships)
      .where(eq(groupMemberships.userId, placeholder('userId')))
      .prepare(),
  )
  const attributeValues = preparedPer((db) =>
    db
      .select({
        name: sql<string | null>`(SELECT ${userAttributeDefinitions.name} FROM ${userAttributeDefinitions}
          WHERE ${userAttributeDefinitions.id} = ${userAttributeValues.attributeId})`,
        tenant: sql<number | null>`(SELECT ${userAttributeDefinitions.embedTenantId} FROM ${userAttributeDefinitions}
          WHERE ${userAttributeDefinitions.id} = ${userAttributeValues.attributeId})`,
        value: asText(userAttributeValues.value),
      })
      .from(userAttributeValues)
      .where(eq(userAttributeValues.userId, placeholder('userId')))
      .prepare(),
  )
  const attributeDefaults = preparedPer((db) =>
    db
      .select({
        name: userAttributeDefinitions.name,
        tenant: userAttributeDefinitions.embedTenantId,
        type: userAttributeDefinitions.type,
        defaultValue: sql<string>`${userAttributeDefinitions.defaultValue}`,
      })
      .from(userAttributeDefinitions)
      .where(
        and(
          sql`${userAttributeDefinitions.accountId} = (SELECT ${users.accountId} FROM ${users}
            WHERE ${users.id} = ${placeholder('userId')})`,
          isNotNull(userAttributeDefinitions.defaultValue),
          sql`coalesce(${userAttributeDefinitions.embedTenantId}, 0) IN (0, ${placeholder('tenant')})`,
        ),
      )
      .prepare(),
  )
  const securityContextOf = preparedPer((db) =>
    db
      .select({ securityContext: asText(users.securityContext) })
      .from(users)
      .where(eq(users.id, placeholder('userId')))
      .prepare(),
  )
  return { membershipNames, attributeValues, attributeDefaults, securityContextOf }
}

/** A user found by identity, the room for another external user, and a user inserted or updated. */
function userRowStatements(
  tables: Tables,
): Pick<EmbedUserStatements, 'userByIdentity' | 'externalUserRoom' | 'insertUser' | 'updateUser'> {
  const { accounts, externalUserCounts, groupMemberships, userAttributeDefinitions, userAttributeValues, users } =
    tables
  const placeholder = sql.placeholder
  const userByIdentity = preparedPer((db) =>
    db
      .select({
        id: users.id,
        email: users.email,
        displayName: users.displayName,
        picture: users.picture,
        securityContext: asText(users.securityContext),
        // Whether the access snapshot has group memberships and attribute values to read at all: most users have
        // none, and each read is a statement (a round trip on Postgres) on every chat request.
        hasMemberships: sql<number>`EXISTS (SELECT 1 FROM ${groupMemberships}
          WHERE ${groupMemberships.userId} = ${users.id})`.mapWith(Number),
        hasAttributeValues: sql<number>`EXISTS (SELECT 1 FROM ${userAttributeValues}
          WHERE ${userAttributeValues.userId} = ${users.id})`.mapWith(Number),
        hasAttributeDefaults: sql<number>`EXISTS (SELECT 1 FROM ${userAttributeDefinitions}
          WHERE ${userAttributeDefinitions.accountId} = ${users.accountId}
            AND ${userAttributeDefinitions.defaultValue} IS NOT NULL)`.mapWith(Number),
      })
      .from(users)
      .where(
        and(
          eq(users.accountId, placeholder('accountId')),
          eq(users.kind, placeholder('kind')),
          eq(users.identity, placeholder('identity')),
        ),
      )
      .prepare(),
  )
  // The counter table is kept by triggers on users: one row read instead of a count(*).
  const externalUserRoom = preparedPer((db) =>
    db
      .select({
        limit: accounts.maxExternalUsers,
        count: sql`coalesce((SELECT ${externalUserCounts.count} FROM ${externalUserCounts}
          WHERE ${externalUserCounts.accountId} = ${accounts.id}), 0)`.mapWith(Number),
      })
      .from(accounts)
      .where(eq(accounts.id, placeholder('accountId')))
      .prepare(),
  )
  const insertUser = preparedPer((db) =>
    db
      .insert(users)
      .values({
        accountId: placeholder('accountId'),
        kind: 'external',
        identity: placeholder('identity'),
        email: placeholder('email'),
        displayName: placeholder('displayName'),
        picture: placeholder('picture'),
        securityContext: raw('securityContext'),
        createdAt: placeholder('now'),
        updatedAt: placeholder('now'),
      })
      // A concurrent request created the same user first (possible on Postgres, where transactions overlap).
      .onConflictDoNothing({ target: [users.accountId, users.kind, users.identity] })
      .returning({ id: users.id })
      .prepare(),
  )
  const updateUser = preparedPer((db) =>
    db
      .update(users)
      .set({
        email: raw('email'),
        displayName: raw('displayName'),
        picture: raw('picture'),
        securityContext: raw('securityContext'),
        updatedAt: raw('now'),
      })
      .where(eq(users.id, placeholder('userId')))
      .prepare(),
  )
  return { userByIdentity, externalUserRoom, insertUser, updateUser }
}

/** A user's stored attribute values, one set or deleted. */
function attributeValueStatements(
  tables: Tables,
): Pick<EmbedUserStatements, 'storedValues' | 'upsertValue' | 'deleteValue'> {
  const { userAttributeValues } = tables
  const placeholder = sql.placeholder
  const storedValues = preparedPer((db) =>
    db
      .select({ attributeId: userAttributeValues.attributeId, value: asText(userAttributeValues.value) })
      .from(userAttributeValues)
      .where(eq(userAttributeValues.userId, placeholder('userId')))
      .prepare(),
  )
  const upsertValue = preparedPer((db) =>
    db
      .insert(userAttributeValues)
      .values({ userId: placeholder('userId'), attributeId: placeholder('attributeId'), value: raw('value') })
      .onConflictDoUpdate({
        target: [userAttributeValues.userId, userAttributeValues.attributeId],
        set: { value: sql`excluded.value` },
      })
      .prepare(),
  )
  const deleteValue = preparedPer((db) =>
    db
      .delete(userAttributeValues)
      .where(
        and(
          eq(userAttributeValues.userId, placeholder('userId')),
          eq(userAttributeValues.attributeId, placeholder('attributeId')),
        ),
      )
      .prepare(),
  )

  return { storedValues, upsertValue, deleteValue }
}
