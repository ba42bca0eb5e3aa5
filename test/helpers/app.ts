import type { Storage } from '../../db/client'
import { applyBootstrap } from '../../src/bootstrap/apply'
import type { BootstrapFile } from '../../src/bootstrap/model'
import { createApp } from '../../src/app'
import { loadConfig, type Config } from '../../lib/config'
import { createDeps, type AppDeps, type DepsOverrides } from '../../src/deps'
import { createLogger } from '../../lib/logger'
import { testBootstrap } from './fixtures'
import { TEST_DEMO_DATA } from './demo-data'
import { RedisRunRegistry } from '../../plugins/chat/registry/redis/redis-run-registry'
import { RedisClusterBus } from '../../lib/redis-cluster-bus'
import { randomToken } from '../../lib/secrets'
import type { Logger } from '../../lib/logger'
import { bootstrappedPostgres, testStorage } from './bootstrapped-postgres'
import { bootstrappedSqlite } from './bootstrapped-sqlite'

export interface TestAppOptions extends DepsOverrides {
  bootstrap?: BootstrapFile
  config?: Partial<Config>
  storage?: Storage
}

/** A controllable clock for tests: `advance(ms)` moves it. */
export function testClock(start = Date.UTC(2026, 6, 20, 12, 0, 0)) {
  let now = start
  const clock = () => now
  clock.advance = (ms: number) => {
    now += ms
  }
  clock.set = (value: number) => {
    now = value
  }
  return clock
}

/**
 * A new database of the run's kind with `bootstrap` (the test bootstrap by default) already in place: SQLite in
 * memory, or a Postgres database of its own with `TEST_STORAGE=postgres`. For tests that share one storage between
 * apps (nodes of one cluster) or hand it to a registry; `createTestApp` makes one itself otherwise. The caller
 * closes it (an app given it does, on `close()`).
 */
export function testAppStorage(bootstrap: BootstrapFile = testBootstrap()): Storage {
  return testStorage === 'postgres' ? bootstrappedPostgres(bootstrap) : bootstrappedSqlite(bootstrap)
}

/**
 * A fresh app with the test bootstrap (or `options.bootstrap`) applied: over a new database where the bootstrap is in
 * place at once (SQLite in memory, or a Postgres database of its own with `TEST_STORAGE=postgres`), or over
 * `options.storage`, where it is applied asynchronously: `request` waits for it, and a test that uses that storage
 * before its first request awaits `ready`.
 */
export function createTestApp(options: TestAppOptions = {}) {
  const config: Config = {
    ...loadConfig({ ANALYST_DELAY_MS: '0' }),
    dbPath: ':memory:',
    demoDataPath: TEST_DEMO_DATA,
    ...options.config,
  }
  const bootstrap = options.bootstrap ?? testBootstrap()
  const storage = options.storage ?? testAppStorage(bootstrap)
  const ready = options.storage
    ? applyBootstrap(storage, bootstrap, 'test bootstrap').then(() => undefined)
    : Promise.resolve()
  // Reported by `request` and `ready`; not an unhandled rejection if the test never awaits either.
  ready.catch(() => undefined)
  const logger = options.logger ?? createLogger('silent')
  // `registry: undefined` asks for the in-memory registry whatever TEST_REGISTRY says.
  const shared =
    'registry' in options ? { registry: options.registry } : testRunRegistry(storage, logger, options.clock ?? Date.now)
  const deps: AppDeps = createDeps(config, storage, { logger, ...shared, ...options })
  const app = createApp(deps)
  return {
    app,
    deps,
    storage,
    /** Settles once the test bootstrap is in the storage. */
    ready,
    /** Sends a request through `app.handle()` (no network). `body` objects are sent as JSON. */
    async request(method: string, path: string, init: { body?: unknown; headers?: Record<string, string> } = {}) {
      await ready
      const headers: Record<string, string> = { ...init.headers }
      let body: BodyInit | undefined
      if (init.body !== undefined) {
        body = typeof init.body === 'string' ? init.body : JSON.stringify(init.body)
        headers['content-type'] ??= 'application/json'
      }
      return app.handle(new Request(`http://localhost${path}`, { method, headers, body }))
    },
    async close() {
      await ready.catch(() => undefined)
      await deps.lifecycle.shutdown()
      await storage.close()
    },
  }
}

export type TestApp = ReturnType<typeof createTestApp>

export const apiKey = (key: string) => ({ authorization: `Api-Key ${key}` })

/**
 * With `TEST_REGISTRY=redis`, a Redis run registry and cluster bus of their own (their own key prefix on the run's
 * Redis) for each test app; else none, and the app gets the in-memory ones.
 */
export function testRunRegistry(storage: Storage, logger: Logger, clock: () => number, leaseMs?: number) {
  const url = process.env.TEST_REDIS_URL
  if (process.env.TEST_REGISTRY !== 'redis' || !url) return {}
  return redisNode({ url, storage, logger, clock, prefix: `test:${randomToken(6)}:`, leaseMs })
}

/**
 * What one node shares with the others through Redis: its run registry and its cluster bus, over one key prefix (the
 * nodes of one service share it). Spread into `createTestApp`'s options, or closed by the caller (registry first).
 * The bus's upkeep runs as often as the registry's (a quarter lease), so short leases make quick tests of outages.
 */
export function redisNode(options: {
  url: string
  storage: Storage
  logger: Logger
  prefix: string
  clock?: () => number
  leaseMs?: number
}) {
  const { url, storage, logger, prefix, clock = Date.now, leaseMs } = options
  const bus = new RedisClusterBus({ url, logger, prefix, upkeepMs: upkeepMs(leaseMs) })
  return { bus, registry: new RedisRunRegistry({ url, storage, logger, clock, prefix, leaseMs, bus }) }
}

const upkeepMs = (leaseMs: number | undefined) =>
  leaseMs === undefined ? undefined : Math.max(10, Math.floor(leaseMs / 4))
