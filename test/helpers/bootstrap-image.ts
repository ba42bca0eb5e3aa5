// Run in a child process by bootstrapped-sqlite.ts and bootstrapped-postgres.ts, since applying a bootstrap is
// asynchronous and createTestApp is not. Reads the bootstrap file from stdin and applies it to a new database:
// without arguments, an in-memory SQLite one whose image it writes to stdout; with `postgres <server url> <name>`,
// a new database of that name on the server (closed when done, so it can serve as a template).
import { applyBootstrap } from '../../src/bootstrap/apply'
import type { Storage } from '../../db/client'
import { openStorage } from '../../db/sqlite/sqlite-storage'
import { openPostgresStorage } from '../../db/postgres/postgres-storage'

const [dialect, server, name] = process.argv.slice(2)
let storage: Storage | undefined
try {
  const file = JSON.parse(await Bun.stdin.text())
  if (dialect === 'postgres') {
    const admin = new Bun.SQL(server, { max: 1 })
    await admin.unsafe(`CREATE DATABASE ${name}`)
    await admin.close()
    const url = new URL(server)
    url.pathname = `/${name}`
    storage = await openPostgresStorage(url.toString(), { poolSize: 1 })
    await applyBootstrap(storage, file, 'test bootstrap')
  } else {
    const sqliteStorage = openStorage(':memory:')
    storage = sqliteStorage
    await applyBootstrap(storage, file, 'test bootstrap')
    process.stdout.write(sqliteStorage.sqlite.serialize())
  }
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`)
  process.exitCode = 1
} finally {
  await storage?.close()
}
