import { spawnSync } from 'node:child_process'

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
}

const zero = (): SocketTraffic => ({ bytesSent: 0, bytesReceived: 0, writes: 0, reads: 0 })

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
export function backingTraffic(options: { postgresUrl: string; redisUrl: string; pids: number[] }) {
  const pids = new Set(options.pids)
  const postgresPort = Number(new URL(options.postgresUrl).port)
  const redisPort = Number(new URL(options.redisUrl).port)
  const total: BackingTraffic = {
    postgres: zero(),
    statements: new Map(),
    redis: zero(),
    commands: new Map(),
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
      }
      const result = await round()
      const postgres = socketCounters(postgresPort, pids)
      const redisSockets = socketCounters(redisPort, pids)
      const statements = await statementCounts()
      const redis = await redisCounts()
      const postgresDelta = socketDelta(before.postgres, postgres)
      const redisDelta = socketDelta(before.redisSockets, redisSockets)
      for (const key of Object.keys(total.postgres) as Array<keyof SocketTraffic>) {
        total.postgres[key] += postgresDelta[key]
        total.redis[key] += redisDelta[key]
      }
      add(total.statements, countsDelta(before.statements, statements))
      add(total.commands, countsDelta(before.redis, redis))
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
