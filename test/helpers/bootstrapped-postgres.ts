import { SQL } from 'bun'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { join } from 'node:path'
import type { BootstrapFile } from '../../src/bootstrap/model'
import type { Storage } from '../../db/client'
import { postgresStorage } from '../../db/postgres/postgres-storage'
import { PG_BIN } from './database-servers'

/** Whether the test apps keep their state in Postgres (`TEST_STORAGE=postgres`) instead of SQLite in memory. */
export const testStorage: 'sqlite' | 'postgres' = process.env.TEST_STORAGE === 'postgres' ? 'postgres' : 'sqlite'

const BUILDER = fileURLToPath(new URL('./bootstrap-image.ts', import.meta.url))
const templates = new Map<string, string>()
let created = 0

/**
 * A database of its own on the run's Postgres server (`TEST_POSTGRES_URL`, started by the preload), with `file`
 * already applied, at once: each distinct file is applied once, in a child process, into a template database that
 * every app with that file is then copied from. The database is dropped when the storage closes, and the server
 * with everything on it when the run ends.
 */
export function bootstrappedPostgres(file: BootstrapFile): Storage {
  const server = process.env.TEST_POSTGRES_URL
  if (!server) throw new Error('TEST_STORAGE=postgres: the run has no Postgres server (is postgresql installed?)')
  const key = JSON.stringify(file)
  let template = templates.get(key)
  if (!template) {
    template = `test_template_${templates.size + 1}`
    check(spawnSync(process.execPath, [BUILDER, 'postgres', server, template], { input: key }), 'the test bootstrap')
    templates.set(key, template)
  }
  const name = `test_app_${++created}`
  const url = new URL(server)
  check(
    spawnSync(join(PG_BIN, 'createdb'), ['-h', url.hostname, '-p', url.port, '-U', url.username, '-T', template, name]),
    `database ${name}`,
  )
  url.pathname = `/${name}`
  const storage = postgresStorage(new SQL(url.toString(), { max: 4 }), url.toString())
  const close = storage.close.bind(storage)
  let dropped: Promise<void> | undefined
  storage.close = () =>
    (dropped ??= (async () => {
      await close()
      const admin = new SQL(server, { max: 1 })
      try {
        await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      } finally {
        await admin.close()
      }
    })())
  return storage
}

function check(result: ReturnType<typeof spawnSync>, what: string): void {
  if (result.status !== 0)
    throw new Error(`Could not create ${what} on Postgres: ${result.stderr?.toString().trim() || result.error}`)
}
