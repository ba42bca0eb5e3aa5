// Run by bootstrapped-sqlite.ts in a child process: applies the bootstrap file read from stdin to a new in-memory
// database and writes the database's image to stdout.
import { applyBootstrap } from '../../db/bootstrap/apply'
import { openStorage } from '../../db/client'

const storage = openStorage(':memory:')
try {
  await applyBootstrap(storage, JSON.parse(await Bun.stdin.text()), 'test bootstrap')
  process.stdout.write(storage.sqlite.serialize())
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`)
  process.exitCode = 1
} finally {
  await storage.close()
}
