import { sql } from 'drizzle-orm'
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'

/**
 * Accounts, keys, deployments, agents, users, groups and attributes (migration 0001). Times are Unix
 * milliseconds. A `null` `embedTenantId` means tenant-wide; a set one means scoped to that embed tenant.
 */
export const accounts = sqliteTable('accounts', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  name: text('name').notNull().unique(),
  plan: text('plan', { enum: ['free', 'starter', 'premium', 'enterprise'] }).notNull(),
  maxExternalUsers: integer('max_external_users').notNull().default(10000),
  showDashboardChat: integer('show_dashboard_chat', { mode: 'boolean' }).notNull().default(true),
  createdAt: integer('created_at').notNull(),
})

export const apiKeys = sqliteTable(
  'api_keys',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** SHA-256 of the key, hex. The key itself is never stored. */
    keyHash: text('key_hash').notNull().unique(),
    /** The first characters of the key, to tell keys apart in listings. */
    keyPrefix: text('key_prefix').notNull(),
    admin: integer('admin', { mode: 'boolean' }).notNull().default(false),
    /** JSON array of deployment ids, or null for an unscoped key. */
    deploymentScope: text('deployment_scope', { mode: 'json' }).$type<number[] | null>(),
    revokedAt: integer('revoked_at'),
    createdAt: integer('created_at').notNull(),
  },
  (table) => [uniqueIndex('api_keys_account_name').on(table.accountId, table.name)],
)

export const deployments = sqliteTable(
  'deployments',
  {
    id: integer('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** `demo` for the built-in model, else a folder of model files. */
    model: text('model').notNull(),
    tokenAuthEnabled: integer('token_auth_enabled', { mode: 'boolean' }).notNull().default(false),
    tokenAuthSecret: text('token_auth_secret'),
    createdAt: integer('created_at').notNull(),
  },
  (table) => [index('deployments_account').on(table.accountId)],
)

export const deploymentBranches = sqliteTable(
  'deployment_branches',
  {
    deploymentId: integer('deployment_id')
      .notNull()
      .references(() => deployments.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    isDefault: integer('is_default', { mode: 'boolean' }).notNull().default(false),
    position: integer('position').notNull(),
  },
  (table) => [primaryKey({ columns: [table.deploymentId, table.name] })],
)

export const agents = sqliteTable(
  'agents',
  {
    id: integer('id').primaryKey(),
    deploymentId: integer('deployment_id')
      .notNull()
      .references(() => deployments.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** `analyst` (offline or LLM) or `scripted` (a fixed script, for load tests). */
    kind: text('kind', { enum: ['analyst', 'scripted'] })
      .notNull()
      .default('analyst'),
    config: text('config', { mode: 'json' }).$type<Record<string, unknown>>(),
  },
  (table) => [index('agents_deployment').on(table.deploymentId)],
)

export const embedTenants = sqliteTable(
  'embed_tenants',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    useCreatorMode: integer('use_creator_mode', { mode: 'boolean' }).notNull().default(false),
    displayName: text('display_name'),
    createdAt: integer('created_at').notNull(),
  },
  (table) => [uniqueIndex('embed_tenants_account_name').on(table.accountId, table.name)],
)

export const users = sqliteTable(
  'users',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: ['internal', 'external'] }).notNull(),
    /** Internal: the username; external: the `externalId`. Always lowercased and trimmed. */
    identity: text('identity').notNull(),
    email: text('email'),
    displayName: text('display_name'),
    picture: text('picture'),
    securityContext: text('security_context', { mode: 'json' }).$type<Record<string, unknown>>(),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (table) => [uniqueIndex('users_account_kind_identity').on(table.accountId, table.kind, table.identity)],
)

export const groups = sqliteTable(
  'groups',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    embedTenantId: integer('embed_tenant_id').references(() => embedTenants.id, { onDelete: 'cascade' }),
    /** `group` for `groups`/`groupDefinitions`, `tenant_group` for `tenantGroups`/`tenantGroupDefinitions`. */
    namespace: text('namespace', { enum: ['group', 'tenant_group'] })
      .notNull()
      .default('group'),
    name: text('name').notNull(),
    description: text('description'),
    createdAt: integer('created_at').notNull(),
  },
  (table) => [
    uniqueIndex('groups_scope_name').on(
      table.accountId,
      sql`ifnull(${table.embedTenantId}, 0)`,
      table.namespace,
      table.name,
    ),
  ],
)

export const userAttributeDefinitions = sqliteTable(
  'user_attribute_definitions',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    embedTenantId: integer('embed_tenant_id').references(() => embedTenants.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    type: text('type', { enum: ['string', 'number', 'boolean', 'string_array', 'number_array'] }).notNull(),
    displayName: text('display_name'),
    defaultValue: text('default_value'),
    description: text('description'),
    createdAt: integer('created_at').notNull(),
  },
  (table) => [
    uniqueIndex('user_attribute_definitions_scope_name').on(
      table.accountId,
      sql`ifnull(${table.embedTenantId}, 0)`,
      table.name,
    ),
  ],
)

export const userAttributeValues = sqliteTable(
  'user_attribute_values',
  {
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    attributeId: integer('attribute_id')
      .notNull()
      .references(() => userAttributeDefinitions.id, { onDelete: 'cascade' }),
    value: text('value', { mode: 'json' }).$type<AttributeValue>().notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.userId, table.attributeId] }),
    index('user_attribute_values_attribute').on(table.attributeId),
  ],
)

export const groupMemberships = sqliteTable(
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

/** Server-wide secrets generated at first start (the embed token signing key). */
export const serverSecrets = sqliteTable('server_secrets', {
  name: text('name').primaryKey(),
  value: text('value').notNull(),
  createdAt: integer('created_at').notNull(),
})

export type AttributeValue = string | number | boolean | string[] | number[]
