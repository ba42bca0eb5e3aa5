import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  canConnect,
  postgresInstalled,
  runChecked,
  startPostgresCluster,
  waitUntil,
} from '../../harness/backing-servers'
import { freePort } from '../../harness/server-process'
import { programAvailable } from './programs'

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

const running: Array<() => void> = []

/** Postgres 15 run as the `postgres` user; missing, its tests skip here and fail in CI (`CI=true`). */
export const postgresAvailable = programAvailable('Postgres 15', postgresInstalled(), 'apt-get install -y postgresql')
/** MariaDB; missing, its tests skip here and fail in CI (`CI=true`). */
export const mariadbAvailable = programAvailable(
  'MariaDB',
  ['/usr/sbin/mariadbd', '/usr/bin/mariadb-install-db'].every(existsSync),
  'apt-get install -y mariadb-server',
)

export { PG_BIN } from '../../harness/backing-servers'
export { warnSkipped } from './programs'
export { freePort } from '../../harness/server-process'

async function startPostgres(): Promise<DatabaseServer> {
  // Durability off: a test's cluster is thrown away with its run.
  const cluster = await startPostgresCluster({ database: 'shop', settings: ['fsync=off', 'full_page_writes=off'] })
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
      try {
        cluster.stop('immediate')
      } catch {
        // Best effort: its folder goes anyway.
      }
    cluster.remove()
  })
  return {
    url: cluster.url('shop'),
    async stop(mode = 'immediate') {
      cluster.stop(mode)
      up = false
    },
    async start() {
      if (up) return
      await cluster.start()
      up = true
    },
    freeze() {
      const postmaster = cluster.pid()
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
  runChecked('mariadb-install-db', [
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
  await waitUntil(() => canConnect(admin), 'MariaDB', 30_000, 100)
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
      await waitUntil(() => canConnect(admin), 'MariaDB', 30_000, 100)
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
