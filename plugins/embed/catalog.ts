import { and, eq, inArray, isNull, sql, type SQL } from 'drizzle-orm'
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core'
import { first, type Db, type Storage, type Tables } from '../../db/client'
import type { AttributeType } from '../../db/bootstrap/model'
import { BadRequestError } from '../../lib/errors'
import { assertUniqueNames } from './attribute-values'
import { preparedPer } from './prepared'

/**
 * Where group and attribute names resolve: the account's tenant-wide catalog (`embedTenantId` null) or one embed
 * tenant's scoped catalog (creator mode). The two never mix: a scoped definition never changes a tenant-wide one.
 */
export interface CatalogScope {
  accountId: number
  embedTenantId: number | null
}

export type GroupNamespace = 'group' | 'tenant_group'

export interface GroupDefinitionInput {
  name: string
  description?: string
}

export interface AttributeDefinitionInput {
  name: string
  type: AttributeType
  displayName?: string
  defaultValue?: string
  description?: string
}

export interface ResolvedAttribute {
  id: number
  name: string
  type: AttributeType
}

function inTenant(column: SQLiteColumn, embedTenantId: number | null): SQL {
  return embedTenantId === null ? isNull(column) : eq(column, embedTenantId)
}

function groupsIn({ groups }: Tables, scope: CatalogScope, namespace: GroupNamespace): SQL | undefined {
  return and(
    eq(groups.accountId, scope.accountId),
    inTenant(groups.embedTenantId, scope.embedTenantId),
    eq(groups.namespace, namespace),
  )
}

function attributesIn({ userAttributeDefinitions }: Tables, scope: CatalogScope): SQL | undefined {
  return and(
    eq(userAttributeDefinitions.accountId, scope.accountId),
    inTenant(userAttributeDefinitions.embedTenantId, scope.embedTenantId),
  )
}

/**
 * The catalog lookups and membership writes of every provisioning call, as prepared statements compiled once (the
 * query builder would build and compile each one again per call), run in the caller's transaction `tx`.
 * Tenant-wide rows have no tenant, so `coalesce(embed_tenant_id, 0)` selects them with 0, as the unique indexes do.
 */
export function createCatalogQueries(storage: Storage) {
  const { groups, groupMemberships, userAttributeDefinitions } = storage.tables
  const placeholder = sql.placeholder
  // One indexed lookup per name: cheaper here than one statement with a list (IN) or a JOIN.
  const groupByName = preparedPer((db) =>
    db
      .select({ id: groups.id })
      .from(groups)
      .where(
        and(
          eq(groups.accountId, placeholder('accountId')),
          sql`coalesce(${groups.embedTenantId}, 0) = ${placeholder('tenant')}`,
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
          sql`coalesce(${userAttributeDefinitions.embedTenantId}, 0) = ${placeholder('tenant')}`,
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
                      AND coalesce(${groups.embedTenantId}, 0) = ${placeholder('tenant')}
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
      .where(and(eq(groupMemberships.userId, placeholder('userId')), eq(groupMemberships.groupId, placeholder('groupId'))))
      .prepare(),
  )
  const tenantOf = (scope: CatalogScope) => scope.embedTenantId ?? 0

  return {
    /** The ids of `names` in the scope; 400 `Groups with names <missing> not found` naming every missing one in order. */
    async resolveGroups(
      tx: Db,
      scope: CatalogScope,
      namespace: GroupNamespace,
      names: readonly string[],
    ): Promise<number[]> {
      const unique = [...new Set(names)]
      if (unique.length === 0) return []
      const byName = new Map<string, number>()
      const statement = groupByName(tx)
      for (const name of unique) {
        const [row] = await statement.execute({ accountId: scope.accountId, tenant: tenantOf(scope), namespace, name })
        if (row) byName.set(name, row.id)
      }
      const missing = unique.filter((name) => !byName.has(name))
      if (missing.length > 0)
        throw new BadRequestError(`Groups with names ${missing.join(', ')} not found`, 'GROUPS_NOT_FOUND')
      return unique.map((name) => byName.get(name)!)
    },

    /** The definitions of `names` in the scope; 400 `User attributes not found` when any is unknown. */
    async resolveAttributes(
      tx: Db,
      scope: CatalogScope,
      names: readonly string[],
    ): Promise<Map<string, ResolvedAttribute>> {
      const found = new Map<string, ResolvedAttribute>()
      const statement = attributeByName(tx)
      for (const name of new Set(names)) {
        const [row] = await statement.execute({ accountId: scope.accountId, tenant: tenantOf(scope), name })
        if (!row) throw new BadRequestError('User attributes not found', 'USER_ATTRIBUTES_NOT_FOUND')
        found.set(name, { id: row.id, name, type: row.type })
      }
      return found
    },

    /**
     * Replaces the user's memberships among the scope's groups of one namespace with exactly `groupIds`; memberships
     * in other scopes and namespaces are left alone. Only the difference is written, so re-applying the same groups
     * (every chat request of a user names them again) writes nothing.
     */
    async replaceMemberships(
      tx: Db,
      userId: number,
      scope: CatalogScope,
      namespace: GroupNamespace,
      groupIds: readonly number[],
    ): Promise<void> {
      const wanted = new Set(groupIds)
      const rows = await membershipsIn(tx).execute({
        userId,
        accountId: scope.accountId,
        tenant: tenantOf(scope),
        namespace,
      })
      const current = new Set(rows.map((row) => row.groupId))
      for (const groupId of current) if (!wanted.has(groupId)) await deleteMembership(tx).execute({ userId, groupId })
      for (const groupId of wanted) if (!current.has(groupId)) await insertMembership(tx).execute({ userId, groupId })
    },
  }
}

export type CatalogQueries = ReturnType<typeof createCatalogQueries>

/**
 * Checks a request's definitions against the scope without writing: duplicate names (400) and a type that differs
 * from the stored one (400 `cannot change type`). Run before any upsert, so a failing request upserts nothing.
 */
export async function checkDefinitions(
  db: Db,
  tables: Tables,
  scope: CatalogScope,
  definitions: {
    groupDefinitions?: readonly GroupDefinitionInput[]
    tenantGroupDefinitions?: readonly GroupDefinitionInput[]
    userAttributeDefinitions?: readonly AttributeDefinitionInput[]
  },
): Promise<void> {
  const { userAttributeDefinitions } = tables
  const {
    groupDefinitions = [],
    tenantGroupDefinitions = [],
    userAttributeDefinitions: attributeDefinitions = [],
  } = definitions
  assertUniqueNames(
    'groupDefinitions',
    groupDefinitions.map((definition) => definition.name),
    'DUPLICATE_GROUP_DEFINITION',
  )
  assertUniqueNames(
    'tenantGroupDefinitions',
    tenantGroupDefinitions.map((definition) => definition.name),
    'DUPLICATE_GROUP_DEFINITION',
  )
  assertUniqueNames(
    'userAttributeDefinitions',
    attributeDefinitions.map((definition) => definition.name),
    'DUPLICATE_ATTRIBUTE_DEFINITION',
  )
  if (attributeDefinitions.length === 0) return
  const stored = await db
    .select({ name: userAttributeDefinitions.name, type: userAttributeDefinitions.type })
    .from(userAttributeDefinitions)
    .where(
      and(
        attributesIn(tables, scope),
        inArray(
          userAttributeDefinitions.name,
          attributeDefinitions.map((definition) => definition.name),
        ),
      ),
    )
  const storedType = new Map(stored.map((row) => [row.name, row.type]))
  for (const definition of attributeDefinitions) {
    const type = storedType.get(definition.name)
    if (type !== undefined && type !== definition.type) throw cannotChangeType(definition.name, type, definition.type)
  }
}

function cannotChangeType(name: string, stored: AttributeType, wanted: AttributeType): BadRequestError {
  return new BadRequestError(
    `User attribute "${name}": cannot change type from ${stored} to ${wanted}; delete the attribute and recreate it`,
    'CANNOT_CHANGE_TYPE',
  )
}

/** Creates or updates group definitions in the scope: an existing name is reused; a description is updated when given, never cleared. */
export async function upsertGroupDefinitions(
  db: Db,
  tables: Tables,
  scope: CatalogScope,
  namespace: GroupNamespace,
  definitions: readonly GroupDefinitionInput[],
  now: number,
): Promise<void> {
  const { groups } = tables
  const find = (name: string) =>
    first(
      db
        .select({ id: groups.id, description: groups.description })
        .from(groups)
        .where(and(groupsIn(tables, scope, namespace), eq(groups.name, name))),
    )
  for (const definition of definitions) {
    let existing = await find(definition.name)
    if (!existing) {
      const created = await db
        .insert(groups)
        .values({
          ...scope,
          namespace,
          name: definition.name,
          description: definition.description ?? null,
          createdAt: now,
        })
        // The scope's unique index: a concurrent session may have created the group first (Postgres).
        .onConflictDoNothing()
        .returning({ id: groups.id })
      if (created.length > 0) continue
      existing = (await find(definition.name))!
    }
    if (definition.description !== undefined && definition.description !== existing.description)
      await db.update(groups).set({ description: definition.description }).where(eq(groups.id, existing.id))
  }
}

/** Creates or updates attribute definitions in the scope (types already checked by `checkDefinitions`). */
export async function upsertAttributeDefinitions(
  db: Db,
  tables: Tables,
  scope: CatalogScope,
  definitions: readonly AttributeDefinitionInput[],
  now: number,
): Promise<void> {
  const { userAttributeDefinitions } = tables
  const find = (name: string) =>
    first(
      db
        .select()
        .from(userAttributeDefinitions)
        .where(and(attributesIn(tables, scope), eq(userAttributeDefinitions.name, name))),
    )
  for (const definition of definitions) {
    let existing = await find(definition.name)
    const details = {
      ...(definition.displayName !== undefined && { displayName: definition.displayName }),
      ...(definition.defaultValue !== undefined && { defaultValue: definition.defaultValue }),
      ...(definition.description !== undefined && { description: definition.description }),
    }
    if (!existing) {
      const created = await db
        .insert(userAttributeDefinitions)
        .values({ ...scope, name: definition.name, type: definition.type, createdAt: now, ...details })
        // The scope's unique index: a concurrent session may have created the attribute first (Postgres).
        .onConflictDoNothing()
        .returning({ id: userAttributeDefinitions.id })
      if (created.length > 0) continue
      existing = (await find(definition.name))!
    }
    // Checked again here: a concurrent session may have created it with another type since `checkDefinitions` read.
    if (existing.type !== definition.type) throw cannotChangeType(definition.name, existing.type, definition.type)
    const changed = Object.entries(details).some(([key, value]) => existing[key as keyof typeof details] !== value)
    if (changed)
      await db.update(userAttributeDefinitions).set(details).where(eq(userAttributeDefinitions.id, existing.id))
  }
}
