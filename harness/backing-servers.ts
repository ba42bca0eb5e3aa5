import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from './server-process'

/**
 * The servers beside the service that the slow tests and the benchmarks start for themselves: throwaway Postgres
 * clusters (Debian's `postgresql`, run as the `postgres` user) and Redis processes, each in a temporary folder on a
 * free port of 127.0.0.1. The callers decide what stops them and when (the tests at the end of the run, the bench
 * with its temporary folder).
 */

export const PG_BIN = '/usr/lib/postgresql/15/bin'
export const REDIS_BIN = ['/usr/bin/redis-server', '/usr/local/bin/redis-server'].find(existsSync)

/** Whether Postgres 15 and its `postgres` user are here. */
export function postgresInstalled(): boolean {
  return existsSync(join(PG_BIN, 'initdb')) && spawnSync('id', ['-u', 'postgres']).status === 0
}

/** Resolves once `check` is true (its errors count as false); rejects after `timeoutMs`. */
export async function waitUntil(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 30_000,
  everyMs = 50,
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (
      await Promise.resolve()
        .then(check)
        .catch(() => false)
    )
      return
    await Bun.sleep(everyMs)
  }
  throw new Error(`${what} did not start within ${timeoutMs} ms`)
}

/** Runs a program to its end; a non-zero exit throws with what it printed. */
export function runChecked(command: string, args: string[]): void {
  const result = spawnSync(command, args, { encoding: 'utf8' })
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${result.stderr || result.stdout}`)
}

/** Whether a SQL server answers `SELECT 1` at `url`. */
export async function canConnect(url: string): Promise<boolean> {
  const client = new Bun.SQL(url, { max: 1, connectionTimeout: 2, idleTimeout: 1 })
  try {
    await client.unsafe('SELECT 1')
    return true
  } finally {
    await client.close()
  }
}

export interface PostgresCluster {
  port: number
  /** `postgres://postgres@127.0.0.1:<port>/<database>`. */
  url(database: string): string
  /** The postmaster's pid (every backend is its child). */
  pid(): number
  /** Stops the server: `immediate` drops its connections, `fast` tells them it shuts down. */
  stop(mode: 'fast' | 'immediate'): void
  /** Starts it again on the same port and data, resolving once it answers. */
  start(): Promise<void>
  /** Deletes its folder (stop it first). */
  remove(): void
}

export interface PostgresOptions {
  /** The folder to make the cluster's folder in (the system's temporary folder by default). */
  parent?: string
  /** A database to create at once. */
  database: string
  /** `-c` settings: the tests turn durability off (`fsync=off`), the bench keeps production's. */
  settings?: string[]
}

/** `initdb` into a new folder and `pg_ctl start` on a free port, resolving once it answers, with `database` made. */
export async function startPostgresCluster(options: PostgresOptions): Promise<PostgresCluster> {
  const parent = options.parent ?? tmpdir()
  const folder = mkdtempSync(join(parent, 'postgres-'))
  // The cluster runs as `postgres`, which must reach its folder.
  if (options.parent) chmodSync(parent, 0o711)
  chmodSync(folder, 0o777)
  const data = join(folder, 'data')
  const port = freePort()
  const asPostgres = (command: string, args: string[]) =>
    runChecked('runuser', ['-u', 'postgres', '--', join(PG_BIN, command), ...args])
  const settings = ['listen_addresses=127.0.0.1', ...(options.settings ?? [])].map((setting) => `-c ${setting}`)
  const admin = `postgres://postgres@127.0.0.1:${port}/postgres`
  const cluster: PostgresCluster = {
    port,
    url: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`,
    pid: () => Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]),
    stop: (mode) => asPostgres('pg_ctl', ['-D', data, '-m', mode, '-w', 'stop']),
    async start() {
      asPostgres('pg_ctl', [
        '-D',
        data,
        '-l',
        join(folder, 'log'),
        '-w',
        '-o',
        `-p ${port} -k ${folder} ${settings.join(' ')}`,
        'start',
      ])
      await waitUntil(() => canConnect(admin), 'Postgres', 30_000, 100)
    },
    remove: () => rmSync(folder, { recursive: true, force: true }),
  }
  try {
    asPostgres('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8'])
    await cluster.start()
    const client = new Bun.SQL(admin, { max: 1 })
    await client.unsafe(`CREATE DATABASE ${options.database}`)
    await client.close()
    return cluster
  } catch (error) {
    spawnSync('runuser', ['-u', 'postgres', '--', join(PG_BIN, 'pg_ctl'), '-D', data, '-m', 'immediate', '-w', 'stop'])
    cluster.remove()
    throw error
  }
}

export interface RedisProcess {
  url: string
  pid: number
  child: ChildProcess
  /** SIGTERM, resolving once it exited. */
  stop(): Promise<void>
  /** SIGKILL at once, and its folder deleted (also from an exit handler). */
  kill(): void
}

/** A `redis-server` without persistence, in a new folder, resolving once it answers PING. */
export async function startRedisProcess(parent = tmpdir()): Promise<RedisProcess> {
  if (!REDIS_BIN) throw new Error('redis-server is not installed (apt-get install -y redis-server)')
  const folder = mkdtempSync(join(parent, 'redis-'))
  const port = freePort()
  const child = spawn(
    REDIS_BIN,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', folder],
    { stdio: 'ignore' },
  )
  const running = () => child.exitCode === null && child.signalCode === null
  const redis: RedisProcess = {
    url: `redis://127.0.0.1:${port}`,
    pid: child.pid!,
    child,
    async stop() {
      if (running()) {
        const exited = new Promise((resolve) => child.once('exit', resolve))
        child.kill('SIGTERM')
        await exited
      }
      rmSync(folder, { recursive: true, force: true })
    },
    kill() {
      if (running()) child.kill('SIGKILL')
      rmSync(folder, { recursive: true, force: true })
    },
  }
  const deadline = Date.now() + 30_000
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`redis-server exited with code ${child.exitCode}`)
      const client = new Bun.RedisClient(redis.url, { autoReconnect: false, connectionTimeout: 1000 })
      try {
        if ((await client.send('PING', [])) === 'PONG') return redis
      } catch {
        // Not listening yet.
      } finally {
        client.close()
      }
      if (Date.now() > deadline) throw new Error('redis-server did not start within 30 s')
      await Bun.sleep(50)
    }
  } catch (error) {
    redis.kill()
    throw error
  }
}
