import { sql } from 'drizzle-orm'
import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import type { AttributeValue } from './foundation'
import { accounts, deployments, embedTenants, users } from './foundation'

/**
 * Embed sessions (migration 0003). The `sessionId` handed to the caller is stored only as its SHA-256; tokens carry
 * the non-secret `publicId`. A session records what it grants at mint time (a snapshot of groups and attribute
 * values), so later changes to the user never widen a session already handed out. Times are Unix milliseconds.
 */
export const embedSessions = sqliteTable(
  'embed_sessions',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    publicId: text('public_id').notNull().unique(),
    secretHash: text('secret_hash').notNull().unique(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    deploymentId: integer('deployment_id')
      .notNull()
      .references(() => deployments.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    embedTenantId: integer('embed_tenant_id').references(() => embedTenants.id, { onDelete: 'cascade' }),
    creatorMode: integer('creator_mode', { mode: 'boolean' }).notNull().default(false),
    /** The per-session overrides as sent (`showDashboardChat` absent means the account-wide setting applies). */
    settings: text('settings', { mode: 'json' }).$type<{ showDashboardChat?: boolean }>().notNull(),
    securityContext: text('security_context', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    groups: text('groups', { mode: 'json' }).$type<string[]>().notNull(),
    userAttributes: text('user_attributes', { mode: 'json' }).$type<Record<string, AttributeValue>>().notNull(),
    createdAt: integer('created_at').notNull(),
    exchangedAt: integer('exchanged_at'),
    /** Until exchanged: the exchange deadline (mint + 5 minutes); after: the token's expiry. Pruned once past. */
    expiresAt: integer('expires_at').notNull(),
    revokedAt: integer('revoked_at'),
  },
  (table) => [
    index('embed_sessions_expires').on(table.expiresAt),
    index('embed_sessions_user').on(table.userId),
    index('embed_sessions_tenant').on(table.embedTenantId),
    index('embed_sessions_deployment').on(table.deploymentId),
    index('embed_sessions_account').on(table.accountId),
    // Migration 0005: pruning finds revoked sessions without a scan.
    index('embed_sessions_revoked')
      .on(table.revokedAt)
      .where(sql`${table.revokedAt} IS NOT NULL`),
  ],
)
