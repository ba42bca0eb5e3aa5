import type { Database } from 'bun:sqlite'
import { migrations as builtIn } from '../migrations'

export interface Migration {
  tag: string
  sql: string
}

/** The database was migrated by a newer build: running this one over it could misread or damage its data. */
export class NewerDatabaseError extends Error {
  constructor(readonly unknownTags: string[]) {
    super(
      `The database has migrations this build does not know (${unknownTags.join(', ')}): it was used by a newer ` +
        'version of the service. Run that version, or restore a backup taken before the upgrade.',
    )
    this.name = 'NewerDatabaseError'
  }
}

/**
 * Applies the migrations that the database has not seen yet, each in its own transaction, and records them in
 * `_migrations`. Returns the tags applied now.
 *
 * Why not drizzle's migrator: it reads a folder of SQL files and a journal from disk at run time, which a single
 * compiled binary does not have (these are imported as text and embedded); it orders migrations by the journal's
 * timestamps and applies all pending ones in one transaction, where this applies each in its own and records it by
 * tag; and its statements must be split by markers, where these files hold triggers whose bodies contain `;`.
 */
export function migrate(sqlite: Database, migrations: readonly Migration[] = builtIn): string[] {
  sqlite.run('CREATE TABLE IF NOT EXISTS _migrations (tag TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)')
  const applied = new Set(
    sqlite
      .query<{ tag: string }, []>('SELECT tag FROM _migrations')
      .all()
      .map((row) => row.tag),
  )
  const known = new Set(migrations.map((migration) => migration.tag))
  const unknown = [...applied].filter((tag) => !known.has(tag)).sort()
  if (unknown.length > 0) throw new NewerDatabaseError(unknown)
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
