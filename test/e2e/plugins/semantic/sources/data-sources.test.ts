import { createMysqlSource } from '../../../../../plugins/semantic/sources/mysql-source'
import { createPostgresSource } from '../../../../../plugins/semantic/sources/postgres-source'
import { mariadbAvailable, postgresAvailable, warnSkipped } from '../../../../helpers/database-servers'
import { mariadbDemoSource, postgresDemoSource } from '../../../../helpers/demo-sources'
import { dataSourceContract } from '../../../../plugins/semantic/sources/data-source-contract'

// The sources on database servers, each a throwaway one; SQLite and DuckDB are in test/plugins/semantic/sources/.
const limits = { maxConnections: 2, queryTimeoutMs: 500 }

dataSourceContract(
  'postgres',
  async () => {
    const { config } = await postgresDemoSource()
    return {
      source: createPostgresSource({ ...config, ...limits }),
      slowSql: 'SELECT COUNT(*) FROM generate_series(1, 200000000)',
      connectionIdSql: 'SELECT pg_backend_pid()',
      inSchema: (schema) => createPostgresSource({ ...config, ...limits, schema }),
    }
  },
  { skip: !postgresAvailable, pooled: true, schemas: true },
)

dataSourceContract(
  'mariadb',
  async () => {
    const { config } = await mariadbDemoSource()
    return {
      source: createMysqlSource({ ...config, ...limits }),
      slowSql: 'SELECT SLEEP(5)',
      connectionIdSql: 'SELECT CONNECTION_ID()',
      inSchema: (schema) => createMysqlSource({ ...config, ...limits, schema }),
    }
  },
  { skip: !mariadbAvailable, pooled: true, schemas: true },
)

if (!postgresAvailable) warnSkipped('the Postgres DataSource contract')
if (!mariadbAvailable) warnSkipped('the MariaDB DataSource contract')
