import type { SQL } from 'bun'
import { NewerDatabaseError, type Migration } from '../sqlite/migrate'
import { postgresMigrations } from '../migrations-pg'

/**
 * The advisory lock every node takes before migrating (any constant works, as long as every version of the
 * service uses the same one): nodes starting together migrate one after the other, and the later ones find the
 * work done.
 */
export const MIGRATION_LOCK_KEY = 7_301_946_125_113

/** drizzle-kit separates the statements of a generated migration with this marker. */
const BREAKPOINT = '--> statement-breakpoint'

/**
 * Applies the Postgres migrations the database has not seen yet, each in its own transaction, recorded by tag in
 * `_migrations` (the same bookkeeping as SQLite's), holding `pg_advisory_lock` throughout. Returns the tags applied
 * now. Why not drizzle's migrator: it reads its files from disk at run time, which the compiled binary does not
 * have, and it takes no lock.
 */
export async function migratePostgres(client: SQL, migrations: readonly Migration[] = postgresMigrations) {
  // A session lock belongs to one connection: the whole migration runs on one taken out of the pool.
  const connection = await client.reserve()
  try {
    await connection.unsafe(`SELECT pg_advisory_lock(${MIGRATION_LOCK_KEY})`)
    try {
      await connection.unsafe(
        'CREATE TABLE IF NOT EXISTS _migrations (tag text PRIMARY KEY, applied_at bigint NOT NULL)',
      )
      const rows: Array<{ tag: string }> = await connection.unsafe('SELECT tag FROM _migrations')
      const applied = new Set(rows.map((row) => row.tag))
      const known = new Set(migrations.map((migration) => migration.tag))
      const unknown = [...applied].filter((tag) => !known.has(tag)).sort()
      if (unknown.length > 0) throw new NewerDatabaseError(unknown)
      const appliedNow: string[] = []
      for (const migration of migrations) {
        if (applied.has(migration.tag)) continue
        await connection.begin(async (transaction) => {
          for (const statement of migration.sql.split(BREAKPOINT)) {
            if (statement.trim() !== '') await transaction.unsafe(statement)
          }
          await transaction.unsafe('INSERT INTO _migrations (tag, applied_at) VALUES ($1, $2)', [
            migration.tag,
            Date.now(),
          ])
        })
        appliedNow.push(migration.tag)
      }
      return appliedNow
    } finally {
      await connection.unsafe(`SELECT pg_advisory_unlock(${MIGRATION_LOCK_KEY})`)
    }
  } finally {
    connection.release()
  }
}
