import { Database } from 'bun:sqlite'
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { migrate } from '../../db/migrate'
import { loadConfig } from '../../lib/config'
import type { CliCommand } from './command'

/** `service migrate`: what every start does first, on its own (before a deploy, say), reporting what it applied. */
export const migrateCommand: CliCommand = {
  name: 'migrate',
  summary: 'Apply the pending database migrations to DB_PATH and exit.',
  usage: 'service migrate [--db PATH]',
  details: 'Options:\n  --db PATH  the SQLite database (default: DB_PATH, else ./data/service.db)',
  options: { db: { type: 'string' } },
  async run({ values }, io) {
    const config = loadConfig(io.env)
    const path = typeof values.db === 'string' ? values.db : config.dbPath
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
    const sqlite = new Database(path, { create: true, strict: true })
    try {
      sqlite.run('PRAGMA busy_timeout = 5000')
      if (path !== ':memory:') sqlite.run('PRAGMA journal_mode = WAL')
      sqlite.run('PRAGMA foreign_keys = ON')
      const applied = migrate(sqlite)
      io.out(applied.length === 0 ? `${path}: up to date\n` : `${path}: applied ${applied.join(', ')}\n`)
      return 0
    } finally {
      sqlite.close()
    }
  },
}
