import { createMysqlSource } from '../../../../../plugins/semantic/sources/mysql-source'
import { createPostgresSource } from '../../../../../plugins/semantic/sources/postgres-source'
import { mariadbAvailable, postgresAvailable, warnSkipped } from '../../../../helpers/database-servers'
import { mariadbDemoSource, postgresDemoSource } from '../../../../helpers/demo-sources'
import { dataSourceContract } from '../../../../plugins/semantic/sources/data-source-contract'

// The sources on database servers, each a throwaway one; SQLite and DuckDB are in test/plugins/semantic/sources/.
const limits = { maxConnections: 2, queryTimeoutMs: 500 }

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
