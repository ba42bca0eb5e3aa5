import { integer, pgTable } from 'drizzle-orm/pg-core'
import { accounts } from './foundation'

/** External users per account, kept by triggers on `users` (a migration of its own: drizzle has no triggers). */
export const externalUserCounts = pgTable('external_user_counts', {
  accountId: integer('account_id')
    .primaryKey()
    .references(() => accounts.id, { onDelete: 'cascade' }),
  count: integer('count').notNull(),
})
