import { Database } from 'bun:sqlite'
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { migrate } from '../../db/sqlite/migrate'
import { connectPostgres, withoutPassword } from '../../db/postgres/postgres-connect'
import { loadConfig } from '../../lib/config'
import { withNamedFile } from '../startup-error'
import type { CliCommand } from './command'

/** `service migrate`: what every start does first, on its own (before a deploy, say), reporting what it applied. */
export const migrateCommand: CliCommand = {
  name: 'migrate',
  summary: 'Apply the pending database migrations (Postgres at DATABASE_URL, else the SQLite DB_PATH) and exit.',
  usage: 'service migrate [--db PATH]',
  details: [
    'Options:',
    '  --db PATH  the SQLite database (default: DATABASE_URL when set, else DB_PATH, else ./data/service.db)',
    '',
    'On Postgres the migrations run under an advisory lock: a node starting meanwhile waits, then finds them done.',
  ].join('\n'),
  options: { db: { type: 'string' } },
  async run({ values }, io) {
    const config = loadConfig(io.env)
    if (typeof values.db !== 'string' && config.databaseUrl) {
      const client = await connectPostgres(config.databaseUrl, 1)
      try {
        const { migratePostgres } = await import('../../db/postgres/migrate-postgres')
        const applied = await migratePostgres(client)
        io.out(report(withoutPassword(config.databaseUrl), applied))
        return 0
      } finally {
        await client.close()
      }
    }
    const path = typeof values.db === 'string' ? values.db : config.dbPath
    return withNamedFile(typeof values.db === 'string' ? '--db' : 'DB_PATH', path, () => {
      if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
      const sqlite = new Database(path, { create: true, strict: true })
      try {
        sqlite.run('PRAGMA busy_timeout = 5000')
        if (path !== ':memory:') sqlite.run('PRAGMA journal_mode = WAL')
        sqlite.run('PRAGMA foreign_keys = ON')
        io.out(report(path, migrate(sqlite)))
        return 0
      } finally {
        sqlite.close()
      }
    })
  },
}

const report = (where: string, applied: string[]) =>
  applied.length === 0 ? `${where}: up to date\n` : `${where}: applied ${applied.join(', ')}\n`
