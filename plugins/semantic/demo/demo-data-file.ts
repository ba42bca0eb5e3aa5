import { Database } from 'bun:sqlite'
import { existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { randomToken } from '../../../lib/secrets'
import { DEMO_DATA_VERSION, generateDemoData, type DemoDataSummary } from './demo-data'

/**
 * Where the demo data lives: `DEMO_DATA_PATH` when set, else `demo-data.db` beside the service database, else (for
 * an in-memory database) a cache file in the OS temp folder named with the generator version, so every test run
 * and every `:memory:` server on the machine shares one generation.
 */
export function demoDataPath(config: { dbPath: string; demoDataPath: string | undefined }): string {
  if (config.demoDataPath) return config.demoDataPath
  if (config.dbPath !== ':memory:' && !config.dbPath.startsWith('file::memory:'))
    return join(dirname(config.dbPath), 'demo-data.db')
  return join(tmpdir(), `analytics-service-demo-data-v${DEMO_DATA_VERSION}.db`)
}

/** The generator version a finished file records, or undefined when the file is missing or unreadable. */
export function demoDataVersionOf(path: string): number | undefined {
  if (!existsSync(path)) return undefined
  try {
    const database = new Database(path, { readonly: true })
    try {
      const row = database.query<{ value: string }, []>("SELECT value FROM demo_meta WHERE key = 'version'").get()
      return row ? Number(row.value) : undefined
    } finally {
      database.close()
    }
  } catch {
    return undefined
  }
}

export interface DemoDataFile {
  path: string
  /** True when this call generated the file; false when a complete file was reused. */
  generated: boolean
  milliseconds: number
  bytes: number
}

/**
 * Makes sure a complete demo data file of the current generator version exists at `path`. A new file is written
 * under a unique temporary name and renamed into place, so a concurrent process (parallel tests, a second server)
 * either sees no file or a complete one, never half of it; when two processes race, both produce identical
 * files and the last rename wins.
 */
export function ensureDemoDataFile(path: string): DemoDataFile {
  const startedAt = performance.now()
  if (demoDataVersionOf(path) === DEMO_DATA_VERSION)
    return { path, generated: false, milliseconds: performance.now() - startedAt, bytes: statSync(path).size }
  mkdirSync(dirname(path), { recursive: true })
  const temporary = `${path}.${process.pid}.${randomToken(6)}.tmp`
  writeDemoData(temporary)
  renameSync(temporary, path)
  return { path, generated: true, milliseconds: performance.now() - startedAt, bytes: statSync(path).size }
}

/** Generates the demo data into a new file at `path` (removed again if generation fails). */
export function writeDemoData(path: string): DemoDataSummary {
  const database = new Database(path, { create: true, strict: true })
  try {
    // A throwaway file until it is renamed: no journal, no syncs; the rename is the commit.
    database.run('PRAGMA journal_mode = OFF')
    database.run('PRAGMA synchronous = OFF')
    return generateDemoData(database)
  } catch (error) {
    database.close()
    rmSync(path, { force: true })
    throw error
  } finally {
    database.close()
  }
}
