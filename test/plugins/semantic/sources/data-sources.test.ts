import { afterAll } from 'bun:test'
import { createDuckdbSource } from '../../../../plugins/semantic/sources/duckdb-source'
import { createMysqlSource } from '../../../../plugins/semantic/sources/mysql-source'
import { createPostgresSource } from '../../../../plugins/semantic/sources/postgres-source'
import { QueryPool } from '../../../../plugins/semantic/sources/query-pool'
import { createSqliteSource } from '../../../../plugins/semantic/sources/sqlite-source'
import { mariadbAvailable, postgresAvailable, warnSkipped } from '../../../helpers/database-servers'
import {
  duckdbDemoSource,
  mariadbDemoSource,
  postgresDemoSource,
  sqliteDemoSource,
} from '../../../helpers/demo-sources'
import { dataSourceContract } from './data-source-contract'

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

dataSourceContract('duckdb', async () => ({
  source: createDuckdbSource({ ...(await duckdbDemoSource()).config, ...limits }),
  slowSql: 'SELECT COUNT(*) FROM range(100000000000) AS a(x) WHERE x % 7 = 3',
}))

dataSourceContract(
  'postgres',
  async () => ({
    source: createPostgresSource({ ...(await postgresDemoSource()).config, ...limits }),
    slowSql: 'SELECT COUNT(*) FROM generate_series(1, 200000000)',
    connectionIdSql: 'SELECT pg_backend_pid()',
  }),
  { skip: !postgresAvailable, pooled: true },
)

dataSourceContract(
  'mariadb',
  async () => ({
    source: createMysqlSource({ ...(await mariadbDemoSource()).config, ...limits }),
    slowSql: 'SELECT SLEEP(5)',
    connectionIdSql: 'SELECT CONNECTION_ID()',
  }),
  { skip: !mariadbAvailable, pooled: true },
)

if (!postgresAvailable) warnSkipped('the Postgres DataSource contract')
if (!mariadbAvailable) warnSkipped('the MariaDB DataSource contract')
