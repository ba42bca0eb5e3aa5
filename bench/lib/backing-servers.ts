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
 * What a deployment sets beside Postgres's defaults (see docs/several-nodes.md), so the bench measures the Postgres
 * a deployment runs: random reads cost about what sequential ones do on SSDs (the default, 4, prices a spinning
 * disk's seek, and makes the planner scan small tables rather than look rows up), and long values (an answer is
 * about 20 KB) are compressed with lz4 rather than pglz, which took about a twentieth of Postgres's CPU a turn.
 * Durability stays as in production: every commit is synchronous and flushed (fsync on).
 */
export const DEPLOYMENT_POSTGRES_SETTINGS = ['random_page_cost=1.1', 'default_toast_compression=lz4']

/**
 * A Postgres cluster in a new `<dir>/postgres-*` folder, with an empty `service` database, durable as in production
 * and set as a deployment sets it (`DEPLOYMENT_POSTGRES_SETTINGS`), with `extra` settings after. It loads
 * pg_stat_statements (created in `service`), so a scenario can count the statements the nodes make.
 */
export async function startPostgres(dir: string, extra: string[] = []): Promise<BackingServer> {
  const cluster = await startPostgresCluster({
    parent: dir,
    database: 'service',
    settings: [
      'max_connections=200',
      'shared_preload_libraries=pg_stat_statements',
      ...DEPLOYMENT_POSTGRES_SETTINGS,
      ...extra,
    ],
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
