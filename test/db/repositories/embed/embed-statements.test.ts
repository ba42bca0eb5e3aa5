import { sqliteKind } from '../../../helpers/storages'
import { embedStatementsContract } from './embed-statements-contract'

// On Postgres: test/e2e/db/repositories/embed/embed-statements.test.ts.
embedStatementsContract([sqliteKind])
