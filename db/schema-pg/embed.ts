import { sql } from 'drizzle-orm'
import { boolean, index, integer, pgTable, text } from 'drizzle-orm/pg-core'
import { jsonText, ms } from './columns'
import type { AttributeValue } from '../schema/foundation'
import { accounts, deployments, embedTenants, users } from './foundation'

/** Embed sessions (the SQLite `embed` table). */
export const embedSessions = pgTable(
  'embed_sessions',
  {
    id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
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
    creatorMode: boolean('creator_mode').notNull().default(false),
    settings: jsonText<{ showDashboardChat?: boolean }>('settings').notNull(),
    securityContext: jsonText<Record<string, unknown>>('security_context').notNull(),
    groups: jsonText<string[]>('groups').notNull(),
    userAttributes: jsonText<Record<string, AttributeValue>>('user_attributes').notNull(),
    createdAt: ms('created_at').notNull(),
    exchangedAt: ms('exchanged_at'),
    expiresAt: ms('expires_at').notNull(),
    revokedAt: ms('revoked_at'),
  },
  (table) => [
    index('embed_sessions_expires').on(table.expiresAt),
    index('embed_sessions_user').on(table.userId),
    index('embed_sessions_tenant').on(table.embedTenantId),
    index('embed_sessions_deployment').on(table.deploymentId),
    index('embed_sessions_account').on(table.accountId),
    index('embed_sessions_revoked')
      .on(table.revokedAt)
      .where(sql`${table.revokedAt} IS NOT NULL`),
  ],
)
