import { beforeAll } from 'bun:test'
import { postgresAvailable, warnSkipped } from '../../../helpers/database-servers'
import { POSTGRES_START_MS, postgresStarted } from '../../../helpers/postgres-databases'
import { postgresKind } from '../../../helpers/storages'
import { bootstrapPoliciesContract } from '../../../src/bootstrap/bootstrap-policies-contract'

// On SQLite: test/src/bootstrap/bootstrap-policies.test.ts.
if (postgresAvailable) {
  // The run's Postgres server starts on first use, which outlasts one test's time limit on a slow machine.
  beforeAll(postgresStarted, POSTGRES_START_MS)
  bootstrapPoliciesContract([postgresKind])
} else warnSkipped('the bootstrap and key policies on Postgres')
