import type { Db, Storage } from '../../db/client'
import type { GroupNamespace } from '../../db/repositories/embed'
import type { AttributeType } from './model'
import { BadRequestError } from '../../lib/errors'

export type { GroupNamespace } from '../../db/repositories/embed'

/**
 * Where group and attribute names resolve: the account's tenant-wide catalog (`embedTenantId` null) or one embed
 * tenant's scoped catalog (creator mode). The two never mix: a scoped definition never changes a tenant-wide one.
 */
export interface CatalogScope {
  accountId: number
  embedTenantId: number | null
}

export interface ResolvedAttribute {
  id: number
  name: string
  type: AttributeType
}

/**
 * The catalog lookups and membership writes of every provisioning call, through the storage's statements (prepared
 * once), run in the caller's transaction `tx`.
 */
export function createCatalogQueries(storage: Storage) {
  const { groupByName, attributeByName, membershipsIn, insertMembership, deleteMembership } =
    storage.repositories.embedCatalog()
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
