import { beforeAll, describe, expect, it } from 'bun:test'
import { count } from 'drizzle-orm'
import { first } from '../../../db/client'
import { loadConfig } from '../../../lib/config'
import { createLogger } from '../../../lib/logger'
import { prepareStorage } from '../../../src/prepare-storage'
import { postgresAvailable, warnSkipped } from '../../helpers/database-servers'
import { POSTGRES_START_MS, postgresStarted, throwawayPostgresDatabase } from '../../helpers/postgres-databases'

if (!postgresAvailable) warnSkipped('the Postgres start-up tests')

describe.skipIf(!postgresAvailable)('prepareStorage with DATABASE_URL', () => {
  beforeAll(postgresStarted, POSTGRES_START_MS)
  it('lets several nodes start together on an empty database: one seeds the demo, the others find it', async () => {
    const database = await throwawayPostgresDatabase()
    try {
      const config = {
        ...loadConfig({ DATABASE_URL: database.url, DATABASE_POOL_SIZE: '2' }),
        bootstrapFile: undefined,
      }
      const nodes = await Promise.all([1, 2, 3].map(() => prepareStorage(config, createLogger('silent'))))
      try {
        // Exactly one node prints a demo key, and it is the one stored.
        expect(nodes.filter((node) => node.demoApiKey !== undefined)).toHaveLength(1)
        const [storage] = nodes.map((node) => node.storage)
        expect(storage.dialect).toBe('postgres')
        const { accounts, apiKeys, dashboards } = storage.tables
        expect(await first(storage.db.select({ n: count() }).from(accounts))).toEqual({ n: 1 })
        expect(await first(storage.db.select({ n: count() }).from(apiKeys))).toEqual({ n: 1 })
        expect(await first(storage.db.select({ n: count() }).from(dashboards))).toEqual({ n: 1 })
      } finally {
        await Promise.all(nodes.map((node) => node.storage.close()))
      }
    } finally {
      await database.drop()
    }
  })
})
