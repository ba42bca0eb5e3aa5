import { and, eq, inArray, isNull, type SQL } from 'drizzle-orm'
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core'
import { first, type Db, type Tables } from '../../db/client'
import type { AttributeType } from './model'
import { BadRequestError } from '../../lib/errors'
import { assertDefaultValue, assertUniqueNames } from './attribute-values'
import type { CatalogScope, GroupNamespace } from './catalog'

/**
 * Creator-mode definitions of groups and user attributes in a catalog scope, as generate-session writes them: all
 * checked first, then upserted in the caller's transaction.
 */
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
 * Checks a request's definitions against the scope without writing: duplicate names (400), a default that is not a
 * value of the definition's type (400) and a type that differs from the stored one (400 `cannot change type`). Run
 * before any upsert, so a failing request upserts nothing.
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
  attributeDefinitions.forEach((definition, index) => {
    if (definition.defaultValue !== undefined)
      assertDefaultValue(`userAttributeDefinitions[${index}].defaultValue`, definition.type, definition.defaultValue)
  })
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
    // A group's description is updated when supplied and different, never cleared (an empty description leaves the
    // stored one).
    if (definition.description && definition.description !== existing.description)
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
