import { afterAll } from 'bun:test'
import { createDuckdbSource } from '../../../../plugins/semantic/sources/duckdb-source'
import { QueryPool } from '../../../../plugins/semantic/sources/query-pool'
import { createSqliteSource } from '../../../../plugins/semantic/sources/sqlite-source'
import { duckdbDemoSource, sqliteDemoSource } from '../../../helpers/demo-sources'
import { dataSourceContract } from './data-source-contract'

// The sources inside the process; the database servers' (Postgres, MariaDB) are in test/e2e/plugins/semantic/sources/.
const limits = { maxConnections: 2, queryTimeoutMs: 500 }
const pool = new QueryPool({ size: 2, timeoutMs: 500 })
afterAll(() => pool.close())

dataSourceContract('sqlite', async () => {
  const { config } = await sqliteDemoSource()
  return {
    source: createSqliteSource({ path: config.path as string, pool, queryTimeoutMs: 500 }),
    slowSql: 'WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT COUNT(*) FROM n',
  }
})

dataSourceContract(
  'duckdb',
  async () => {
    const { config } = await duckdbDemoSource()
    return {
      source: createDuckdbSource({ ...config, ...limits }),
      slowSql: 'SELECT COUNT(*) FROM range(100000000000) AS a(x) WHERE x % 7 = 3',
      inSchema: (schema) => createDuckdbSource({ ...config, ...limits, schema }),
    }
  },
  { schemas: true },
)
