import { and, eq, sql } from 'drizzle-orm'
import type { Storage } from '../../db/client'
import { preparedPer } from '../../db/prepared'
import { sqliteUserQueries } from './sqlite-statements'

/**
 * The statements of user provisioning: every chat request of a user reads its access through them, and
 * generate-session writes through them. On SQLite they are bun:sqlite statements (see `sqlite-statements.ts`),
 * elsewhere drizzle queries prepared once per query executor (see `preparedPer`).
 */
export function createUserQueries(storage: Storage): UserQueries {
  return storage.dialect === 'sqlite' ? sqliteUserQueries(storage.sqlite) : drizzleUserQueries(storage)
}

/** The statements as drizzle queries, for a dialect without statements of its own (Postgres). */
function drizzleUserQueries(storage: Storage) {
  const {
    accounts,
    externalUserCounts,
    groupMemberships,
    groups,
    userAttributeDefinitions,
    userAttributeValues,
    users,
  } = storage.tables
  const placeholder = sql.placeholder
  /** A JSON column as its stored text: compared and written as text, never parsed and printed again. */
  const asText = (column: typeof users.securityContext | typeof userAttributeValues.value) =>
    sql<string | null>`${column}`
  /** A value written as it is (stored JSON text), without the column's JSON encoding. */
  const raw = (name: string) => sql`${placeholder(name)}`

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
  const securityContextOf = preparedPer((db) =>
    db
      .select({ securityContext: asText(users.securityContext) })
      .from(users)
      .where(eq(users.id, placeholder('userId')))
      .prepare(),
  )
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

  return {
    membershipNames,
    attributeValues,
    securityContextOf,
    userByIdentity,
    externalUserRoom,
    insertUser,
    updateUser,
    storedValues,
    upsertValue,
    deleteValue,
  }
}

export type UserQueries = ReturnType<typeof drizzleUserQueries>
