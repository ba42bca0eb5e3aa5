import { sql } from 'drizzle-orm'
import { boolean, check, index, integer, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core'
import type { AttributeValue } from '../schema/foundation'
import { jsonText, ms } from './columns'

/** Accounts, keys, deployments, agents, users, groups and attributes (the SQLite `foundation` tables). */
export const accounts = pgTable(
  'accounts',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    name: text('name').notNull().unique(),
    plan: text('plan', { enum: ['free', 'starter', 'premium', 'enterprise'] }).notNull(),
    maxExternalUsers: integer('max_external_users').notNull().default(10000),
    showDashboardChat: boolean('show_dashboard_chat').notNull().default(true),
    createdAt: ms('created_at').notNull(),
  },
  (table) => [check('accounts_plan', sql`${table.plan} IN ('free', 'starter', 'premium', 'enterprise')`)],
)

export const apiKeys = pgTable(
  'api_keys',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    keyHash: text('key_hash').notNull().unique(),
    keyPrefix: text('key_prefix').notNull(),
    admin: boolean('admin').notNull().default(false),
    deploymentScope: jsonText<number[] | null>('deployment_scope'),
    revokedAt: ms('revoked_at'),
    createdAt: ms('created_at').notNull(),
  },
  (table) => [uniqueIndex('api_keys_account_name').on(table.accountId, table.name)],
)

/**
 * Ids come from the bootstrap file. The identity only keeps the id optional on insert, as SQLite's rowid does; it is
 * never drawn from while every insert names its id.
 */
export const deployments = pgTable(
  'deployments',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    model: text('model').notNull(),
    tokenAuthEnabled: boolean('token_auth_enabled').notNull().default(false),
    tokenAuthSecret: text('token_auth_secret'),
    createdAt: ms('created_at').notNull(),
  },
  (table) => [index('deployments_account').on(table.accountId)],
)

export const deploymentBranches = pgTable(
  'deployment_branches',
  {
    deploymentId: integer('deployment_id')
      .notNull()
      .references(() => deployments.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    isDefault: boolean('is_default').notNull().default(false),
    position: integer('position').notNull(),
  },
  (table) => [primaryKey({ columns: [table.deploymentId, table.name] })],
)

/** Ids come from the bootstrap file, as for deployments. */
export const agents = pgTable(
  'agents',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    deploymentId: integer('deployment_id')
      .notNull()
      .references(() => deployments.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    kind: text('kind', { enum: ['analyst', 'scripted'] })
      .notNull()
      .default('analyst'),
    config: jsonText<Record<string, unknown>>('config'),
  },
  (table) => [
    index('agents_deployment').on(table.deploymentId),
    check('agents_kind', sql`${table.kind} IN ('analyst', 'scripted')`),
  ],
)

export const embedTenants = pgTable(
  'embed_tenants',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    useCreatorMode: boolean('use_creator_mode').notNull().default(false),
    displayName: text('display_name'),
    createdAt: ms('created_at').notNull(),
  },
  (table) => [uniqueIndex('embed_tenants_account_name').on(table.accountId, table.name)],
)

export const users = pgTable(
  'users',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: ['internal', 'external'] }).notNull(),
    identity: text('identity').notNull(),
    email: text('email'),
    displayName: text('display_name'),
    picture: text('picture'),
    securityContext: jsonText<Record<string, unknown>>('security_context'),
    createdAt: ms('created_at').notNull(),
    updatedAt: ms('updated_at').notNull(),
  },
  (table) => [
    uniqueIndex('users_account_kind_identity').on(table.accountId, table.kind, table.identity),
    check('users_kind', sql`${table.kind} IN ('internal', 'external')`),
  ],
)

export const groups = pgTable(
  'groups',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    embedTenantId: integer('embed_tenant_id').references(() => embedTenants.id, { onDelete: 'cascade' }),
    namespace: text('namespace', { enum: ['group', 'tenant_group'] })
      .notNull()
      .default('group'),
    name: text('name').notNull(),
    description: text('description'),
    createdAt: ms('created_at').notNull(),
  },
  (table) => [
    // A tenant-wide group (no tenant) is unique too: NULLs would otherwise never collide.
    uniqueIndex('groups_scope_name').on(
      table.accountId,
      sql`coalesce(${table.embedTenantId}, 0)`,
      table.namespace,
      table.name,
    ),
    check('groups_namespace', sql`${table.namespace} IN ('group', 'tenant_group')`),
  ],
)

export const userAttributeDefinitions = pgTable(
  'user_attribute_definitions',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    embedTenantId: integer('embed_tenant_id').references(() => embedTenants.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    type: text('type', { enum: ['string', 'number', 'boolean', 'string_array', 'number_array'] }).notNull(),
    displayName: text('display_name'),
    defaultValue: text('default_value'),
    description: text('description'),
    createdAt: ms('created_at').notNull(),
  },
  (table) => [
    uniqueIndex('user_attribute_definitions_scope_name').on(
      table.accountId,
      sql`coalesce(${table.embedTenantId}, 0)`,
      table.name,
    ),
    check(
      'user_attribute_definitions_type',
      sql`${table.type} IN ('string', 'number', 'boolean', 'string_array', 'number_array')`,
    ),
  ],
)

export const userAttributeValues = pgTable(
  'user_attribute_values',
  {
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    attributeId: integer('attribute_id')
      .notNull()
      .references(() => userAttributeDefinitions.id, { onDelete: 'cascade' }),
    value: jsonText<AttributeValue>('value').notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.userId, table.attributeId] }),
    index('user_attribute_values_attribute').on(table.attributeId),
  ],
)

export const groupMemberships = pgTable(
  'group_memberships',
  {
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    groupId: integer('group_id')
      .notNull()
      .references(() => groups.id, { onDelete: 'cascade' }),
  },
  (table) => [
    primaryKey({ columns: [table.userId, table.groupId] }),
    index('group_memberships_group').on(table.groupId),
  ],
)

export const serverSecrets = pgTable('server_secrets', {
  name: text('name').primaryKey(),
  value: text('value').notNull(),
  createdAt: ms('created_at').notNull(),
})
