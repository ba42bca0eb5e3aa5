import { join } from 'node:path'
import {
  backingServersMissing,
  holdsServiceTables,
  NO_POSTGRES_STORAGE,
  startPostgres,
  startRedis,
} from '../lib/backing-servers'
import { backingTraffic, perTurnNote, sum } from '../lib/backing-traffic'
import { AGENTS, serverEnv, type BenchContext } from '../lib/context'
import { BENCH_ACCOUNT } from '../lib/bootstrap'
import { alternate, closedLoop, medianOf, withServerCpu, type LoadResult } from '../lib/load'
import { postTurn } from '../lib/ndjson-client'
import type { Row } from '../lib/report'
import { startServer, type RunningServer } from '../lib/server'
import { percentile } from '../lib/stats'
import { withRaisedFileLimit } from '../lib/workers'
import { protocolBody } from './protocol'
import { rejoinRows, rejoinTrial, type Trial } from './rejoin'

/** Runs `stop` now, and takes it off the harness's list (it is there in case the scenario never gets to it). */
export function tracked(context: BenchContext, stop: () => Promise<void>): () => Promise<void> {
  context.cleanups.push(stop)
  return async () => {
    const index = context.cleanups.indexOf(stop)
    if (index >= 0) context.cleanups.splice(index, 1)
    await stop()
  }
}

/** Starts a server like the one under test (same command, bootstrap and lifted limits) with `env` added. */
export async function startExtraServer(
  context: BenchContext,
  env: Record<string, string>,
): Promise<{ server: RunningServer; stop: () => Promise<void> }> {
  const server = await startServer(
    { ...context.command, argv: withRaisedFileLimit(context.command.argv) },
    { ...serverEnv(context.dir), ...env },
  )
  context.pids.push(server.pid)
  return { server, stop: tracked(context, () => server.stop()) }
}

export const chatUrlOf = (server: RunningServer, agentId: number) =>
  `${server.url}/api/v1/public/${BENCH_ACCOUNT}/agents/${agentId}/chat/stream-chat-state`

/** p99 of the time to `__cutoff__` over every correct turn of the rounds. */
export const cutoffP99 = (rounds: LoadResult[]) =>
  percentile(
    rounds.flatMap((round) =>
      round.outcomes.filter((outcome) => outcome.ok && outcome.cutoffMs !== undefined).map((o) => o.cutoffMs!),
    ),
    99,
  )

export const failureNote = (rounds: LoadResult[]) => {
  const failures = rounds.reduce((sum, round) => sum + round.failures, 0)
  return failures > 0
    ? `${failures} failed turns: ${[...new Set(rounds.flatMap((round) => round.failureSamples))].join('; ')}`
    : undefined
}

/** Where the two nodes' turns go in Postgres and Redis, per turn (see `backingTraffic`). */
function trafficRows(label: string, traffic: ReturnType<typeof backingTraffic>['total'], turns: number): Row[] {
  const row = (figure: string, value: number, unit: string, note?: string): Row => ({
    scenario: label,
    figure: `${figure} per turn, two nodes`,
    value: value / turns,
    unit,
    note,
  })
  const { postgres, redis, statements, commands } = traffic
  const commits = statements.get('COMMIT') ?? 0
  return [
    row('Postgres statements', sum(statements), '', perTurnNote(statements, turns, 10)),
    row('Postgres transactions (COMMIT)', commits, ''),
    row('Postgres round trips (the nodes’ writes to it)', postgres.writes, ''),
    row('bytes to Postgres', postgres.bytesSent, 'B'),
    row('bytes from Postgres', postgres.bytesReceived, 'B'),
    row('Redis commands (those scripts run included)', sum(commands), '', perTurnNote(commands, turns, 10)),
    row('Redis scripts (EVAL)', (commands.get('eval') ?? 0) + (commands.get('evalsha') ?? 0), ''),
    row('Redis round trips (the nodes’ writes to it)', redis.writes, ''),
    row('bytes to Redis', redis.bytesSent, 'B'),
    row('bytes from Redis', redis.bytesReceived, 'B'),
  ]
}

/**
 * Several nodes: the protocol turn on one node with SQLite (the server under test) against two nodes sharing one
 * Postgres and one Redis, the client sending each turn to the next node in turn as a round-robin load balancer
 * would, in alternating rounds on the same machine; then a run streamed by one node with its joiners reading from
 * the other. Targets: two nodes at least 1.6 times one node's turns/s; cross-node rejoin p99 lag at most 25 ms.
 */
export async function scaleOutScenario(context: BenchContext): Promise<Row[]> {
  const missing = backingServersMissing()
  if (missing) {
    context.log(`  several nodes: skipped, ${missing}`)
    return []
  }
  const { config } = context
  const stops: Array<() => Promise<void>> = []
  try {
    const postgres = await startPostgres(context.dir)
    stops.push(tracked(context, postgres.stop))
    const redis = await startRedis(context.dir)
    context.pids.push(redis.pid)
    stops.push(tracked(context, redis.stop))
    const nodes: RunningServer[] = []
    // One after the other: the first migrates Postgres and applies the bootstrap. Each has a SQLite path of its own
    // (unused on Postgres), so a build that ignored DATABASE_URL could not touch the server under test's file.
    for (let index = 0; index < 2; index++) {
      const { server, stop } = await startExtraServer(context, {
        DATABASE_URL: postgres.url,
        REDIS_URL: redis.url,
        DB_PATH: join(context.dir, `node-${index + 1}.db`),
      })
      nodes.push(server)
      stops.push(stop)
      if (index === 0 && !(await holdsServiceTables(postgres.url))) {
        context.log(`  several nodes: ${NO_POSTGRES_STORAGE}`)
        return []
      }
    }

    const concurrency = Math.max(...config.protocol.concurrency)
    // Server CPU per turn: the node's process; the two nodes', and apart from it Postgres (all its backends) and Redis.
    const oneNode = () =>
      withServerCpu([context.server.pid], () =>
        closedLoop(concurrency, config.roundMs, (slot) =>
          postTurn(context.chatUrl(AGENTS.protocol), context.headers, protocolBody(context, slot), true),
        ),
      )
    const twoNodes = () =>
      withServerCpu(
        nodes.map((node) => node.pid),
        () =>
          closedLoop(concurrency, config.roundMs, (slot, sequence) =>
            postTurn(
              chatUrlOf(nodes[sequence % 2], AGENTS.protocol),
              context.headers,
              protocolBody(context, slot),
              true,
            ),
          ),
        [postgres.pid, redis.pid],
      )
    // Warm both up (JIT, connection pools, the database's pages) before the measured rounds.
    await twoNodes()
    await oneNode()
    // What the two nodes' rounds cost Postgres and Redis: statements, commands, bytes and writes each way.
    const traffic = backingTraffic({ postgresUrl: postgres.url, redisUrl: redis.url, pids: nodes.map((n) => n.pid) })
    stops.push(traffic.close)
    const result = await alternate(config.rounds, oneNode, () => traffic.during(twoNodes))
    const one = medianOf(result.a, (round) => round.perSecond)
    const two = medianOf(result.b, (round) => round.perSecond)
    context.log(`  several nodes: one node ${one.toFixed(0)} turns/s, two nodes ${two.toFixed(0)} turns/s`)
    const label = `several nodes: protocol turn at concurrency ${concurrency}`
    const rows: Row[] = [
      {
        scenario: label,
        figure: 'turns/s, one node on SQLite',
        value: one,
        unit: '/s',
        note: failureNote(result.a),
      },
      {
        scenario: label,
        figure: 'turns/s, two nodes on Postgres and Redis',
        value: two,
        unit: '/s',
        baseline: one,
        ratio: two / one,
        target: '≥ 160% of one node',
        met: failureNote(result.b) === undefined && two >= 1.6 * one,
        note: failureNote(result.b),
      },
      { scenario: label, figure: 'p99 time to __cutoff__, one node', value: cutoffP99(result.a), unit: 'ms' },
      { scenario: label, figure: 'p99 time to __cutoff__, two nodes', value: cutoffP99(result.b), unit: 'ms' },
      {
        scenario: label,
        figure: 'server CPU per turn, one node',
        value: medianOf(result.a, (round) => round.cpuMsPerTurn),
        unit: 'ms',
      },
      {
        scenario: label,
        figure: 'server CPU per turn, two nodes',
        value: medianOf(result.b, (round) => round.cpuMsPerTurn),
        unit: 'ms',
      },
      {
        scenario: label,
        figure: 'server CPU per turn, their Postgres and Redis',
        value: medianOf(result.b, (round) => round.backingCpuMsPerTurn),
        unit: 'ms',
      },
      ...trafficRows(
        label,
        traffic.total,
        result.b.reduce((turns, round) => turns + round.turns, 0),
      ),
      {
        // The load generator shares the machine: two nodes that keep every core busy are bound by the machine.
        scenario: label,
        figure: 'machine CPU busy, two nodes (baseline: one node)',
        value: 100 * medianOf(result.b, (round) => round.machineBusy),
        unit: '%',
        baseline: 100 * medianOf(result.a, (round) => round.machineBusy),
      },
    ]

    const { rejoin } = config
    const trials: Trial[] = []
    for (let index = 0; index < rejoin.trials; index++)
      trials.push(await rejoinTrial(context, chatUrlOf(nodes[0], AGENTS.rejoin), chatUrlOf(nodes[1], AGENTS.rejoin)))
    rows.push(
      ...rejoinRows(
        context,
        `several nodes: rejoin across nodes (${rejoin.tokens} tokens at ${rejoin.delayMs} ms on one node, ${rejoin.joiners} joiners on the other${rejoin.trials > 1 ? `, ${rejoin.trials} runs` : ''})`,
        trials,
      ),
    )
    return rows
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined)
  }
}
