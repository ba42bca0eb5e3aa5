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
import { cpuMsOfTrees, systemCpuMsOf } from '../lib/cpu'
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

/** How the figures name the nodes on Postgres and Redis: `two nodes` (the default), or `N nodes`. */
const nodesName = (count: number) => (count === 2 ? 'two nodes' : count === 1 ? 'one node' : `${count} nodes`)

/** Where the nodes' turns go in Postgres and Redis, per turn (see `backingTraffic`). */
function trafficRows(
  label: string,
  traffic: ReturnType<typeof backingTraffic>['total'],
  turns: number,
  nodeCount: number,
): Row[] {
  const row = (figure: string, value: number, unit: string, note?: string): Row => ({
    scenario: label,
    figure: `${figure} per turn, ${nodesName(nodeCount)}`,
    value: value / turns,
    unit,
    note,
  })
  const { postgres, redis, statements, commands, work, rows } = traffic
  const commits = statements.get('COMMIT') ?? 0
  const background = sum(work.backgroundCpuMs)
  const ms = (value: number) => (value / turns).toFixed(3)
  return [
    // Where Postgres's CPU goes: its statements' execution, the rest of its backends' time, its other processes.
    row('Postgres statement execution time (pg_stat_statements)', work.executionMs, 'ms'),
    row(
      'Postgres backends’ CPU',
      work.backendCpuMs,
      'ms',
      `execution ${ms(work.executionMs)} ms, the rest (parse, bind, protocol, commit, WAL flush) ${ms(work.backendCpuMs - work.executionMs)} ms`,
    ),
    row(
      'Postgres background processes’ CPU',
      background,
      'ms',
      [...work.backgroundCpuMs]
        .sort((a, b) => b[1] - a[1])
        .map(([role, cpu]) => `${role} ${ms(cpu)}`)
        .join('; '),
    ),
    row('Postgres WAL bytes', work.walBytes, 'B', `${(work.walRecords / turns).toFixed(1)} records a turn`),
    row('Postgres WAL full-page images', work.walFullPageImages, ''),
    row('Postgres WAL flushes (fsync)', work.walSyncs, '', `${(work.walWrites / turns).toFixed(2)} writes a turn`),
    row('Postgres statements', sum(statements), '', perTurnNote(statements, turns, 10)),
    row('Postgres transactions (COMMIT)', commits, ''),
    row('Postgres rows written (inserted, updated, deleted)', sum(rows), '', perTurnNote(rows, turns, 10, 40)),
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
 * Postgres, Redis and `config.nodes` nodes on them, each stop pushed onto `stops`; undefined (said in the log) when
 * this build does not keep its state in Postgres.
 */
export async function startNodes(context: BenchContext, stops: Array<() => Promise<void>>) {
  const postgres = await startPostgres(context.dir)
  stops.push(tracked(context, postgres.stop))
  const redis = await startRedis(context.dir)
  context.pids.push(redis.pid)
  stops.push(tracked(context, redis.stop))
  const nodes: RunningServer[] = []
  // One after the other: the first migrates Postgres and applies the bootstrap. Each has a SQLite path of its own
  // (unused on Postgres), so a build that ignored DATABASE_URL could not touch the server under test's file.
  for (let index = 0; index < context.config.nodes; index++) {
    const { server, stop } = await startExtraServer(context, {
      DATABASE_URL: postgres.url,
      REDIS_URL: redis.url,
      DB_PATH: join(context.dir, `node-${index + 1}.db`),
    })
    nodes.push(server)
    stops.push(stop)
    if (index === 0 && !(await holdsServiceTables(postgres.url))) {
      context.log(`  several nodes: ${NO_POSTGRES_STORAGE}`)
      return undefined
    }
  }
  return { postgres, redis, nodes }
}

/** Several nodes: a run on the first node, its joiners on the second (on the same one when there is only one). */
export async function rejoinAcrossNodes(context: BenchContext, nodes: RunningServer[]): Promise<Row[]> {
  const { rejoin } = context.config
  const joining = nodes.at(1) ?? nodes[0]
  const trials: Trial[] = []
  // The joining node's CPU over the trials: what its joins and fan-out cost, steadier on a busy machine than the lag.
  const cpuBefore = cpuMsOfTrees([joining.pid])
  const systemBefore = systemCpuMsOf(joining.pid)
  for (let index = 0; index < rejoin.trials; index++)
    trials.push(await rejoinTrial(context, chatUrlOf(nodes[0], AGENTS.rejoin), chatUrlOf(joining, AGENTS.rejoin)))
  const cpuMs = (cpuMsOfTrees([joining.pid]) - cpuBefore) / rejoin.trials
  const systemMs = (systemCpuMsOf(joining.pid) - systemBefore) / rejoin.trials
  const scenario = `several nodes: rejoin across nodes (${rejoin.tokens} tokens at ${rejoin.delayMs} ms on one node, ${rejoin.joiners} joiners on the other${rejoin.trials > 1 ? `, ${rejoin.trials} runs` : ''})`
  return [
    ...rejoinRows(context, scenario, trials),
    {
      scenario,
      figure: "the joining node's CPU per run (its joins and fan-out)",
      value: cpuMs,
      unit: 'ms',
      // Most of a socket write's cost is the kernel's (on loopback, the receiving side's too).
      note: `${systemMs.toFixed(0)} ms of it in the kernel`,
    },
  ]
}

/** The several-nodes scenario's cross-node rejoin alone (`--only nodes-rejoin`): the nodes, no protocol rounds. */
export async function nodesRejoinScenario(context: BenchContext): Promise<Row[]> {
  const missing = backingServersMissing()
  if (missing) {
    context.log(`  several nodes: skipped, ${missing}`)
    return []
  }
  const stops: Array<() => Promise<void>> = []
  try {
    const cluster = await startNodes(context, stops)
    return cluster ? await rejoinAcrossNodes(context, cluster.nodes) : []
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined)
  }
}

/**
 * Several nodes: the protocol turn on one node with SQLite (the server under test) against two nodes (`--nodes N`:
 * N) sharing one
 * Postgres and one Redis, the client sending each turn to the next node in turn as a round-robin load balancer
 * would, in alternating rounds on the same machine; then a run streamed by one node with its joiners reading from
 * the other. Targets are on what a turn costs (on one machine shared with the load generator, Postgres and Redis,
 * turns/s measure the machine): the whole cluster's CPU per turn at most 1.5 times one node's on SQLite, Postgres
 * and Redis at most 0.15 ms a turn; cross-node rejoin p99 lag at most 25 ms. Each node's CPU per turn it served is
 * reported too: on a machine with cores to spare, `--nodes N` shows whether it stays flat as N grows.
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
    const cluster = await startNodes(context, stops)
    if (!cluster) return []
    const { postgres, redis, nodes } = cluster

    const concurrency = Math.max(...config.protocol.concurrency)
    const many = nodesName(nodes.length)
    // Server CPU per turn: the node's process; the nodes', and apart from it Postgres (all its backends) and Redis.
    const oneNode = () =>
      withServerCpu([context.server.pid], () =>
        closedLoop(concurrency, config.roundMs, (slot) =>
          postTurn(context.chatUrl(AGENTS.protocol), context.headers, protocolBody(context, slot), true),
        ),
      )
    // Each node's own CPU over the measured rounds, for its CPU per turn it served (round robin: one turn in N).
    const nodeCpuMs = nodes.map(() => 0)
    // And Postgres's and Redis's apart: each is one shared component, saturating on its own.
    const backingCpuMs = { postgres: 0, redis: 0 }
    const severalNodes = async () => {
      const before = nodes.map((node) => cpuMsOfTrees([node.pid]))
      const backingBefore = { postgres: cpuMsOfTrees([postgres.pid]), redis: cpuMsOfTrees([redis.pid]) }
      const round = await withServerCpu(
        nodes.map((node) => node.pid),
        () =>
          closedLoop(concurrency, config.roundMs, (slot, sequence) =>
            postTurn(
              chatUrlOf(nodes[sequence % nodes.length], AGENTS.protocol),
              context.headers,
              protocolBody(context, slot),
              true,
            ),
          ),
        [postgres.pid, redis.pid],
      )
      nodes.forEach((node, index) => (nodeCpuMs[index] += cpuMsOfTrees([node.pid]) - before[index]))
      backingCpuMs.postgres += cpuMsOfTrees([postgres.pid]) - backingBefore.postgres
      backingCpuMs.redis += cpuMsOfTrees([redis.pid]) - backingBefore.redis
      return round
    }
    // Warm both up (JIT, connection pools, the database's pages) before the measured rounds.
    await severalNodes()
    await oneNode()
    nodeCpuMs.fill(0)
    backingCpuMs.postgres = backingCpuMs.redis = 0
    // What the nodes' rounds cost Postgres and Redis: statements, commands, bytes and writes each way.
    const traffic = backingTraffic({
      postgresUrl: postgres.url,
      redisUrl: redis.url,
      pids: nodes.map((n) => n.pid),
      postgresPid: postgres.pid,
    })
    stops.push(traffic.close)
    const result = await alternate(config.rounds, oneNode, () => traffic.during(severalNodes))
    const one = medianOf(result.a, (round) => round.perSecond)
    const several = medianOf(result.b, (round) => round.perSecond)
    context.log(`  several nodes: one node ${one.toFixed(0)} turns/s, ${many} ${several.toFixed(0)} turns/s`)
    const label = `several nodes: protocol turn at concurrency ${concurrency}`
    const turns = result.b.reduce((sum, round) => sum + round.turns, 0)
    const oneCpu = medianOf(result.a, (round) => round.cpuMsPerTurn)
    const nodesCpu = medianOf(result.b, (round) => round.cpuMsPerTurn)
    const backingCpu = medianOf(result.b, (round) => round.backingCpuMsPerTurn)
    const rows: Row[] = [
      {
        scenario: label,
        figure: 'turns/s, one node on SQLite',
        value: one,
        unit: '/s',
        note: failureNote(result.a),
      },
      {
        // On one machine shared with the load generator, Postgres and Redis, this measures the machine: the targets
        // are on the cost of a turn, which decides what a cluster of any size serves.
        scenario: label,
        figure: `turns/s, ${many} on Postgres and Redis`,
        value: several,
        unit: '/s',
        baseline: one,
        ratio: several / one,
        note: failureNote(result.b),
      },
      { scenario: label, figure: 'p99 time to __cutoff__, one node', value: cutoffP99(result.a), unit: 'ms' },
      { scenario: label, figure: `p99 time to __cutoff__, ${many}`, value: cutoffP99(result.b), unit: 'ms' },
      { scenario: label, figure: 'server CPU per turn, one node', value: oneCpu, unit: 'ms' },
      { scenario: label, figure: `server CPU per turn, ${many}`, value: nodesCpu, unit: 'ms' },
      ...nodes.map((_, index): Row => ({
        scenario: label,
        figure: `server CPU per turn it served, node ${index + 1} of ${nodes.length}`,
        value: (nodeCpuMs[index] * nodes.length) / turns,
        unit: 'ms',
      })),
      {
        scenario: label,
        figure: 'server CPU per turn, their Postgres and Redis',
        value: backingCpu,
        unit: 'ms',
        target: '≤ 0.15 ms',
        met: failureNote(result.b) === undefined && backingCpu <= 0.15,
      },
      { scenario: label, figure: 'Postgres CPU per turn', value: backingCpuMs.postgres / turns, unit: 'ms' },
      { scenario: label, figure: 'Redis CPU per turn', value: backingCpuMs.redis / turns, unit: 'ms' },
      {
        scenario: label,
        figure: `whole cluster CPU per turn, ${many} with Postgres and Redis (baseline: one node on SQLite)`,
        value: nodesCpu + backingCpu,
        unit: 'ms',
        baseline: oneCpu,
        ratio: (nodesCpu + backingCpu) / oneCpu,
        target: '≤ 150% of one node',
        met: failureNote(result.b) === undefined && nodesCpu + backingCpu <= 1.5 * oneCpu,
      },
      ...trafficRows(label, traffic.total, turns, nodes.length),
      {
        // The load generator shares the machine: nodes that keep every core busy are bound by the machine.
        scenario: label,
        figure: `machine CPU busy, ${many} (baseline: one node)`,
        value: 100 * medianOf(result.b, (round) => round.machineBusy),
        unit: '%',
        baseline: 100 * medianOf(result.a, (round) => round.machineBusy),
      },
    ]

    rows.push(...(await rejoinAcrossNodes(context, nodes)))
    return rows
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined)
  }
}
