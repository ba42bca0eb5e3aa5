import { postgresInstalled, REDIS_BIN, startPostgresCluster, startRedisProcess } from '../../harness/backing-servers'

/**
 * The servers a deployment of several nodes needs, started for the bench in its temporary folder through the tests'
 * own harness (`harness/backing-servers.ts`): a Postgres cluster (durability as in production: fsync on) and a Redis
 * (no persistence, as the compose file runs it). Each `stop()` ends its server; the folder goes with the bench's.
 */
export interface BackingServer {
  url: string
  pid: number
  stop(): Promise<void>
}

/** Why the several-node scenarios cannot run here, or undefined when they can. */
export function backingServersMissing(): string | undefined {
  if (!postgresInstalled()) return 'Postgres is not installed (apt-get install postgresql)'
  if (!REDIS_BIN) return 'redis-server is not installed (apt-get install redis-server)'
  return undefined
}

/**
 * A Postgres cluster in a new `<dir>/postgres-*` folder, with an empty `service` database, durable as in production.
 * It loads pg_stat_statements (created in `service`), so a scenario can count the statements the nodes make.
 */
export async function startPostgres(dir: string): Promise<BackingServer> {
  const cluster = await startPostgresCluster({
    parent: dir,
    database: 'service',
    settings: ['max_connections=200', 'shared_preload_libraries=pg_stat_statements'],
  })
  const service = new Bun.SQL(cluster.url('service'), { max: 1 })
  try {
    await service.unsafe('CREATE EXTENSION pg_stat_statements')
  } finally {
    await service.close()
  }
  return {
    url: cluster.url('service'),
    // The postmaster: the CPU of every backend is counted under it.
    pid: cluster.pid(),
    async stop() {
      try {
        cluster.stop('fast')
      } catch {
        // Stopped already; the folder goes with the bench's.
      }
    },
  }
}

/**
 * Whether a service keeps its state in the Postgres database at `url` (its tables are there): a build that ignores
 * DATABASE_URL would otherwise be measured on SQLite under a Postgres label.
 */
export async function holdsServiceTables(url: string): Promise<boolean> {
  const client = new Bun.SQL(url, { max: 1 })
  try {
    const [{ count }] = await client.unsafe(
      `SELECT count(*)::int AS count FROM information_schema.tables
       WHERE table_schema NOT IN ('pg_catalog', 'information_schema') AND table_name NOT LIKE 'pg_stat_statements%'`,
    )
    return count > 0
  } finally {
    await client.close()
  }
}

/** What the rows of a scenario on Postgres say when the service does not keep its state there. */
export const NO_POSTGRES_STORAGE = 'skipped: the service left its Postgres database empty (DATABASE_URL not supported)'

/** A Redis without persistence, its working folder a new `<dir>/redis-*`. */
export async function startRedis(dir: string): Promise<BackingServer> {
  const redis = await startRedisProcess(dir)
  return { url: redis.url, pid: redis.pid, stop: redis.stop }
}
