import { apiKey, type TestApp } from '../../helpers/app'
import { keys } from '../../helpers/fixtures'

/** Reads of the stored end state, straight from the tables, so tests check what was really written. */
export interface UserRow {
  id: number
  kind: string
  identity: string
  email: string | null
  displayName: string | null
  picture: string | null
  securityContext: string | null
}

export function userRow(test: TestApp, identity: string, kind = 'external', accountName = 'acme'): UserRow | undefined {
  return (
    test.storage.sqlite
      .query<UserRow, [string, string, string]>(
        `SELECT u.id, u.kind, u.identity, u.email, u.display_name AS displayName, u.picture, u.security_context AS securityContext
           FROM users u JOIN accounts a ON a.id = u.account_id WHERE u.identity = ? AND u.kind = ? AND a.name = ?`,
      )
      .get(identity, kind, accountName) ?? undefined
  )
}

/** Group memberships as `name` (tenant-wide) or `tenant/name` and `tenant#name` (scoped groups and tenant groups). */
export function groupsOf(test: TestApp, userId: number): string[] {
  return test.storage.sqlite
    .query<{ label: string }, [number]>(
      `SELECT CASE WHEN t.name IS NULL THEN g.name
                   WHEN g.namespace = 'tenant_group' THEN t.name || '#' || g.name
                   ELSE t.name || '/' || g.name END AS label
         FROM group_memberships m JOIN groups g ON g.id = m.group_id LEFT JOIN embed_tenants t ON t.id = g.embed_tenant_id
        WHERE m.user_id = ? ORDER BY label`,
    )
    .all(userId)
    .map((row) => row.label)
}

/** Attribute values as `{ name: value }` (tenant-wide) or `{ 'tenant/name': value }` (scoped). */
export function valuesOf(test: TestApp, userId: number): Record<string, unknown> {
  const rows = test.storage.sqlite
    .query<{ label: string; value: string }, [number]>(
      `SELECT CASE WHEN t.name IS NULL THEN d.name ELSE t.name || '/' || d.name END AS label, v.value
         FROM user_attribute_values v JOIN user_attribute_definitions d ON d.id = v.attribute_id
         LEFT JOIN embed_tenants t ON t.id = d.embed_tenant_id
        WHERE v.user_id = ? ORDER BY label`,
    )
    .all(userId)
  return Object.fromEntries(rows.map((row) => [row.label, JSON.parse(row.value)]))
}

/** Number of rows of `table`, for "nothing was written" checks. */
export function countRows(test: TestApp, table: string): number {
  return test.storage.sqlite.query<{ count: number }, []>(`SELECT count(*) AS count FROM ${table}`).get()!.count
}

export const admin = apiKey(keys.admin)
