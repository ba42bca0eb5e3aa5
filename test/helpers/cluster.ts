import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { postgresServer } from './database-servers'
import { TEST_DEMO_DATA } from './demo-data'
import { startRedisServer, type RedisServer } from './redis-server'
import { startServerProcess, type ServerProcess } from './server-process'

/**
 * Several service processes sharing one throwaway Postgres database (fresh, on the run's Postgres server) and one
 * throwaway Redis, as a deployment of several nodes would. `stop()` kills every node, drops the database, stops
 * Redis and deletes the folder; call it in `afterAll`, it is safe after a failed start too.
 */
export interface Cluster {
  nodes: ServerProcess[]
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

export async function startCluster(options: {
  nodes: number
  /** The bootstrap file's YAML text. */
  bootstrap: string
  env?: Record<string, string>
}): Promise<Cluster> {
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
    database = await freshPostgresDatabase()
    const env = {
      DATABASE_URL: database.url,
      REDIS_URL: redis.url,
      // Never used with DATABASE_URL set; pointed at the temp folder so a mistake could not touch ./data.
      DB_PATH: join(folder, 'unused.db'),
      BOOTSTRAP_FILE: join(folder, 'bootstrap.yaml'),
      DEMO_DATA_PATH: TEST_DEMO_DATA,
      ...options.env,
    }
    const addNode = async () => {
      const node = await startServerProcess(env)
      nodes.push(node)
      return node
    }
    // One after the other: the first applies the migrations and the bootstrap, the next finds them done.
    for (let index = 0; index < options.nodes; index++) await addNode()
    return { nodes, databaseUrl: database.url, redisUrl: redis.url, env, addNode, stop }
  } catch (error) {
    await stop()
    throw error
  }
}
