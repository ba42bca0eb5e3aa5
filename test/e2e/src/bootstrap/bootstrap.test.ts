import { beforeAll } from 'bun:test'
import { postgresAvailable, warnSkipped } from '../../../helpers/database-servers'
import { POSTGRES_START_MS, postgresStarted } from '../../../helpers/postgres-databases'
import { postgresKind } from '../../../helpers/storages'
import { applyBootstrapContract } from '../../../src/bootstrap/bootstrap-contract'

// applyBootstrap on Postgres; on SQLite, with the bootstrap file's own tests, in test/src/bootstrap/bootstrap.test.ts.
if (postgresAvailable) {
  // The run's Postgres server starts on first use, which outlasts one test's time limit on a slow machine.
  beforeAll(postgresStarted, POSTGRES_START_MS)
  applyBootstrapContract([postgresKind])
} else warnSkipped('applyBootstrap on Postgres')
