import type { Database } from 'bun:sqlite'
import { and, eq, inArray, isNull, type SQL } from 'drizzle-orm'
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core'
import type { Db } from '../../db/client'
import type { AttributeType } from '../../db/bootstrap/model'
import { groups, userAttributeDefinitions } from '../../db/schema'
import { BadRequestError } from '../../lib/errors'
import { assertUniqueNames } from './attribute-values'

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

function groupsIn(scope: CatalogScope, namespace: GroupNamespace): SQL | undefined {
  return and(
    eq(groups.accountId, scope.accountId),
    inTenant(groups.embedTenantId, scope.embedTenantId),
    eq(groups.namespace, namespace),
  )
}

function attributesIn(scope: CatalogScope): SQL | undefined {
  return and(
    eq(userAttributeDefinitions.accountId, scope.accountId),
    inTenant(userAttributeDefinitions.embedTenantId, scope.embedTenantId),
  )
}

/**
 * The catalog lookups and membership writes of every provisioning call, as prepared statements compiled once (the
 * query builder would build and compile each one again per call). Tenant-wide rows have no tenant, so
 * `ifnull(embed_tenant_id, 0)` selects them with 0, and matches the unique indexes on the same expression.
 */
export function createCatalogQueries(sqlite: Database) {
  // One indexed lookup per name: cheaper here than one statement with a list (json_each or IN) or a JOIN.
  const groupByName = sqlite.query<{ id: number }, [number, number, GroupNamespace, string]>(
    'SELECT id FROM groups WHERE account_id = ? AND ifnull(embed_tenant_id, 0) = ? AND namespace = ? AND name = ?',
  )
  const attributeByName = sqlite.query<{ id: number; type: AttributeType }, [number, number, string]>(
    'SELECT id, type FROM user_attribute_definitions WHERE account_id = ? AND ifnull(embed_tenant_id, 0) = ? AND name = ?',
  )
  const membershipsIn = sqlite.query<{ groupId: number }, [number, number, number, GroupNamespace]>(
    `SELECT m.group_id AS groupId FROM group_memberships m
      WHERE m.user_id = ?1
        AND (SELECT account_id = ?2 AND ifnull(embed_tenant_id, 0) = ?3 AND namespace = ?4 FROM groups g WHERE g.id = m.group_id)`,
  )
  const insertMembership = sqlite.query<never, [number, number]>(
    'INSERT OR IGNORE INTO group_memberships (user_id, group_id) VALUES (?, ?)',
  )
  const deleteMembership = sqlite.query<never, [number, number]>(
    'DELETE FROM group_memberships WHERE user_id = ? AND group_id = ?',
  )
  const tenantOf = (scope: CatalogScope) => scope.embedTenantId ?? 0

  return {
    /** The ids of `names` in the scope; 400 `Groups with names <missing> not found` naming every missing one in order. */
    resolveGroups(scope: CatalogScope, namespace: GroupNamespace, names: readonly string[]): number[] {
      const unique = [...new Set(names)]
      if (unique.length === 0) return []
      const byName = new Map<string, number>()
      for (const name of unique) {
        const row = groupByName.get(scope.accountId, tenantOf(scope), namespace, name)
        if (row) byName.set(name, row.id)
      }
      const missing = unique.filter((name) => !byName.has(name))
      if (missing.length > 0)
        throw new BadRequestError(`Groups with names ${missing.join(', ')} not found`, 'GROUPS_NOT_FOUND')
      return unique.map((name) => byName.get(name)!)
    },

    /** The definitions of `names` in the scope; 400 `User attributes not found` when any is unknown. */
    resolveAttributes(scope: CatalogScope, names: readonly string[]): Map<string, ResolvedAttribute> {
      const found = new Map<string, ResolvedAttribute>()
      for (const name of new Set(names)) {
        const row = attributeByName.get(scope.accountId, tenantOf(scope), name)
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
    replaceMemberships(
      userId: number,
      scope: CatalogScope,
      namespace: GroupNamespace,
      groupIds: readonly number[],
    ): void {
      const wanted = new Set(groupIds)
      const current = new Set(
        membershipsIn.all(userId, scope.accountId, tenantOf(scope), namespace).map((row) => row.groupId),
      )
      for (const groupId of current) if (!wanted.has(groupId)) deleteMembership.run(userId, groupId)
      for (const groupId of wanted) if (!current.has(groupId)) insertMembership.run(userId, groupId)
    },
  }
}

export type CatalogQueries = ReturnType<typeof createCatalogQueries>

/**
 * Checks a request's definitions against the scope without writing: duplicate names (400) and a type that differs
 * from the stored one (400 `cannot change type`). Run before any upsert, so a failing request upserts nothing.
 */
export function checkDefinitions(
  db: Db,
  scope: CatalogScope,
  definitions: {
    groupDefinitions?: readonly GroupDefinitionInput[]
    tenantGroupDefinitions?: readonly GroupDefinitionInput[]
    userAttributeDefinitions?: readonly AttributeDefinitionInput[]
  },
): void {
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
  const stored = db
    .select({ name: userAttributeDefinitions.name, type: userAttributeDefinitions.type })
    .from(userAttributeDefinitions)
    .where(
      and(
        attributesIn(scope),
        inArray(
          userAttributeDefinitions.name,
          attributeDefinitions.map((definition) => definition.name),
        ),
      ),
    )
    .all()
  const storedType = new Map(stored.map((row) => [row.name, row.type]))
  for (const definition of attributeDefinitions) {
    const type = storedType.get(definition.name)
    if (type !== undefined && type !== definition.type)
      throw new BadRequestError(
        `User attribute "${definition.name}": cannot change type from ${type} to ${definition.type}; delete the attribute and recreate it`,
        'CANNOT_CHANGE_TYPE',
      )
  }
}

/** Creates or updates group definitions in the scope: an existing name is reused; a description is updated when given, never cleared. */
export function upsertGroupDefinitions(
  db: Db,
  scope: CatalogScope,
  namespace: GroupNamespace,
  definitions: readonly GroupDefinitionInput[],
  now: number,
): void {
  for (const definition of definitions) {
    const existing = db
      .select({ id: groups.id, description: groups.description })
      .from(groups)
      .where(and(groupsIn(scope, namespace), eq(groups.name, definition.name)))
      .get()
    if (!existing) {
      db.insert(groups)
        .values({
          ...scope,
          namespace,
          name: definition.name,
          description: definition.description ?? null,
          createdAt: now,
        })
        .run()
    } else if (definition.description !== undefined && definition.description !== existing.description) {
      db.update(groups).set({ description: definition.description }).where(eq(groups.id, existing.id)).run()
    }
  }
}

/** Creates or updates attribute definitions in the scope (types already checked by `checkDefinitions`). */
export function upsertAttributeDefinitions(
  db: Db,
  scope: CatalogScope,
  definitions: readonly AttributeDefinitionInput[],
  now: number,
): void {
  for (const definition of definitions) {
    const existing = db
      .select()
      .from(userAttributeDefinitions)
      .where(and(attributesIn(scope), eq(userAttributeDefinitions.name, definition.name)))
      .get()
    const details = {
      ...(definition.displayName !== undefined && { displayName: definition.displayName }),
      ...(definition.defaultValue !== undefined && { defaultValue: definition.defaultValue }),
      ...(definition.description !== undefined && { description: definition.description }),
    }
    if (!existing) {
      db.insert(userAttributeDefinitions)
        .values({ ...scope, name: definition.name, type: definition.type, createdAt: now, ...details })
        .run()
      continue
    }
    const changed = Object.entries(details).some(([key, value]) => existing[key as keyof typeof details] !== value)
    if (changed)
      db.update(userAttributeDefinitions).set(details).where(eq(userAttributeDefinitions.id, existing.id)).run()
  }
}
