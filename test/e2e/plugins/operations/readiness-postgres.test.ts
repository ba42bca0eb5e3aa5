import { afterEach, beforeAll, describe, expect, it } from 'bun:test'
import type { Storage } from '../../../../db/client'
import { openPostgresStorage } from '../../../../db/postgres/postgres-storage'
import { createReadiness } from '../../../../plugins/operations/readiness'
import { postgresAvailable, warnSkipped } from '../../../helpers/database-servers'
import {
  POSTGRES_START_MS,
  postgresStarted,
  throwawayPostgresDatabase,
  type ThrowawayDatabase,
} from '../../../helpers/postgres-databases'

if (!postgresAvailable) warnSkipped('the Postgres readiness tests')

const running = { isShuttingDown: false }
const registry = { shared: false, check: async () => undefined }

describe.skipIf(!postgresAvailable)('readiness with the state in Postgres', () => {
  beforeAll(postgresStarted, POSTGRES_START_MS)
  let database: ThrowawayDatabase | undefined
  let storage: Storage | undefined
  afterEach(async () => {
    await storage?.close()
    await database?.drop()
    storage = undefined
    database = undefined
  })

  it('reports the storage and the postgres checks as ok while the server answers', async () => {
    database = await throwawayPostgresDatabase()
    storage = await openPostgresStorage(database.url, { poolSize: 2 })
    const readiness = await createReadiness({ storage, lifecycle: running, registry })()
    expect(readiness.ready).toBe(true)
    expect(Object.keys(readiness.checks).sort()).toEqual(['postgres', 'storage'])
    expect(readiness.checks.postgres.status).toBe('ok')
  })

  it('is unready, naming both checks, once the pool is gone', async () => {
    database = await throwawayPostgresDatabase()
    storage = await openPostgresStorage(database.url, { poolSize: 2 })
    await storage.close()
    const readiness = await createReadiness({ storage, lifecycle: running, registry })()
    expect(readiness.ready).toBe(false)
    expect(readiness.checks.storage.status).toBe('failing')
    expect(readiness.checks.postgres.status).toBe('failing')
  })
})

describe('readiness checks that hang', () => {
  it('fail after the time limit instead of holding /readyz', async () => {
    const { openStorage } = await import('../../../../db/sqlite/sqlite-storage')
    const sqlite = openStorage(':memory:')
    const readiness = createReadiness(
      { storage: sqlite, lifecycle: running, registry },
      { redis: () => new Promise<void>(() => undefined) },
      50,
    )
    const result = await readiness()
    expect(result.ready).toBe(false)
    expect(result.checks.redis).toMatchObject({ status: 'failing', error: 'redis did not answer within 50 ms' })
    expect(result.checks.storage.status).toBe('ok')
    await sqlite.close()
  })

  it('list data sources with their state, a hanging one failing, without making the node unready', async () => {
    const { openStorage } = await import('../../../../db/sqlite/sqlite-storage')
    const sqlite = openStorage(':memory:')
    const down = { deploymentId: 3, type: 'postgres', ok: false, error: 'unavailable' }
    const listing = createReadiness(
      { storage: sqlite, lifecycle: running, registry, semantic: { sourceHealth: async () => [down] } },
      {},
      50,
    )
    const listed = await listing()
    expect(listed.ready).toBe(true)
    expect(listed.checks['dataSource:3']).toMatchObject({ status: 'failing', error: 'unavailable', required: false })
    const hanging = createReadiness(
      { storage: sqlite, lifecycle: running, registry, semantic: { sourceHealth: () => new Promise(() => undefined) } },
      {},
      50,
    )
    const result = await hanging()
    expect(result.ready).toBe(true)
    expect(result.checks.dataSources).toMatchObject({
      status: 'failing',
      error: 'the data sources did not answer within 50 ms',
    })
    await sqlite.close()
  })
})
