import type { Database } from 'bun:sqlite'
import { migrations as builtIn } from './migrations'

/**
 * Applies the migrations that the database has not seen yet, each in its own transaction, and records them in
 * `_migrations`. Returns the tags applied now.
 */
export function migrate(sqlite: Database, migrations: readonly { tag: string; sql: string }[] = builtIn): string[] {
  sqlite.run('CREATE TABLE IF NOT EXISTS _migrations (tag TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)')
  const applied = new Set(
    sqlite
      .query<{ tag: string }, []>('SELECT tag FROM _migrations')
      .all()
      .map((row) => row.tag),
  )
  const appliedNow: string[] = []
  for (const migration of migrations) {
    if (applied.has(migration.tag)) continue
    sqlite.transaction(() => {
      sqlite.run(migration.sql)
      sqlite.run('INSERT INTO _migrations (tag, applied_at) VALUES (?, ?)', [migration.tag, Date.now()])
    })()
    appliedNow.push(migration.tag)
  }
  return appliedNow
}
