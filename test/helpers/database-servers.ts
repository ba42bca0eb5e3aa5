import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * Throwaway database servers for tests: Postgres clusters (`initdb` in a temp folder, run as the `postgres`
 * user) and a MariaDB server (`mariadb-install-db` into a temp folder), each on a free port of 127.0.0.1. One of
 * each per `bun test` run (and a second Postgres for the data sources), started on first use;
 * `stopDatabaseServers()` (called when the run ends, and on exit) stops them and deletes their folders, also after a
 * failed test.
 */
export interface DatabaseServer {
  /** `postgres://...` or `mysql://...` of a database the tests may fill. */
  url: string
  /**
   * Stops the server (for outage tests); `start()` brings it back on the same port and data. Postgres stops with
   * `-m immediate` (its connections simply drop) unless `fast` is asked for (they are told the server shuts down).
   */
  stop(mode?: 'fast' | 'immediate'): Promise<void>
  start(): Promise<void>
  /**
   * Stops the server's processes without closing a connection (SIGSTOP), as a hung server or a network that drops
   * packets silently looks to its clients; `thaw()` lets them go on.
   */
  freeze?(): void
  thaw?(): void
}

export const PG_BIN = '/usr/lib/postgresql/15/bin'
const running: Array<() => void> = []

export const postgresAvailable = existsSync(join(PG_BIN, 'initdb')) && spawnSync('id', ['-u', 'postgres']).status === 0
export const mariadbAvailable = ['/usr/sbin/mariadbd', '/usr/bin/mariadb-install-db'].every(existsSync)

/** Says loudly, once per server, that tests were skipped; CI installs both servers, so there it never shows. */
export function warnSkipped(what: string): void {
  const line = '!'.repeat(100)
  console.warn(
    `\n${line}\n!!! SKIPPED: ${what}: the server binary is not installed on this machine.\n!!! Install it (apt-get install -y postgresql mariadb-server) to run these tests; CI always runs them.\n${line}\n`,
  )
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

async function waitFor(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (
      await Promise.resolve()
        .then(check)
        .catch(() => false)
    )
      return
    await Bun.sleep(100)
  }
  throw new Error(`${what} did not start within ${timeoutMs} ms`)
}

function run(command: string, args: string[]): void {
  const result = spawnSync(command, args, { encoding: 'utf8' })
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${result.stderr || result.stdout}`)
}

async function canConnect(url: string): Promise<boolean> {
  const client = new Bun.SQL(url, { max: 1, connectionTimeout: 2, idleTimeout: 1 })
  try {
    await client.unsafe('SELECT 1')
    return true
  } finally {
    await client.close()
  }
}

async function startPostgres(): Promise<DatabaseServer> {
  const folder = mkdtempSync(join(tmpdir(), 'test-postgres-'))
  chmodSync(folder, 0o777)
  const data = join(folder, 'data')
  const port = await freePort()
  const asPostgres = (command: string, args: string[]) =>
    run('runuser', ['-u', 'postgres', '--', join(PG_BIN, command), ...args])
  asPostgres('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8'])
  const pgCtl = (action: 'start' | 'stop', mode: 'fast' | 'immediate' = 'immediate') =>
    action === 'start'
      ? asPostgres('pg_ctl', [
          '-D',
          data,
          '-l',
          join(folder, 'log'),
          '-w',
          '-o',
          `-p ${port} -k ${folder} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off`,
          'start',
        ])
      : asPostgres('pg_ctl', ['-D', data, '-m', mode, '-w', 'stop'])
  pgCtl('start')
  let up = true
  let frozen: number[] = []
  const signal = (pids: number[], name: 'SIGSTOP' | 'SIGCONT') => {
    for (const pid of pids)
      try {
        process.kill(pid, name)
      } catch {
        // Gone already.
      }
  }
  running.push(() => {
    // A stopped server cannot be shut down: it is let go first.
    signal(frozen, 'SIGCONT')
    if (up)
      spawnSync('runuser', [
        '-u',
        'postgres',
        '--',
        join(PG_BIN, 'pg_ctl'),
        '-D',
        data,
        '-m',
        'immediate',
        '-w',
        'stop',
      ])
    rmSync(folder, { recursive: true, force: true })
  })
  const admin = `postgres://postgres@127.0.0.1:${port}/postgres`
  await waitFor(() => canConnect(admin), 'Postgres')
  const client = new Bun.SQL(admin, { max: 1 })
  await client.unsafe('CREATE DATABASE shop')
  await client.close()
  return {
    url: `postgres://postgres@127.0.0.1:${port}/shop`,
    async stop(mode) {
      pgCtl('stop', mode)
      up = false
    },
    async start() {
      if (up) return
      pgCtl('start')
      up = true
      await waitFor(() => canConnect(admin), 'Postgres')
    },
    freeze() {
      const postmaster = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0])
      const children = spawnSync('pgrep', ['-P', String(postmaster)], { encoding: 'utf8' }).stdout
      frozen = [postmaster, ...children.split('\n').filter(Boolean).map(Number)]
      signal(frozen, 'SIGSTOP')
    },
    thaw() {
      signal(frozen, 'SIGCONT')
      frozen = []
    },
  }
}

async function startMariadb(): Promise<DatabaseServer> {
  const folder = mkdtempSync(join(tmpdir(), 'test-mariadb-'))
  const data = join(folder, 'data')
  const socket = join(folder, 'mysqld.sock')
  const port = await freePort()
  run('mariadb-install-db', [
    '--no-defaults',
    `--datadir=${data}`,
    '--user=root',
    '--auth-root-authentication-method=normal',
    '--skip-test-db',
  ])
  let child: ChildProcess | undefined
  const launch = () => {
    child = spawn(
      '/usr/sbin/mariadbd',
      [
        '--no-defaults',
        `--datadir=${data}`,
        '--user=root',
        `--port=${port}`,
        `--socket=${socket}`,
        '--bind-address=127.0.0.1',
        `--pid-file=${join(folder, 'pid')}`,
        // Its own temporary folder: sort and temp-table files in the shared /tmp can be removed by other processes.
        `--tmpdir=${folder}`,
        '--skip-name-resolve',
        '--innodb-flush-log-at-trx-commit=0',
        '--skip-log-bin',
      ],
      { stdio: 'ignore' },
    )
  }
  const halt = async () => {
    const process = child
    child = undefined
    if (!process || process.exitCode !== null) return
    const exited = new Promise((resolve) => process.once('exit', resolve))
    process.kill('SIGKILL')
    await exited
  }
  launch()
  running.push(() => {
    child?.kill('SIGKILL')
    rmSync(folder, { recursive: true, force: true })
  })
  const admin = `mysql://root@127.0.0.1:${port}/mysql`
  await waitFor(() => canConnect(admin), 'MariaDB')
  const client = new Bun.SQL(admin, { max: 1 })
  await client.unsafe("DROP USER IF EXISTS ''@'localhost'")
  await client.unsafe('CREATE DATABASE shop')
  await client.close()
  return {
    url: `mysql://root@127.0.0.1:${port}/shop`,
    stop: halt,
    freeze() {
      child?.kill('SIGSTOP')
    },
    thaw() {
      child?.kill('SIGCONT')
    },
    async start() {
      if (child && child.exitCode === null) return
      launch()
      await waitFor(() => canConnect(admin), 'MariaDB')
    },
  }
}

let postgres: Promise<DatabaseServer> | undefined
let sourcePostgres: Promise<DatabaseServer> | undefined
let mariadb: Promise<DatabaseServer> | undefined

/**
 * The run's Postgres server, started on first use: the test apps' state with `TEST_STORAGE=postgres`, and the
 * databases of the storage, CLI and cluster tests.
 */
export const postgresServer = (): Promise<DatabaseServer> => (postgres ??= startPostgres())
/**
 * A second Postgres server, for data sources only, started on first use: the outage test stops it, which must not
 * take down the test apps' own state on the run's server.
 */
export const sourcePostgresServer = (): Promise<DatabaseServer> => (sourcePostgres ??= startPostgres())
/**
 * A Postgres server of the caller's own, for a test that stops the server holding a node's state without taking down
 * the run's; it stops and its folder goes with the others when the run ends (also after a failed test).
 */
export const ownPostgresServer = (): Promise<DatabaseServer> => startPostgres()
/** The run's MariaDB server, started on first use. */
export const mariadbServer = (): Promise<DatabaseServer> => (mariadb ??= startMariadb())

/** Stops every server this run started and deletes its folder. */
export function stopDatabaseServers(): void {
  for (const stop of running.splice(0)) {
    try {
      stop()
    } catch {
      // Best effort: the other servers still have to go.
    }
  }
}

process.once('exit', stopDatabaseServers)
