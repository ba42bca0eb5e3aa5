import { and, eq, sql } from 'drizzle-orm'
import type { Db, Storage } from '../../db/client'
import type { AttributeType } from './model'
import { BadRequestError } from '../../lib/errors'
import { preparedPer } from '../../db/prepared'
import { sqliteCatalogStatements } from './sqlite-statements'

/**
 * Where group and attribute names resolve: the account's tenant-wide catalog (`embedTenantId` null) or one embed
 * tenant's scoped catalog (creator mode). The two never mix: a scoped definition never changes a tenant-wide one.
 */
export interface CatalogScope {
  accountId: number
  embedTenantId: number | null
}

export type GroupNamespace = 'group' | 'tenant_group'

export interface ResolvedAttribute {
  id: number
  name: string
  type: AttributeType
}

/**
 * The catalog statements as drizzle queries, for a dialect without statements of its own (Postgres). Tenant-wide
 * rows have no tenant, so the tenant or 0 selects them with 0, written as the unique indexes write it: a database
 * uses an expression index only for the same expression (SQLite's indexes say `ifnull`, Postgres's `coalesce`).
 */
function drizzleCatalogStatements(storage: Storage) {
  const { groups, groupMemberships, userAttributeDefinitions } = storage.tables
  const placeholder = sql.placeholder
  const tenantOrZero = storage.dialect === 'sqlite' ? sql.raw('ifnull') : sql.raw('coalesce')
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

type CatalogStatements = ReturnType<typeof drizzleCatalogStatements>

/**
 * The catalog lookups and membership writes of every provisioning call, as statements prepared once (on SQLite
 * bun:sqlite's own, see `sqlite-statements.ts`), run in the caller's transaction `tx`.
 */
export function createCatalogQueries(storage: Storage) {
  const statements: CatalogStatements =
    storage.dialect === 'sqlite' ? sqliteCatalogStatements(storage.sqlite) : drizzleCatalogStatements(storage)
  const { groupByName, attributeByName, membershipsIn, insertMembership, deleteMembership } = statements
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
     * (every chat request of a user names them again) writes nothing. `beforeWrite` is called before any write
     * (a read-only pass throws from it).
     */
    async replaceMemberships(
      tx: Db,
      userId: number,
      scope: CatalogScope,
      namespace: GroupNamespace,
      groupIds: readonly number[],
      beforeWrite: () => void = () => {},
    ): Promise<void> {
      const wanted = new Set(groupIds)
      const rows = await membershipsIn(tx).execute({
        userId,
        accountId: scope.accountId,
        tenant: tenantOf(scope),
        namespace,
      })
      const current = new Set(rows.map((row) => row.groupId))
      if (current.size !== wanted.size || [...wanted].some((groupId) => !current.has(groupId))) beforeWrite()
      for (const groupId of current) if (!wanted.has(groupId)) await deleteMembership(tx).execute({ userId, groupId })
      for (const groupId of wanted) if (!current.has(groupId)) await insertMembership(tx).execute({ userId, groupId })
    },
  }
}

export type CatalogQueries = ReturnType<typeof createCatalogQueries>
