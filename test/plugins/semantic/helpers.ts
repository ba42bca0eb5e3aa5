import { Database } from 'bun:sqlite'
import { afterAll } from 'bun:test'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { UserAccess } from '../../../plugins/auth/user-provisioner'
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

/**
 * A model folder of one file in a new temp folder (deleted once the file's tests are done), for a table the test
 * writes into a source of its own.
 */
export function scratchModel(name: string, yaml: string): { folder: string; model: string } {
  const folder = mkdtempSync(join(tmpdir(), `${name}-`))
  afterAll(() => rmSync(folder, { recursive: true, force: true }))
  const model = join(folder, 'model')
  mkdirSync(model)
  writeFileSync(join(model, `${name}.yml`), yaml)
  return { folder, model }
}

/** The data of each query, asked of the folder model `model` over the data source `config`. */
export async function queryModel(model: string, config: Record<string, unknown>, queries: string[]) {
  const semantic = demoService({
    dataSources: new Map([[9, { maxConnections: 2, queryTimeoutMs: 30_000, ...config } as never]]),
  })
  try {
    const deployment = { id: 9, model, branches: ['main'], defaultBranch: 'main' }
    const results: unknown[][] = []
    for (const query of queries) results.push((await semantic.query({ deployment, access: WHOLE_MODEL }, query)).data)
    return results
  } finally {
    semantic.close()
  }
}
