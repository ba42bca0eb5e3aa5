import { Database } from 'bun:sqlite'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import type { BootstrapFile } from '../../src/bootstrap/model'
import type { Storage } from '../../db/client'
import { sqliteStorage } from '../../db/sqlite/sqlite-storage'

const BUILDER = fileURLToPath(new URL('./bootstrap-image.ts', import.meta.url))
const images = new Map<string, Uint8Array>()

/**
 * A new in-memory SQLite storage with `file` already applied, at once: `createTestApp` is synchronous and most tests
 * use the storage before their first request, but applying a bootstrap is asynchronous. So each distinct file is
 * applied once, in a child process, into a database whose image every app with that file then starts from (a copy
 * in memory, quicker than applying the file again).
 */
export function bootstrappedSqlite(file: BootstrapFile): Storage {
  const key = JSON.stringify(file)
  let image = images.get(key)
  if (!image) {
    image = buildImage(key)
    images.set(key, image)
  }
  return sqliteStorage(Database.deserialize(image, { strict: true }), ':memory:')
}

function buildImage(file: string): Uint8Array {
  const result = spawnSync(process.execPath, [BUILDER, 'sqlite'], { input: file, maxBuffer: 256 * 1024 * 1024 })
  if (result.status !== 0)
    throw new Error(`The test bootstrap could not be applied: ${result.stderr.toString().trim() || result.error}`)
  return new Uint8Array(result.stdout)
}
