import { afterAll, beforeAll } from 'bun:test'
import { readdirSync, rmSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { testStorage } from './helpers/bootstrapped-postgres'
import { postgresServer, stopDatabaseServers } from './helpers/database-servers'
import { ensureDemoDataFile } from '../plugins/semantic/demo/demo-data-file'
import { TEST_DEMO_DATA } from './helpers/demo-data'
import { removeDemoSourceFiles } from './helpers/demo-sources'
import { CLINIC_FOLDER } from './fixtures/clinic/make-data'
import { redisServer, stopRedisServer, testRegistry } from './helpers/redis-server'

// With TEST_REGISTRY=redis every test app's runs go through a throwaway Redis, started here once for the run.
if (testRegistry === 'redis') process.env.TEST_REDIS_URL = await redisServer()
// With TEST_STORAGE=postgres every test app's state lives in a database of its own on a throwaway Postgres server.
if (testStorage === 'postgres') {
  const server = new URL((await postgresServer()).url)
  server.pathname = '/postgres'
  process.env.TEST_POSTGRES_URL = server.toString()
}

// The shared demo data is made once before any test, outside every test's time limit: made by the first test that
// reads it (about 2 s alone, more on a busy machine), it pushed that test past bun's default 5 s.
beforeAll(() => {
  ensureDemoDataFile(TEST_DEMO_DATA)
}, 120_000)

// Preloaded by bunfig.toml: hooks here run once for the whole run. The run leaves no files behind: the shared demo
// data file goes, with its journal and any unfinished temporary copy.
afterAll(() => {
  // Throwaway Postgres and MariaDB servers (started by the data source tests) stop, and their folders go.
  stopDatabaseServers()
  stopRedisServer()
  removeDemoSourceFiles()
  // The clinic model's folder, made by the tests that ask it.
  rmSync(CLINIC_FOLDER, { recursive: true, force: true })
  const folder = dirname(TEST_DEMO_DATA)
  const name = basename(TEST_DEMO_DATA)
  for (const entry of readdirSync(folder)) if (entry.startsWith(name)) rmSync(join(folder, entry), { force: true })
  // Stopping the servers waits for them to exit; on a slow machine that can outlast bun's default 5 s hook limit.
}, 120_000)
