import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { postgresServer } from './database-servers'
import { TEST_DEMO_DATA } from './demo-data'
import { startRedisServer, type RedisServer } from './redis-server'
import { startServerProcess, type ServerProcess } from '../../harness/server-process'

/**
 * Several service processes sharing one throwaway Redis and their state, as a deployment of several nodes would:
 * by default a fresh Postgres database on the run's Postgres server; with `storage: 'sqlite-file'` one SQLite file
 * (several processes of one machine, as `WORKERS` runs them). `stop()` kills every node, drops the database, stops
 * Redis and deletes the folder; call it in `afterAll`, it is safe after a failed start too.
 */
export interface Cluster {
  nodes: ServerProcess[]
  /** The Postgres URL, or the SQLite file. */
  databaseUrl: string
  redisUrl: string
  /** The environment every node gets (without PORT). */
  env: Record<string, string>
  /** Starts one more node on the same database and Redis. */
  addNode(): Promise<ServerProcess>
  stop(): Promise<void>
}

/** A new, empty database on the run's Postgres server; `drop()` removes it (with any connection still open). */
export async function freshPostgresDatabase(prefix = 'cluster'): Promise<{ url: string; drop(): Promise<void> }> {
  const server = await postgresServer()
  const name = `${prefix}_${crypto.randomUUID().replaceAll('-', '').slice(0, 12)}`
  const admin = new URL(server.url)
  admin.pathname = '/postgres'
  const client = new Bun.SQL(admin.toString(), { max: 1 })
  try {
    await client.unsafe(`CREATE DATABASE ${name}`)
  } finally {
    await client.close()
  }
  const url = new URL(server.url)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    async drop() {
      const dropper = new Bun.SQL(admin.toString(), { max: 1 })
      try {
        await dropper.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      } finally {
        await dropper.close()
      }
    },
  }
}

/** Whether the service created its tables in the Postgres database at `url`. */
async function holdsServiceTables(url: string): Promise<boolean> {
  const client = new Bun.SQL(url, { max: 1 })
  try {
    const [{ count }] = await client.unsafe(
      `SELECT count(*)::int AS count FROM information_schema.tables
       WHERE table_schema NOT IN ('pg_catalog', 'information_schema')`,
    )
    return count > 0
  } finally {
    await client.close()
  }
}

export async function startCluster(options: {
  nodes: number
  /** The bootstrap file's YAML text. */
  bootstrap: string
  storage?: 'postgres' | 'sqlite-file'
  env?: Record<string, string>
}): Promise<Cluster> {
  const onPostgres = (options.storage ?? 'postgres') === 'postgres'
  const folder = mkdtempSync(join(tmpdir(), 'test-cluster-'))
  const nodes: ServerProcess[] = []
  let redis: RedisServer | undefined
  let database: Awaited<ReturnType<typeof freshPostgresDatabase>> | undefined
  const stop = async () => {
    await Promise.all(nodes.splice(0).map((node) => node.stop('SIGKILL')))
    await database?.drop().catch(() => undefined)
    await redis?.stop()
    rmSync(folder, { recursive: true, force: true })
  }
  try {
    writeFileSync(join(folder, 'bootstrap.yaml'), options.bootstrap)
    redis = await startRedisServer()
    if (onPostgres) database = await freshPostgresDatabase()
    const databaseUrl = database?.url ?? join(folder, 'shared.db')
    const env: Record<string, string> = {
      ...(database ? { DATABASE_URL: database.url } : { DB_PATH: databaseUrl }),
      REDIS_URL: redis.url,
      BOOTSTRAP_FILE: join(folder, 'bootstrap.yaml'),
      DEMO_DATA_PATH: TEST_DEMO_DATA,
      ...options.env,
    }
    const addNode = async () => {
      const node = await startServerProcess({
        env: {
          // On Postgres the SQLite path is never used; each node gets its own, in the temp folder, so that a node
          // ignoring DATABASE_URL would share nothing with the others (and the tests fail) rather than pass on one file.
          ...(database ? { DB_PATH: join(folder, `node-${nodes.length + 1}.db`) } : {}),
          ...env,
        },
      })
      nodes.push(node)
      return node
    }
    // One after the other: the first applies the migrations and the bootstrap, the next finds them done.
    for (let index = 0; index < options.nodes; index++) {
      await addNode()
      if (index === 0 && database && !(await holdsServiceTables(database.url)))
        throw new Error('the node started without creating its tables in Postgres: DATABASE_URL was not used')
    }
    return { nodes, databaseUrl, redisUrl: redis.url, env, addNode, stop }
  } catch (error) {
    await stop()
    throw error
  }
}
