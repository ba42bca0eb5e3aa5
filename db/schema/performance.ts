import { integer, sqliteTable } from 'drizzle-orm/sqlite-core'
import { accounts } from './foundation'

/**
 * External users per account (migration 0005), kept by triggers on `users`, so the external-user limit is checked
 * with one row read instead of a count over every user of the account.
 */
export const externalUserCounts = sqliteTable('external_user_counts', {
  accountId: integer('account_id')
    .primaryKey()
    .references(() => accounts.id, { onDelete: 'cascade' }),
  count: integer('count').notNull(),
})
