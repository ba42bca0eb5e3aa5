import { sqliteKind } from '../../helpers/storages'
import { bootstrapPoliciesContract } from './bootstrap-policies-contract'

// On Postgres: test/e2e/src/bootstrap/bootstrap-policies.test.ts.
bootstrapPoliciesContract([sqliteKind])
