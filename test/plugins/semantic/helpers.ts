import { Database } from 'bun:sqlite'
import type { UserAccess } from '../../../plugins/auth/user-access'
import { createLogger } from '../../../lib/logger'
import type { SqlResult } from '../../../plugins/semantic/model'
import { formatValue } from '../../../plugins/semantic/compile/result-format'
import {
  createSemanticService,
  WHOLE_MODEL,
  type DeploymentRef,
  type SemanticServiceOptions,
} from '../../../plugins/semantic/semantic-service'
import type { ColumnType } from '../../../plugins/semantic/query/query-plan'
import { TEST_DEMO_DATA } from '../../helpers/demo-data'

/** Deployment 1 of the test bootstrap: the demo model on branches main and dev. */
export const demoDeployment: DeploymentRef = { id: 1, model: 'demo', branches: ['main', 'dev'], defaultBranch: 'main' }

/** A service over the run's shared demo data file. */
export function demoService(options: Partial<SemanticServiceOptions> = {}) {
  return createSemanticService({
    config: { dbPath: ':memory:', demoDataPath: TEST_DEMO_DATA },
    logger: createLogger('silent'),
    ...options,
  })
}

/** The access of an external user with these attributes and groups. */
export function user(userAttributes: UserAccess['userAttributes'], groups: string[] = [], userId = 42): UserAccess {
  return { userId, groups, userAttributes, securityContext: {} }
}

export { WHOLE_MODEL }

/** Runs hand-written SQL straight against a data file, read-only. */
export function rawRows(path: string, sql: string, params: Array<string | number> = []): unknown[][] {
  const database = new Database(path, { readonly: true })
  try {
    return database.query(sql).values(...params) as unknown[][]
  } finally {
    database.close()
  }
}

/** Raw rows as the wire would show them, typed by the semantic result's columns. */
export function formatted(rows: unknown[][], result: SqlResult): Array<Array<string | null>> {
  return rows.map((row) =>
    row.map((value, index) => formatValue(value, result.schema[index].column_type as ColumnType)),
  )
}
