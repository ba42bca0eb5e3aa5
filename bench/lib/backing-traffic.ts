import { spawnSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'

/** What the nodes sent a backing server and got back, summed over their connections to it. */
export interface SocketTraffic {
  bytesSent: number
  bytesReceived: number
  /** TCP segments carrying data, each way: on loopback (64 KB segments) about one per write, so one per round trip. */
  writes: number
  reads: number
}

/** Statements and commands by name, each with its count. */
export type Counts = Map<string, number>

/** What the nodes cost their Postgres and Redis over some rounds (sums; divide by the rounds' turns). */
export interface BackingTraffic {
  postgres: SocketTraffic
  /** Statements by text, as pg_stat_statements counts them (BEGIN and COMMIT included). */
  statements: Counts
  redis: SocketTraffic
  /** Commands by name, as INFO commandstats counts them: those the scripts run are counted too. */
  commands: Counts
  /** What Postgres itself did apart from its socket traffic (see `PostgresWork`). */
  work: PostgresWork
  /**
   * Row operations by table and kind (`chat_runs update`, `chat_runs HOT update`...), from pg_stat_user_tables: an
   * update that is not HOT writes a new entry in every index of its table, a HOT one in none. Backends report these
   * at most once a second, so a short round may miss its last second's.
   */
  rows: Counts
}

/**
 * Where Postgres's CPU goes: running the statements (pg_stat_statements' execution time) against the rest of its
 * backends' time (parse, bind, protocol, commit and its WAL flush), and its background processes apart; the WAL it
 * wrote (`pg_stat_wal`): bytes, full-page images (pages written whole at their first change after a checkpoint) and
 * flushes to disk.
 */
export interface PostgresWork {
  /** Milliseconds, summed over the statements (pg_stat_statements' total_exec_time). */
  executionMs: number
  /** CPU milliseconds of the backends serving connections, and of each background process by its role. */
  backendCpuMs: number
  backgroundCpuMs: Counts
  walBytes: number
  walRecords: number
  walFullPageImages: number
  walWrites: number
  walSyncs: number
}

/** CPU milliseconds of each child of the postmaster `pid`, with its role (`backend` or the process's title). */
function postgresChildren(postmaster: number): Map<number, { role: string; cpuMs: number }> {
  const children = new Map<number, { role: string; cpuMs: number }>()
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry)
    if (!Number.isInteger(pid)) continue
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
      const fields = stat
        .slice(stat.lastIndexOf(')') + 2)
        .split(' ')
        .map(Number)
      if (fields[1] !== postmaster) continue
      // `postgres: postgres service 127.0.0.1(41234) idle` for a backend, `postgres: walwriter` for the others.
      const title = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim()
      const role = /\d+\.\d+\.\d+\.\d+\(\d+\)|\[local\]/.test(title)
        ? 'backend'
        : title
            .replace(/^postgres:\s*/, '')
            .replace(/\s+\d.*$/, '')
            .trim() || 'other'
      // utime and stime (fields 14 and 15 of the line).
      children.set(pid, { role, cpuMs: ((fields[11] + fields[12]) * 1000) / 100 })
    } catch {
      // Gone meanwhile.
    }
  }
  return children
}

const zero = (): SocketTraffic => ({ bytesSent: 0, bytesReceived: 0, writes: 0, reads: 0 })

const noWork = (): PostgresWork => ({
  executionMs: 0,
  backendCpuMs: 0,
  backgroundCpuMs: new Map(),
  walBytes: 0,
  walRecords: 0,
  walFullPageImages: 0,
  walWrites: 0,
  walSyncs: 0,
})

/**
 * The TCP counters of every connection `pids` hold to `port` on this machine (`ss -tinp`), by local address: read
 * from the kernel, so measuring costs the nodes and the servers nothing.
 */
function socketCounters(port: number, pids: Set<number>): Map<string, SocketTraffic> {
  const { stdout } = spawnSync('ss', ['-tinpH', 'state', 'established', `( dport = :${port} )`], { encoding: 'utf8' })
  return parseSocketCounters(stdout, pids)
}

/** The counters in `ss -tinpH` output of the sockets `pids` hold, by local address. */
export function parseSocketCounters(output: string, pids: Set<number>): Map<string, SocketTraffic> {
  const sockets = new Map<string, SocketTraffic>()
  const lines = output.split('\n')
  for (let index = 0; index + 1 < lines.length; index++) {
    const head = lines[index]
    if (head.startsWith('\t') || head.trim() === '') continue
    const owner = /pid=(\d+)/.exec(head)
    if (!owner || !pids.has(Number(owner[1]))) continue
    const local = head.trim().split(/\s+/)[2]
    const info = lines[index + 1]
    const counter = (name: string) => Number(new RegExp(`\\b${name}:(\\d+)`).exec(info)?.[1] ?? 0)
    sockets.set(local, {
      bytesSent: counter('bytes_sent') || counter('bytes_acked'),
      bytesReceived: counter('bytes_received'),
      writes: counter('data_segs_out'),
      reads: counter('data_segs_in'),
    })
  }
  return sockets
}

/** `after - before`, connection by connection (one opened meanwhile counts from zero). */
function socketDelta(before: Map<string, SocketTraffic>, after: Map<string, SocketTraffic>): SocketTraffic {
  const total = zero()
  for (const [local, counters] of after) {
    const start = before.get(local) ?? zero()
    total.bytesSent += counters.bytesSent - start.bytesSent
    total.bytesReceived += counters.bytesReceived - start.bytesReceived
    total.writes += counters.writes - start.writes
    total.reads += counters.reads - start.reads
  }
  return total
}

function add(into: Counts, from: Counts): void {
  for (const [name, count] of from) into.set(name, (into.get(name) ?? 0) + count)
}

/** Each counter's growth from `before` to `after`. */
function countsDelta(before: Counts, after: Counts): Counts {
  const delta: Counts = new Map()
  for (const [name, count] of after) {
    const grown = count - (before.get(name) ?? 0)
    if (grown > 0) delta.set(name, grown)
  }
  return delta
}

/**
 * Measures what the nodes (`pids`) cost their Postgres (whose cluster loads pg_stat_statements) and Redis during
 * the rounds wrapped in `during`, summed over them: statements and transactions from pg_stat_statements, commands
 * from INFO, bytes and writes each way from the kernel's counters of the nodes' own connections.
 */
export function backingTraffic(options: {
  postgresUrl: string
  redisUrl: string
  pids: number[]
  /** The postmaster, whose children's CPU is split between backends and background processes. */
  postgresPid?: number
}) {
  const pids = new Set(options.pids)
  const postgresPort = Number(new URL(options.postgresUrl).port)
  const redisPort = Number(new URL(options.redisUrl).port)
  const total: BackingTraffic = {
    postgres: zero(),
    statements: new Map(),
    redis: zero(),
    commands: new Map(),
    work: noWork(),
    rows: new Map(),
  }

  // One connection each, kept: the measurement's own statements and commands are left out of what it counts.
  const postgresClient = new Bun.SQL(options.postgresUrl, { max: 1 })
  const redisClient = new Bun.RedisClient(options.redisUrl)

  async function statementCounts(): Promise<Counts> {
    const rows: Array<{ query: string; calls: string | number }> = await postgresClient.unsafe(
      `SELECT query, calls FROM pg_stat_statements
          WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
            AND query NOT LIKE '%pg_stat_statements%'`,
    )
    const counts: Counts = new Map()
    for (const row of rows) {
      const text = row.query.replace(/\s+/g, ' ').trim()
      counts.set(text, (counts.get(text) ?? 0) + Number(row.calls))
    }
    return counts
  }

  /** Execution time and WAL so far (cumulative counters of the server). */
  async function postgresWork(): Promise<Omit<PostgresWork, 'backendCpuMs' | 'backgroundCpuMs'>> {
    const [statements] = await postgresClient.unsafe(
      `SELECT coalesce(sum(total_exec_time), 0)::float8 AS ms FROM pg_stat_statements
          WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
            AND query NOT LIKE '%pg_stat_statements%' AND query NOT LIKE '%pg_stat_wal%'`,
    )
    const [wal] = await postgresClient.unsafe(
      `SELECT wal_records::float8 AS records, wal_fpi::float8 AS fpi, wal_bytes::float8 AS bytes,
              wal_write::float8 AS writes, wal_sync::float8 AS syncs FROM pg_stat_wal`,
    )
    return {
      executionMs: Number(statements.ms),
      walBytes: Number(wal.bytes),
      walRecords: Number(wal.records),
      walFullPageImages: Number(wal.fpi),
      walWrites: Number(wal.writes),
      walSyncs: Number(wal.syncs),
    }
  }

  async function rowCounts(): Promise<Counts> {
    const tables: Array<{ table: string; inserted: string; updated: string; hot: string; deleted: string }> =
      await postgresClient.unsafe(
        `SELECT relname AS table, n_tup_ins::float8 AS inserted, n_tup_upd::float8 AS updated,
                n_tup_hot_upd::float8 AS hot, n_tup_del::float8 AS deleted FROM pg_stat_user_tables`,
      )
    const counts: Counts = new Map()
    for (const row of tables) {
      counts.set(`${row.table} insert`, Number(row.inserted))
      counts.set(`${row.table} update`, Number(row.updated) - Number(row.hot))
      counts.set(`${row.table} HOT update`, Number(row.hot))
      counts.set(`${row.table} delete`, Number(row.deleted))
    }
    return counts
  }

  async function redisCounts(): Promise<Counts> {
    const commands: Counts = new Map()
    const text = String(await redisClient.send('INFO', ['commandstats']))
    for (const match of text.matchAll(/cmdstat_([^:]+):calls=(\d+)/g))
      if (match[1] !== 'info') commands.set(match[1], Number(match[2]))
    return commands
  }

  return {
    /** Runs `round`, adding what the nodes cost their backing servers meanwhile to the totals. */
    async during<T>(round: () => Promise<T>): Promise<T> {
      const before = {
        statements: await statementCounts(),
        redis: await redisCounts(),
        postgres: socketCounters(postgresPort, pids),
        redisSockets: socketCounters(redisPort, pids),
        work: await postgresWork(),
        rows: await rowCounts(),
        children: options.postgresPid ? postgresChildren(options.postgresPid) : new Map(),
      }
      const result = await round()
      const children = options.postgresPid ? postgresChildren(options.postgresPid) : new Map()
      const work = await postgresWork()
      const postgres = socketCounters(postgresPort, pids)
      const redisSockets = socketCounters(redisPort, pids)
      const statements = await statementCounts()
      const rows = await rowCounts()
      const redis = await redisCounts()
      const postgresDelta = socketDelta(before.postgres, postgres)
      const redisDelta = socketDelta(before.redisSockets, redisSockets)
      for (const key of Object.keys(total.postgres) as Array<keyof SocketTraffic>) {
        total.postgres[key] += postgresDelta[key]
        total.redis[key] += redisDelta[key]
      }
      add(total.statements, countsDelta(before.statements, statements))
      add(total.commands, countsDelta(before.redis, redis))
      add(total.rows, countsDelta(before.rows, rows))
      for (const key of [
        'executionMs',
        'walBytes',
        'walRecords',
        'walFullPageImages',
        'walWrites',
        'walSyncs',
      ] as const)
        total.work[key] += work[key] - before.work[key]
      // Each child's growth (one started meanwhile from zero; one that exited meanwhile is not counted).
      for (const [pid, child] of children) {
        const grown = child.cpuMs - (before.children.get(pid)?.cpuMs ?? 0)
        if (child.role === 'backend') total.work.backendCpuMs += grown
        else total.work.backgroundCpuMs.set(child.role, (total.work.backgroundCpuMs.get(child.role) ?? 0) + grown)
      }
      return result
    },
    total,
    async close(): Promise<void> {
      redisClient.close()
      await postgresClient.close()
    },
  }
}

/** The `count` most frequent of `counts` with their number per turn, as a note: `BEGIN 2.0; COMMIT 2.0; ...`. */
export function perTurnNote(counts: Counts, turns: number, count = 6, width = 60): string {
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, calls]) => `${name.length > width ? `${name.slice(0, width)}…` : name} ${(calls / turns).toFixed(2)}`)
    .join('; ')
}

export const sum = (counts: Counts) => [...counts.values()].reduce((total, count) => total + count, 0)
