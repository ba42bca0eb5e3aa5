import { beforeAll } from 'bun:test'
import { postgresAvailable, warnSkipped } from '../../../../helpers/database-servers'
import { POSTGRES_START_MS, postgresStarted } from '../../../../helpers/postgres-databases'
import { postgresKind } from '../../../../helpers/storages'
import { embedStatementsContract } from '../../../../db/repositories/embed/embed-statements-contract'

// On SQLite: test/db/repositories/embed/embed-statements.test.ts.
if (postgresAvailable) {
  // The run's Postgres server starts on first use, which outlasts one test's time limit on a slow machine.
  beforeAll(postgresStarted, POSTGRES_START_MS)
  embedStatementsContract([postgresKind])
} else warnSkipped('the embed statements on Postgres')
