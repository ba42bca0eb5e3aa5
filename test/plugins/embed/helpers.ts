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

export interface JsonResponse {
  status: number
  body: Record<string, unknown>
}

async function json(response: Response): Promise<JsonResponse> {
  const text = await response.text()
  return { status: response.status, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) }
}

/** `POST /api/v1/embed/generate-session` with the admin key unless other headers are given. */
export async function generate(
  test: TestApp,
  body: unknown,
  headers: Record<string, string> = admin,
): Promise<JsonResponse> {
  return json(await test.request('POST', '/api/v1/embed/generate-session', { headers, body }))
}

/** Mints a session that must succeed and returns its id. */
export async function mint(test: TestApp, body: Record<string, unknown>): Promise<string> {
  const response = await generate(test, { deploymentId: 1, ...body })
  if (response.status !== 200) throw new Error(`generate-session failed: ${JSON.stringify(response)}`)
  return response.body.sessionId as string
}

export async function exchange(test: TestApp, sessionId: string): Promise<JsonResponse> {
  return json(await test.request('POST', '/api/v1/embed/session/token', { body: { sessionId } }))
}

export async function send(
  test: TestApp,
  method: string,
  path: string,
  headers: Record<string, string> = admin,
  body?: unknown,
): Promise<JsonResponse> {
  return json(await test.request(method, path, { headers, body }))
}

export interface SessionRow {
  userId: number
  deploymentId: number
  embedTenantId: number | null
  creatorMode: number
  settings: string
  securityContext: string
  groups: string
  userAttributes: string
  secretHash: string
  exchangedAt: number | null
  revokedAt: number | null
}

export function sessionRows(test: TestApp): SessionRow[] {
  return test.storage.sqlite
    .query<SessionRow, []>(
      `SELECT user_id AS userId, deployment_id AS deploymentId, embed_tenant_id AS embedTenantId, creator_mode AS creatorMode,
              settings, security_context AS securityContext, groups, user_attributes AS userAttributes, secret_hash AS secretHash,
              exchanged_at AS exchangedAt, revoked_at AS revokedAt
         FROM embed_sessions ORDER BY id`,
    )
    .all()
}

export function tenantRow(
  test: TestApp,
  name: string,
): { id: number; useCreatorMode: number; displayName: string | null } | undefined {
  return (
    test.storage.sqlite
      .query<{ id: number; useCreatorMode: number; displayName: string | null }, [string]>(
        'SELECT id, use_creator_mode AS useCreatorMode, display_name AS displayName FROM embed_tenants WHERE name = ?',
      )
      .get(name) ?? undefined
  )
}

/** Groups as `name[:description]` per scope label (`-` tenant-wide, else the tenant name, `#` for tenant groups). */
export function groupCatalog(test: TestApp): string[] {
  return test.storage.sqlite
    .query<{ label: string }, []>(
      `SELECT ifnull(t.name, '-') || CASE WHEN g.namespace = 'tenant_group' THEN '#' ELSE '/' END || g.name
              || ifnull(':' || g.description, '') AS label
         FROM groups g LEFT JOIN embed_tenants t ON t.id = g.embed_tenant_id
         JOIN accounts a ON a.id = g.account_id WHERE a.name = 'acme' ORDER BY label`,
    )
    .all()
    .map((row) => row.label)
}

/** Attribute definitions as `scope/name:type[:displayName][:defaultValue][:description]`. */
export function attributeCatalog(test: TestApp): string[] {
  return test.storage.sqlite
    .query<{ label: string }, []>(
      `SELECT ifnull(t.name, '-') || '/' || d.name || ':' || d.type || ifnull(':' || d.display_name, '')
              || ifnull(':' || d.default_value, '') || ifnull(':' || d.description, '') AS label
         FROM user_attribute_definitions d LEFT JOIN embed_tenants t ON t.id = d.embed_tenant_id
         JOIN accounts a ON a.id = d.account_id WHERE a.name = 'acme' ORDER BY label`,
    )
    .all()
    .map((row) => row.label)
}

/** Everything a generate-session call may write, for "a failing call leaves nothing behind" checks. */
export function snapshotTables(test: TestApp): Record<string, unknown[]> {
  const tables = [
    'users',
    'embed_tenants',
    'groups',
    'user_attribute_definitions',
    'user_attribute_values',
    'group_memberships',
    'embed_sessions',
  ]
  return Object.fromEntries(
    tables.map((table) => [table, test.storage.sqlite.query(`SELECT * FROM ${table} ORDER BY rowid`).all()]),
  )
}
