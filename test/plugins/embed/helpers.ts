import { and, asc, count, eq, getTableName, sql, type AnyColumn, type SQL } from 'drizzle-orm'
import type { SQLiteTable } from 'drizzle-orm/sqlite-core'
import { first } from '../../../db/client'
import { apiKey, type TestApp } from '../../helpers/app'
import { keys } from '../../helpers/fixtures'

/**
 * Reads of the stored end state, straight from the tables, so tests check what was really written. Built from the
 * storage's own tables and awaited, so the same test reads them from SQLite or from Postgres; labels are sorted here
 * (code-unit order, as SQLite's binary collation) rather than by the database, whose collation may differ.
 */
export interface UserRow {
  id: number
  kind: string
  identity: string
  email: string | null
  displayName: string | null
  picture: string | null
  securityContext: string | null
}

const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/** A JSON column as the text that is stored, not drizzle's parsed value. */
const storedText = (column: AnyColumn) => sql<string>`${column}`

export async function userRow(
  test: TestApp,
  identity: string,
  kind: 'internal' | 'external' = 'external',
  accountName = 'acme',
): Promise<UserRow | undefined> {
  const { users, accounts } = test.storage.tables
  return first(
    test.storage.db
      .select({
        id: users.id,
        kind: users.kind,
        identity: users.identity,
        email: users.email,
        displayName: users.displayName,
        picture: users.picture,
        securityContext: storedText(users.securityContext),
      })
      .from(users)
      .innerJoin(accounts, eq(accounts.id, users.accountId))
      .where(and(eq(users.identity, identity), eq(users.kind, kind), eq(accounts.name, accountName))),
  )
}

/** Group memberships as `name` (tenant-wide) or `tenant/name` and `tenant#name` (scoped groups and tenant groups). */
export async function groupsOf(test: TestApp, userId: number): Promise<string[]> {
  const { groupMemberships, groups, embedTenants } = test.storage.tables
  const rows = await test.storage.db
    .select({ tenant: embedTenants.name, namespace: groups.namespace, name: groups.name })
    .from(groupMemberships)
    .innerJoin(groups, eq(groups.id, groupMemberships.groupId))
    .leftJoin(embedTenants, eq(embedTenants.id, groups.embedTenantId))
    .where(eq(groupMemberships.userId, userId))
  return rows
    .map((row) =>
      row.tenant === null ? row.name : `${row.tenant}${row.namespace === 'tenant_group' ? '#' : '/'}${row.name}`,
    )
    .sort(byCodeUnits)
}

/** Attribute values as `{ name: value }` (tenant-wide) or `{ 'tenant/name': value }` (scoped). */
export async function valuesOf(test: TestApp, userId: number): Promise<Record<string, unknown>> {
  const { userAttributeValues, userAttributeDefinitions, embedTenants } = test.storage.tables
  const rows = await test.storage.db
    .select({
      tenant: embedTenants.name,
      name: userAttributeDefinitions.name,
      value: storedText(userAttributeValues.value),
    })
    .from(userAttributeValues)
    .innerJoin(userAttributeDefinitions, eq(userAttributeDefinitions.id, userAttributeValues.attributeId))
    .leftJoin(embedTenants, eq(embedTenants.id, userAttributeDefinitions.embedTenantId))
    .where(eq(userAttributeValues.userId, userId))
  const labelled = rows.map((row) => ({
    label: row.tenant === null ? row.name : `${row.tenant}/${row.name}`,
    value: row.value,
  }))
  labelled.sort((a, b) => byCodeUnits(a.label, b.label))
  return Object.fromEntries(labelled.map((row) => [row.label, JSON.parse(row.value)]))
}

/** Every stored attribute value, as its stored JSON text. */
export function storedAttributeValues(test: TestApp) {
  const { userAttributeValues } = test.storage.tables
  return test.storage.db.select({ value: storedText(userAttributeValues.value) }).from(userAttributeValues)
}

/** The storage's table named `name` in SQL. */
function tableNamed(test: TestApp, name: string): SQLiteTable {
  const table = Object.values(test.storage.tables).find(
    (candidate) =>
      typeof candidate === 'object' && candidate !== null && getTableName(candidate as SQLiteTable) === name,
  )
  if (!table) throw new Error(`no table ${name}`)
  return table as SQLiteTable
}

/** Number of rows of `table` (that match `where`), for "nothing was written" checks. */
export async function countRows(test: TestApp, table: string, where?: SQL): Promise<number> {
  const row = await first(test.storage.db.select({ count: count() }).from(tableNamed(test, table)).where(where))
  return row!.count
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

export async function sessionRows(test: TestApp): Promise<SessionRow[]> {
  const { embedSessions } = test.storage.tables
  const rows = await test.storage.db
    .select({
      userId: embedSessions.userId,
      deploymentId: embedSessions.deploymentId,
      embedTenantId: embedSessions.embedTenantId,
      creatorMode: embedSessions.creatorMode,
      settings: storedText(embedSessions.settings),
      securityContext: storedText(embedSessions.securityContext),
      groups: storedText(embedSessions.groups),
      userAttributes: storedText(embedSessions.userAttributes),
      secretHash: embedSessions.secretHash,
      exchangedAt: embedSessions.exchangedAt,
      revokedAt: embedSessions.revokedAt,
    })
    .from(embedSessions)
    .orderBy(asc(embedSessions.id))
  // Flags as SQLite stores them (0 or 1), whichever database they came from.
  return rows.map((row) => ({ ...row, creatorMode: Number(row.creatorMode) }))
}

export async function tenantRow(
  test: TestApp,
  name: string,
): Promise<{ id: number; useCreatorMode: number; displayName: string | null } | undefined> {
  const { embedTenants } = test.storage.tables
  const row = await first(
    test.storage.db
      .select({
        id: embedTenants.id,
        useCreatorMode: embedTenants.useCreatorMode,
        displayName: embedTenants.displayName,
      })
      .from(embedTenants)
      .where(eq(embedTenants.name, name)),
  )
  return row && { ...row, useCreatorMode: Number(row.useCreatorMode) }
}

/** Groups as `name[:description]` per scope label (`-` tenant-wide, else the tenant name, `#` for tenant groups). */
export async function groupCatalog(test: TestApp): Promise<string[]> {
  const { groups, embedTenants, accounts } = test.storage.tables
  const rows = await test.storage.db
    .select({
      tenant: embedTenants.name,
      namespace: groups.namespace,
      name: groups.name,
      description: groups.description,
    })
    .from(groups)
    .leftJoin(embedTenants, eq(embedTenants.id, groups.embedTenantId))
    .innerJoin(accounts, eq(accounts.id, groups.accountId))
    .where(eq(accounts.name, 'acme'))
  return rows
    .map(
      (row) =>
        `${row.tenant ?? '-'}${row.namespace === 'tenant_group' ? '#' : '/'}${row.name}` +
        (row.description === null ? '' : `:${row.description}`),
    )
    .sort(byCodeUnits)
}

/** Attribute definitions as `scope/name:type[:displayName][:defaultValue][:description]`. */
export async function attributeCatalog(test: TestApp): Promise<string[]> {
  const { userAttributeDefinitions: definitions, embedTenants, accounts } = test.storage.tables
  const rows = await test.storage.db
    .select({
      tenant: embedTenants.name,
      name: definitions.name,
      type: definitions.type,
      displayName: definitions.displayName,
      defaultValue: definitions.defaultValue,
      description: definitions.description,
    })
    .from(definitions)
    .leftJoin(embedTenants, eq(embedTenants.id, definitions.embedTenantId))
    .innerJoin(accounts, eq(accounts.id, definitions.accountId))
    .where(eq(accounts.name, 'acme'))
  const optional = (value: string | null) => (value === null ? '' : `:${value}`)
  return rows
    .map(
      (row) =>
        `${row.tenant ?? '-'}/${row.name}:${row.type}` +
        optional(row.displayName) +
        optional(row.defaultValue) +
        optional(row.description),
    )
    .sort(byCodeUnits)
}

/** Everything a generate-session call may write, for "a failing call leaves nothing behind" checks. */
export async function snapshotTables(test: TestApp): Promise<Record<string, unknown[]>> {
  const tables = [
    'users',
    'embed_tenants',
    'groups',
    'user_attribute_definitions',
    'user_attribute_values',
    'group_memberships',
    'embed_sessions',
  ]
  const snapshot: Record<string, unknown[]> = {}
  for (const table of tables) {
    const rows = await test.storage.db.select().from(tableNamed(test, table))
    // In a stable order whatever order the database returns them in.
    snapshot[table] = rows.map((row) => JSON.stringify(row)).sort(byCodeUnits)
  }
  return snapshot
}
