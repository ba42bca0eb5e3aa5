import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  backingServersMissing,
  holdsServiceTables,
  NO_POSTGRES_STORAGE,
  startPostgres,
  startRedis,
} from '../lib/backing-servers'
import { AGENTS, type BenchContext } from '../lib/context'
import { alternate, closedLoop, medianOf, withServerCpu } from '../lib/load'
import { postTurn } from '../lib/ndjson-client'
import type { Row } from '../lib/report'
import type { RunningServer } from '../lib/server'
import { wallMs } from '../lib/stats'
import { protocolBody } from './protocol'
import { chatUrlOf, cutoffP99, failureNote, startExtraServer, tracked } from './scale-out'

const WORKERS = 2

/** How many sockets listen on `port` (each worker has its own, all bound with SO_REUSEPORT). */
function listeners(port: number): number {
  const hex = `:${port.toString(16).toUpperCase().padStart(4, '0')} `
  let count = 0
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    try {
      for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
        const fields = line.trim().split(/\s+/)
        // Field 1 is the local address, field 3 the state (0A: listening).
        if (fields[1]?.endsWith(hex.trim()) && fields[3] === '0A') count++
      }
    } catch {
      // No IPv6 table on this machine.
    }
  }
  return count
}

/** Resolves once `count` processes listen on the server's port (the supervisor's /healthz answers with the first). */
async function allListening(server: RunningServer, count: number, timeoutMs = 60_000): Promise<void> {
  const deadline = wallMs() + timeoutMs
  while (listeners(server.port) < count) {
    if (wallMs() > deadline) throw new Error(`WORKERS=${count}: not every worker listened within ${timeoutMs} ms`)
    await Bun.sleep(20)
  }
}

/**
 * Both cores of one machine: the protocol turn on one process (the server under test) against `WORKERS=2` on the
 * same port, sharing runs through Redis, with the state in the same kind of SQLite file and then in Postgres, in
 * alternating rounds. Target: 2 processes at least 1.6 times one process's turns/s. One process with Redis comes
 * first: what the shared registry costs, apart from what a second process gains. The CPU rows count the service's
 * processes and, apart, the Redis (and Postgres) they use.
 */
export async function workersScenario(context: BenchContext): Promise<Row[]> {
  const missing = backingServersMissing()
  if (missing) {
    context.log(`  workers: skipped, ${missing}`)
    return []
  }
  const { config } = context
  const concurrency = Math.max(...config.protocol.concurrency)
  const stops: Array<() => Promise<void>> = []
  try {
    const redis = await startRedis(context.dir)
    context.pids.push(redis.pid)
    stops.push(tracked(context, redis.stop))
    const postgres = await startPostgres(context.dir)
    stops.push(tracked(context, postgres.stop))
    const setups: Array<{ name: string; workers: number; env: Record<string, string> }> = [
      { name: '1 process, SQLite file and Redis', workers: 1, env: { DB_PATH: join(context.dir, 'redis.db') } },
      {
        name: `${WORKERS} workers, SQLite file and Redis`,
        workers: WORKERS,
        env: { DB_PATH: join(context.dir, 'workers.db') },
      },
      {
        name: `${WORKERS} workers, Postgres and Redis`,
        workers: WORKERS,
        // The SQLite path is unused on Postgres; its own, so a build ignoring DATABASE_URL touches no other file.
        env: { DATABASE_URL: postgres.url, DB_PATH: join(context.dir, 'workers-unused.db') },
      },
    ]
    const rows: Row[] = []
    const label = `workers: protocol turn at concurrency ${concurrency}`
    let one: number | undefined
    for (const setup of setups) {
      const { server, stop } = await startExtraServer(context, {
        ...setup.env,
        REDIS_URL: redis.url,
        WORKERS: String(setup.workers),
      })
      try {
        await allListening(server, setup.workers)
        if (setup.env.DATABASE_URL && !(await holdsServiceTables(postgres.url))) {
          context.log(`  workers on Postgres: ${NO_POSTGRES_STORAGE}`)
          continue
        }
        const single = () =>
          withServerCpu([context.server.pid], () =>
            closedLoop(concurrency, config.roundMs, (slot) =>
              postTurn(context.chatUrl(AGENTS.protocol), context.headers, protocolBody(context, slot), true),
            ),
          )
        // The supervisor's tree holds the workers; Redis (and Postgres, for that setup) serve them.
        const backing = setup.env.DATABASE_URL ? [redis.pid, postgres.pid] : [redis.pid]
        const workers = () =>
          withServerCpu(
            [server.pid],
            () =>
              closedLoop(concurrency, config.roundMs, (slot) =>
                postTurn(chatUrlOf(server, AGENTS.protocol), context.headers, protocolBody(context, slot), true),
              ),
            backing,
          )
        await workers()
        await single()
        const result = await alternate(config.rounds, single, workers)
        const value = medianOf(result.b, (round) => round.perSecond)
        // The single process is measured beside each setup; the first measurement is its row.
        one ??= medianOf(result.a, (round) => round.perSecond)
        if (rows.length === 0)
          rows.push(
            { scenario: label, figure: 'turns/s, one process', value: one, unit: '/s', note: failureNote(result.a) },
            { scenario: label, figure: 'p99 time to __cutoff__, one process', value: cutoffP99(result.a), unit: 'ms' },
          )
        const base = medianOf(result.a, (round) => round.perSecond)
        context.log(`  workers: one process ${base.toFixed(0)} turns/s, ${setup.name} ${value.toFixed(0)} turns/s`)
        rows.push(
          {
            scenario: label,
            figure: `turns/s, ${setup.name}`,
            value,
            unit: '/s',
            baseline: base,
            ratio: value / base,
            ...(setup.workers > 1
              ? {
                  target: '≥ 160% of one process',
                  met: failureNote(result.b) === undefined && value >= 1.6 * base,
                }
              : {}),
            note: failureNote(result.b),
          },
          {
            scenario: label,
            figure: `p99 time to __cutoff__, ${setup.name}`,
            value: cutoffP99(result.b),
            unit: 'ms',
          },
          {
            scenario: label,
            figure: `server CPU per turn, ${setup.name}: the service`,
            value: medianOf(result.b, (round) => round.cpuMsPerTurn),
            unit: 'ms',
            baseline: medianOf(result.a, (round) => round.cpuMsPerTurn),
          },
          {
            scenario: label,
            figure: `server CPU per turn, ${setup.name}: ${setup.env.DATABASE_URL ? 'Postgres and Redis' : 'Redis'}`,
            value: medianOf(result.b, (round) => round.backingCpuMsPerTurn),
            unit: 'ms',
          },
          {
            // Whether a core was left: with the load generator on the same machine, a setup that keeps every core
            // busy is bound by the machine, not by how the work is spread.
            scenario: label,
            figure: `machine CPU busy, ${setup.name} (baseline: one process)`,
            value: 100 * medianOf(result.b, (round) => round.machineBusy),
            unit: '%',
            baseline: 100 * medianOf(result.a, (round) => round.machineBusy),
          },
        )
      } finally {
        await stop()
      }
    }
    return rows
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined)
  }
}
