import { beforeAll } from 'bun:test'
import { openPostgresStorage } from '../../../../db/postgres/postgres-storage'
import { postgresAvailable, warnSkipped } from '../../../helpers/database-servers'
import { POSTGRES_START_MS, postgresStarted, throwawayPostgresDatabase } from '../../../helpers/postgres-databases'
import { describeStorageContract } from '../../../db/storage-contract'

beforeAll(postgresStarted, POSTGRES_START_MS)

if (postgresAvailable)
  describeStorageContract('Postgres', async () => {
    const database = await throwawayPostgresDatabase()
    const storage = await openPostgresStorage(database.url, { poolSize: 4 })
    return {
      storage,
      async dispose() {
        await storage.close()
        await database.drop()
      },
    }
  })
else warnSkipped('the Postgres storage contract tests')
