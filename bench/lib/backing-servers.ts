import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { chmodSync, existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { freePort } from '../../harness/server-process'
import { wallMs } from './stats'

/**
 * The servers a deployment of several nodes needs, started for the bench in its temporary folder: a Postgres
 * cluster (Debian's `postgresql`, run as the `postgres` user, durability as in production: fsync on) and a Redis
 * (`redis-server`, no persistence, as the compose file runs it). Each `stop()` ends its server; the folder goes with
 * the bench's.
 */
export interface BackingServer {
  url: string
  pid: number
  stop(): Promise<void>
}

const PG_BIN = '/usr/lib/postgresql/15/bin'
const REDIS_SERVER = '/usr/bin/redis-server'

/** Why the several-node scenarios cannot run here, or undefined when they can. */
export function backingServersMissing(): string | undefined {
  if (!existsSync(join(PG_BIN, 'initdb')) || spawnSync('id', ['-u', 'postgres']).status !== 0)
    return 'Postgres is not installed (apt-get install postgresql)'
  if (!existsSync(REDIS_SERVER)) return 'redis-server is not installed (apt-get install redis-server)'
  return undefined
}

async function waitUntil(check: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = wallMs() + timeoutMs
  while (wallMs() < deadline) {
    if (await check().catch(() => false)) return
    await Bun.sleep(50)
  }
  throw new Error(`${what} did not start within ${timeoutMs} ms`)
}

function run(command: string, args: string[]): void {
  const result = spawnSync(command, args, { encoding: 'utf8' })
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${result.stderr || result.stdout}`)
}

/** A Postgres cluster in a new `<dir>/postgres-*` folder, with an empty `service` database. */
export async function startPostgres(dir: string): Promise<BackingServer> {
  const folder = mkdtempSync(join(dir, 'postgres-'))
  // The cluster runs as `postgres`, which must reach its folder inside the bench's.
  chmodSync(dir, 0o711)
  chmodSync(folder, 0o777)
  const data = join(folder, 'data')
  const port = freePort()
  const asPostgres = (command: string, args: string[]) =>
    run('runuser', ['-u', 'postgres', '--', join(PG_BIN, command), ...args])
  asPostgres('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8'])
  asPostgres('pg_ctl', [
    '-D',
    data,
    '-l',
    join(folder, 'log'),
    '-w',
    '-o',
    `-p ${port} -k ${folder} -c listen_addresses=127.0.0.1 -c max_connections=200`,
    'start',
  ])
  const stop = async () => {
    spawnSync('runuser', ['-u', 'postgres', '--', join(PG_BIN, 'pg_ctl'), '-D', data, '-m', 'fast', '-w', 'stop'])
  }
  try {
    const admin = `postgres://postgres@127.0.0.1:${port}/postgres`
    await waitUntil(async () => {
      const client = new Bun.SQL(admin, { max: 1, connectionTimeout: 2 })
      try {
        await client.unsafe('SELECT 1')
        return true
      } finally {
        await client.close()
      }
    }, 'Postgres')
    const client = new Bun.SQL(admin, { max: 1 })
    await client.unsafe('CREATE DATABASE service')
    await client.close()
    // The postmaster's pid heads its pid file: the CPU of every backend is counted under it.
    const pid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0])
    return { url: `postgres://postgres@127.0.0.1:${port}/service`, pid, stop }
  } catch (error) {
    await stop()
    throw error
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
       WHERE table_schema NOT IN ('pg_catalog', 'information_schema')`,
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
  const folder = mkdtempSync(join(dir, 'redis-'))
  const port = freePort()
  const child: ChildProcess = spawn(
    REDIS_SERVER,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', folder],
    { stdio: 'ignore' },
  )
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGTERM')
    await exited
  }
  const url = `redis://127.0.0.1:${port}`
  try {
    await waitUntil(async () => {
      const client = new Bun.RedisClient(url, { autoReconnect: false, connectionTimeout: 1000 })
      try {
        return (await client.ping()) === 'PONG'
      } finally {
        client.close()
      }
    }, 'Redis')
    return { url, pid: child.pid!, stop }
  } catch (error) {
    await stop()
    throw error
  }
}
