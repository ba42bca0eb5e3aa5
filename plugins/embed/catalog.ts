import { and, eq, inArray, isNull, type SQL } from 'drizzle-orm'
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core'
import type { Db } from '../../db/client'
import type { AttributeType } from '../../db/bootstrap/model'
import { groupMemberships, groups, userAttributeDefinitions } from '../../db/schema'
import { BadRequestError } from '../../src/errors'
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
  return and(eq(groups.accountId, scope.accountId), inTenant(groups.embedTenantId, scope.embedTenantId), eq(groups.namespace, namespace))
}

function attributesIn(scope: CatalogScope): SQL | undefined {
  return and(eq(userAttributeDefinitions.accountId, scope.accountId), inTenant(userAttributeDefinitions.embedTenantId, scope.embedTenantId))
}

/** The ids of `names` in the scope; 400 `Groups with names <missing> not found` naming every missing one in order. */
export function resolveGroups(db: Db, scope: CatalogScope, namespace: GroupNamespace, names: readonly string[]): number[] {
  const unique = [...new Set(names)]
  if (unique.length === 0) return []
  const rows = db
    .select({ id: groups.id, name: groups.name })
    .from(groups)
    .where(and(groupsIn(scope, namespace), inArray(groups.name, unique)))
    .all()
  const byName = new Map(rows.map((row) => [row.name, row.id]))
  const missing = unique.filter((name) => !byName.has(name))
  if (missing.length > 0) throw new BadRequestError(`Groups with names ${missing.join(', ')} not found`, 'GROUPS_NOT_FOUND')
  return unique.map((name) => byName.get(name)!)
}

/** The definitions of `names` in the scope; 400 `User attributes not found` when any is unknown. */
export function resolveAttributes(db: Db, scope: CatalogScope, names: readonly string[]): Map<string, ResolvedAttribute> {
  const unique = [...new Set(names)]
  if (unique.length === 0) return new Map()
  const rows = db
    .select({ id: userAttributeDefinitions.id, name: userAttributeDefinitions.name, type: userAttributeDefinitions.type })
    .from(userAttributeDefinitions)
    .where(and(attributesIn(scope), inArray(userAttributeDefinitions.name, unique)))
    .all()
  if (rows.length !== unique.length) throw new BadRequestError('User attributes not found', 'USER_ATTRIBUTES_NOT_FOUND')
  return new Map(rows.map((row) => [row.name, row]))
}

/**
 * Replaces the user's memberships among the scope's groups of one namespace with exactly `groupIds`; memberships
 * in other scopes and namespaces are left alone.
 */
export function replaceMemberships(db: Db, userId: number, scope: CatalogScope, namespace: GroupNamespace, groupIds: readonly number[]): void {
  const inScope = db.select({ id: groups.id }).from(groups).where(groupsIn(scope, namespace))
  db.delete(groupMemberships)
    .where(and(eq(groupMemberships.userId, userId), inArray(groupMemberships.groupId, inScope)))
    .run()
  for (const groupId of groupIds) db.insert(groupMemberships).values({ userId, groupId }).onConflictDoNothing().run()
}

/**
 * Checks a request's definitions against the scope without writing: duplicate names (400) and a type that differs
 * from the stored one (400 `cannot change type`). Run before any upsert, so a failing request upserts nothing.
 */
export function checkDefinitions(
  db: Db,
  scope: CatalogScope,
  definitions: { groupDefinitions?: readonly GroupDefinitionInput[]; tenantGroupDefinitions?: readonly GroupDefinitionInput[]; userAttributeDefinitions?: readonly AttributeDefinitionInput[] },
): void {
  const { groupDefinitions = [], tenantGroupDefinitions = [], userAttributeDefinitions: attributeDefinitions = [] } = definitions
  assertUniqueNames('groupDefinitions', groupDefinitions.map((definition) => definition.name), 'DUPLICATE_GROUP_DEFINITION')
  assertUniqueNames('tenantGroupDefinitions', tenantGroupDefinitions.map((definition) => definition.name), 'DUPLICATE_GROUP_DEFINITION')
  assertUniqueNames('userAttributeDefinitions', attributeDefinitions.map((definition) => definition.name), 'DUPLICATE_ATTRIBUTE_DEFINITION')
  if (attributeDefinitions.length === 0) return
  const stored = db
    .select({ name: userAttributeDefinitions.name, type: userAttributeDefinitions.type })
    .from(userAttributeDefinitions)
    .where(and(attributesIn(scope), inArray(userAttributeDefinitions.name, attributeDefinitions.map((definition) => definition.name))))
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
        .values({ ...scope, namespace, name: definition.name, description: definition.description ?? null, createdAt: now })
        .run()
    } else if (definition.description !== undefined && definition.description !== existing.description) {
      db.update(groups).set({ description: definition.description }).where(eq(groups.id, existing.id)).run()
    }
  }
}

/** Creates or updates attribute definitions in the scope (types already checked by `checkDefinitions`). */
export function upsertAttributeDefinitions(db: Db, scope: CatalogScope, definitions: readonly AttributeDefinitionInput[], now: number): void {
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
    if (changed) db.update(userAttributeDefinitions).set(details).where(eq(userAttributeDefinitions.id, existing.id)).run()
  }
}
