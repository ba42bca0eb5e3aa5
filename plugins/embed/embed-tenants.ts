import { and, asc, eq, gt } from 'drizzle-orm'
import { first, type Db, type Storage } from '../../db/client'
import { BadRequestError, NotFoundError } from '../../lib/errors'
import { isDecimalInteger } from '../core/number-text'
import type { EmbedTenantGroupsPage } from './model'

const CURSOR = /^g:([1-9]\d{0,15})$/

/** Cursors are opaque to clients; inside they are the last id seen, so pages stay stable while groups are added. */
function encodeCursor(id: number): string {
  return Buffer.from(`g:${id}`).toString('base64url')
}

/** `first` of a list query: an integer from 1 to 100, 20 when omitted (400 in the words every other list uses). */
export function parsePageSize(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 20
  const value = isDecimalInteger(raw) ? Number(raw) : NaN
  if (!(value >= 1 && value <= 100))
    throw new BadRequestError('query first: expected an integer from 1 to 100', 'VALIDATION_FAILED')
  return value
}

function decodeCursor(cursor: string): number {
  const match = CURSOR.exec(Buffer.from(cursor, 'base64url').toString('utf8'))
  if (!match)
    throw new BadRequestError('after: not a cursor of this list; pass pageInfo.endCursor unchanged', 'INVALID_CURSOR')
  return Number(match[1])
}

/**
 * The embed-tenant admin operations, always within the caller's account: list and delete the groups
 * bootstrapped into a tenant (`groupDefinitions`; tenant groups go only with their tenant), and delete a tenant
 * with everything scoped to it (its groups and memberships, attribute definitions and values, and sessions, by
 * the foreign keys' cascades).
 */
export function createEmbedTenantAdmin(storage: Storage) {
  const { db } = storage
  const { embedTenants, groups } = storage.tables

  async function tenantId(executor: Db, accountId: number, name: string): Promise<number> {
    const tenant = await first(
      executor
        .select({ id: embedTenants.id })
        .from(embedTenants)
        .where(and(eq(embedTenants.accountId, accountId), eq(embedTenants.name, name))),
    )
    if (!tenant) throw new NotFoundError(`Embed tenant ${name} not found`, 'EMBED_TENANT_NOT_FOUND')
    return tenant.id
  }

  return {
    async listGroups(
      accountId: number,
      tenantName: string,
      rawFirst: string | undefined,
      after: string | undefined,
    ): Promise<EmbedTenantGroupsPage> {
      const pageSize = parsePageSize(rawFirst)
      const tenant = await tenantId(db, accountId, tenantName)
      const afterId = after === undefined ? 0 : decodeCursor(after)
      const rows = await db
        .select({ id: groups.id, name: groups.name, description: groups.description })
        .from(groups)
        .where(
          and(
            eq(groups.accountId, accountId),
            eq(groups.embedTenantId, tenant),
            eq(groups.namespace, 'group'),
            gt(groups.id, afterId),
          ),
        )
        .orderBy(asc(groups.id))
        .limit(pageSize + 1)
      const items = rows.slice(0, pageSize).map((row) => ({ id: row.id, name: row.name, description: row.description }))
      const last = items.at(-1)
      return {
        items,
        pageInfo: { hasNextPage: rows.length > pageSize, endCursor: last ? encodeCursor(last.id) : null },
      }
    },

    async deleteGroup(accountId: number, tenantName: string, rawId: string): Promise<void> {
      // Read as every id in a path is: decimal digits, so `0030` is group 30; anything else names no group (404).
      const id = isDecimalInteger(rawId) ? Number(rawId) : 0
      const deleted = await storage.transaction(async (tx) => {
        const tenant = await tenantId(tx, accountId, tenantName)
        return tx
          .delete(groups)
          .where(
            and(
              eq(groups.id, id),
              eq(groups.accountId, accountId),
              eq(groups.embedTenantId, tenant),
              eq(groups.namespace, 'group'),
            ),
          )
          .returning({ id: groups.id })
      })
      if (deleted.length === 0)
        throw new NotFoundError(`Group ${rawId} not found in embed tenant ${tenantName}`, 'GROUP_NOT_FOUND')
    },

    async deleteTenant(accountId: number, tenantName: string): Promise<void> {
      await storage.transaction(async (tx) => {
        const tenant = await tenantId(tx, accountId, tenantName)
        await tx.delete(embedTenants).where(eq(embedTenants.id, tenant))
      })
    },
  }
}
