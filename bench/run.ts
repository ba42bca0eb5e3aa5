/**
 * `npm run bench [-- --quick | --soak 10m] [--only protocol,analyst,...] [--server auto|binary|source] [--profile <dir>]
 * [--nodes N]`
 *
 * `--only nodes-rejoin` runs the several-nodes scenario's cross-node rejoin alone (nodes, Postgres and Redis started,
 * no protocol rounds): a few seconds.
 *
 * Starts the server under test as a real process (its own temporary database and bootstrap, LOG_LEVEL=warn,
 * ANALYST_DELAY_MS=0, run limits lifted but for the overload scenario, 127.0.0.1), records the lines of its turns for the baseline server, runs the scenarios,
 * prints one table and writes it as JSON under `bench/results/`. Every loop is bounded; every process it starts is
 * stopped and its temporary files removed, also on Ctrl-C.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { availableParallelism, cpus, totalmem } from 'node:os'
import { join, resolve } from 'node:path'
import { benchConfig, type BenchConfig } from './lib/config'
import {
  AGENTS,
  createContext,
  makeTempDir,
  recordShape,
  startBaseline,
  startServerUnderTest,
  writeBootstrap,
  type Baseline,
  type BenchContext,
} from './lib/context'
import { renderTable, unmet, type Row } from './lib/report'
import { binaryIsFresh, buildBinary, ROOT, serverCommand, type RunningServer, type ServerCommand } from './lib/server'
import { fileLimit } from './lib/workers'
import { analystBody, analystScenario, QUESTIONS } from './scenarios/analyst'
import { concurrencyScenario } from './scenarios/concurrency'
import { generateSessionScenario } from './scenarios/generate-session'
import { overloadScenario } from './scenarios/overload'
import { protocolBody, protocolScenario } from './scenarios/protocol'
import { rejoinScenario } from './scenarios/rejoin'
import { nodesRejoinScenario, scaleOutScenario } from './scenarios/scale-out'
import { workersScenario } from './scenarios/workers'
import { noisyNeighbourScenario } from './scenarios/noisy-neighbour'
import { parseDuration, soakScenario } from './scenarios/soak'
import { startupScenario } from './scenarios/startup'
import { sweepScenario } from './scenarios/sweep'
import { storeScenario } from './scenarios/store'
import { websocketScenario } from './scenarios/websocket'

export const SCENARIOS = [
  'protocol',
  'analyst',
  'rejoin',
  'websocket',
  'nodes',
  'nodes-rejoin',
  'store',
  'workers',
  'sweep',
  'sessions',
  'concurrency',
  'overload',
  'startup',
  'noisy',
] as const
export type ScenarioName = (typeof SCENARIOS)[number]

export interface BenchOptions {
  mode: BenchConfig['mode']
  only?: ScenarioName[]
  server?: 'auto' | 'binary' | 'source'
  soakMs?: number
  /**
   * Runs the server from source under Bun's CPU profiler, which writes a `.cpuprofile` into this folder when the
   * server stops (one per server process the run starts; its markdown summary, `--cpu-prof-md`, stops a server at
   * start on Bun 1.4).
   */
  profileDir?: string
  /** How many nodes the several-nodes scenario runs (2 unless given). */
  nodes?: number
  /** Where the JSON goes; undefined writes nothing (the harness's own test). */
  resultsDir?: string
  log?: (message: string) => void
}

export interface BenchResult {
  rows: Row[]
  /** Every process the run started; all have exited by the time this resolves. */
  pids: number[]
  file: string | undefined
  server: string
  /** The temporary folder (removed by the time this resolves). */
  dir: string
}

function parseArguments(argv: string[]): BenchOptions {
  const options: BenchOptions = { mode: 'full', resultsDir: join(ROOT, 'bench', 'results') }
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index]
    const value = () => {
      const next = argv[++index]
      if (next === undefined) throw new Error(`${argument} needs a value`)
      return next
    }
    if (argument === '--quick') options.mode = 'quick'
    else if (argument === '--soak') options.soakMs = parseDuration(value())
    else if (argument === '--server') {
      const server = value()
      if (server !== 'auto' && server !== 'binary' && server !== 'source')
        throw new Error('--server: auto, binary or source')
      options.server = server
    } else if (argument === '--profile') options.profileDir = value()
    else if (argument === '--nodes') {
      const nodes = Number(value())
      if (!Number.isInteger(nodes) || nodes < 1 || nodes > 64) throw new Error('--nodes: a whole number from 1 to 64')
      options.nodes = nodes
    } else if (argument === '--only') {
      const names = value().split(',')
      const unknown = names.filter((name) => !(SCENARIOS as readonly string[]).includes(name))
      if (unknown.length)
        throw new Error(`--only: unknown scenario ${unknown.join(', ')}; known: ${SCENARIOS.join(', ')}`)
      options.only = names as ScenarioName[]
    } else
      throw new Error(
        `unknown argument ${argument}; use --quick, --soak <duration>, --only <scenarios>, --server auto|binary|source, --profile <dir>, --nodes <N>`,
      )
  }
  return options
}

/** `bun run src/main.ts` under the CPU profiler, writing into `dir` at exit. */
function profiledCommand(dir: string): ServerCommand {
  const source = serverCommand('source')
  const out = resolve(dir)
  mkdirSync(out, { recursive: true })
  const [bun, ...rest] = source.argv
  return {
    ...source,
    argv: [bun, '--cpu-prof', `--cpu-prof-dir=${out}`, ...rest],
    note: `${source.note} under --cpu-prof (into ${out})`,
  }
}

/** Everything the run started, stopped in `cleanup` whatever happens. */
const running = {
  server: undefined as RunningServer | undefined,
  /** Holds the server once scenarios run (they may restart it), so Ctrl-C stops the current one. */
  context: undefined as BenchContext | undefined,
  baseline: undefined as Baseline | undefined,
  dir: undefined as string | undefined,
}

async function cleanup() {
  for (const stop of running.context?.cleanups.splice(0).reverse() ?? []) await stop().catch(() => undefined)
  await running.context?.server.stop().catch(() => undefined)
  await running.server?.stop().catch(() => undefined)
  await running.baseline?.stop().catch(() => undefined)
  if (running.dir) rmSync(running.dir, { recursive: true, force: true })
  running.server = running.context = running.baseline = running.dir = undefined
}

/** Runs the benchmark; resolves with the rows (and the JSON file written, if any). */
export async function runBench(options: BenchOptions): Promise<BenchResult> {
  const log = options.log ?? ((message: string) => process.stdout.write(`${message}\n`))
  const config = { ...benchConfig(options.mode), ...(options.nodes !== undefined && { nodes: options.nodes }) }
  const selected = (name: ScenarioName) =>
    options.soakMs === undefined && (!options.only || options.only.includes(name))
  const dir = makeTempDir()
  running.dir = dir
  writeBootstrap(dir, config)
  try {
    // The server under test: dist/service when it is up to date, else `bun run src/main.ts` (a stale binary would
    // measure old code). The start-up scenario needs a binary: without an up-to-date one, it builds one from the
    // sources into the temporary folder (a few seconds), as does `--server binary`.
    const prefer = options.server ?? 'auto'
    const needBinary = !binaryIsFresh() && (prefer === 'binary' || selected('startup'))
    const built = needBinary ? await buildBinary(join(dir, 'service')) : undefined
    const command: ServerCommand = options.profileDir
      ? profiledCommand(options.profileDir)
      : serverCommand(prefer, built)
    // The start-up scenario's binary: the server under test when it is one, else the up-to-date dist/service or the
    // one just built (with `--server source` and a fresh dist/service, nothing is built).
    const binary: ServerCommand | undefined =
      command.kind === 'binary' ? command : built || binaryIsFresh() ? serverCommand('binary', built) : undefined
    const limit = await fileLimit()
    if (selected('concurrency') && limit < config.concurrency.runs + 1000)
      log(
        `warning: the open-files hard limit is ${limit}; ${config.concurrency.runs} streams need more (raise it with ulimit -Hn)`,
      )
    log(
      `bench ${config.mode}: server ${command.note}; ${availableParallelism()} CPUs (${cpus()[0]?.model ?? 'unknown'}), ${(totalmem() / 2 ** 30).toFixed(1)} GB`,
    )

    const server = await startServerUnderTest(command, dir)
    running.server = server
    const ctx = createContext({ config, dir, command, server, baselineUrl: '', log })
    running.context = ctx
    running.server = undefined
    // The baseline answers with the very lines of the service's turns, recorded here.
    const protocolShape = await recordShape(ctx, 'protocol', ctx.chatUrl(AGENTS.protocol), protocolBody(ctx, 0))
    for (const [index] of QUESTIONS.entries())
      await recordShape(ctx, `analyst-${index}`, ctx.chatUrl(AGENTS.analyst), analystBody(ctx, 0, index))
    running.baseline = await startBaseline(dir)
    ctx.baselineUrl = running.baseline.url
    ctx.baselinePid = running.baseline.pid
    ctx.pids.push(running.baseline.pid)

    const rows: Row[] = []
    if (options.soakMs !== undefined) rows.push(...(await soakScenario(ctx, options.soakMs)))
    if (selected('protocol') || selected('analyst') || selected('websocket'))
      rows.push(...(await protocolScenario(ctx, protocolShape)))
    if (selected('analyst')) rows.push(...(await analystScenario(ctx)))
    if (selected('websocket')) rows.push(...(await websocketScenario(ctx)))
    if (selected('rejoin')) rows.push(...(await rejoinScenario(ctx)))
    if (selected('nodes')) rows.push(...(await scaleOutScenario(ctx)))
    // Part of `nodes`: run on its own only when named alone.
    else if (options.only?.includes('nodes-rejoin')) rows.push(...(await nodesRejoinScenario(ctx)))
    if (selected('store')) rows.push(...(await storeScenario(ctx)))
    if (selected('workers')) rows.push(...(await workersScenario(ctx)))
    if (selected('sweep')) rows.push(...(await sweepScenario(ctx)))
    if (selected('sessions')) rows.push(...(await generateSessionScenario(ctx)))
    if (selected('concurrency')) rows.push(...(await concurrencyScenario(ctx)))
    if (selected('noisy')) rows.push(...(await noisyNeighbourScenario(ctx)))
    // Restarts the server with the default run limits: it runs after every scenario that needs them lifted.
    if (selected('overload')) rows.push(...(await overloadScenario(ctx)))
    if (selected('startup')) rows.push(...(await startupScenario(ctx, binary)))

    let file: string | undefined
    if (options.resultsDir) {
      mkdirSync(options.resultsDir, { recursive: true })
      file = join(
        options.resultsDir,
        `${new Date().toISOString().replace(/[:.]/g, '-')}-${options.soakMs !== undefined ? 'soak' : config.mode}.json`,
      )
      writeFileSync(
        file,
        `${JSON.stringify(
          {
            startedAt: new Date().toISOString(),
            mode: options.soakMs !== undefined ? 'soak' : config.mode,
            server: command.note,
            machine: {
              cpus: availableParallelism(),
              cpu: cpus()[0]?.model,
              memoryGb: totalmem() / 2 ** 30,
              bun: Bun.version,
              platform: process.platform,
            },
            config,
            rows,
          },
          null,
          2,
        )}\n`,
      )
    }
    return { rows, pids: ctx.pids, file, server: command.note, dir }
  } finally {
    await cleanup()
  }
}

if (import.meta.main) {
  const stop = () => {
    void cleanup().finally(() => process.exit(130))
  }
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
  try {
    const options = parseArguments(process.argv.slice(2))
    const result = await runBench(options)
    process.stdout.write(`\n${renderTable(result.rows)}\n\n`)
    const missed = unmet(result.rows)
    process.stdout.write(
      missed.length
        ? `Targets not met: ${missed.map((row) => `${row.scenario}: ${row.figure}`).join('; ')}\n`
        : 'Every target is met.\n',
    )
    for (const row of result.rows.filter((each) => each.note))
      process.stdout.write(`  note, ${row.scenario} / ${row.figure}: ${row.note}\n`)
    if (result.file) process.stdout.write(`Results: ${result.file}\n`)
    process.exit(0)
  } catch (error) {
    process.stderr.write(`bench failed: ${(error as Error)?.stack ?? String(error)}\n`)
    await cleanup()
    process.exit(1)
  }
}
