import { Database } from 'bun:sqlite'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { createLogger } from '../lib/logger'
import { createSemanticService } from '../plugins/semantic/semantic-service'
import type { DataSourceConfig } from '../plugins/semantic/sources/data-source'
import { runCli } from '../src/cli/index'
import { apiKey, createTestApp, type TestApp } from '../test/helpers/app'
import { chatBase, finalAnswer, mergeLines, readLines } from '../test/helpers/chat'
import {
  mariadbAvailable,
  mariadbServer,
  postgresAvailable,
  postgresServer,
  stopDatabaseServers,
} from '../test/helpers/database-servers'
import { TEST_DEMO_DATA } from '../test/helpers/demo-data'
import {
  duckdbDemoSource,
  mariadbDemoSource,
  postgresDemoSource,
  removeDemoSourceFiles,
  sqliteDemoSource,
  type DemoSource,
} from '../test/helpers/demo-sources'
import { keys, testBootstrap } from '../test/helpers/fixtures'
import { comparisons } from '../test/plugins/agent/questions/comparisons'
import { conversations } from '../test/plugins/agent/questions/conversations'
import { rankings } from '../test/plugins/agent/questions/rankings'
import { reading } from '../test/plugins/agent/questions/reading'
import { expectedRows, score, writeCell, type Outcome } from '../test/plugins/agent/questions/score'
import { threads } from '../test/plugins/agent/questions/threads'
import { totals } from '../test/plugins/agent/questions/totals'
import type { Question } from '../test/plugins/agent/questions/types'
import {
  loadDuckdb,
  loadParquetViews,
  loadServer,
  loadSqlite,
  readSample,
  type SampleTable,
  type SourceKind,
} from './samples'
import { freight } from './sets/freight'
import { freightTables } from './sets/freight-data'
import { northwind } from './sets/northwind'
import { pagila } from './sets/pagila'
import type { EvalQuestion } from './sets/types'

/**
 * `npm run eval`: asks question sets with truth SQL of their own and prints right / declined / wrong per set and
 * source. The demo set on the built-in demo model; Northwind, Pagila and a made-up freight forwarder loaded into every
 * source kind this machine runs (SQLite, DuckDB, Postgres, MariaDB), each modelled by `model generate` with no edits.
 * Exits 0 unless it cannot run; `--strict` exits 1 when a target is missed (90% right and none wrong on the sample
 * sets, 95% on the demo).
 */

const { values: options } = parseArgs({
  options: {
    strict: { type: 'boolean' },
    verbose: { type: 'boolean', short: 'v' },
    sets: { type: 'string' },
    sources: { type: 'string' },
    'demo-sources': { type: 'string' },
    only: { type: 'string' },
  },
})
/** `--only <pattern>`: only the questions whose words match it (case-insensitive), each with its whole answer. */
const only = options.only ? new RegExp(options.only, 'i') : undefined
const asked = <T extends { ask: string | string[] }>(questions: T[]): T[] =>
  only ? questions.filter((question) => only.test(JSON.stringify(question.ask))) : questions
const wantedSets = new Set((options.sets ?? 'demo,northwind,pagila,freight').split(','))
const wantedSources = new Set((options.sources ?? 'sqlite,duckdb,parquet,postgres,mariadb').split(','))

/** Where the eval loads a sample: a source kind, or DuckDB views over Parquet files (`parquet`, no keys declared). */
type Target = SourceKind | 'parquet'
const dialectOf = (target: Target): SourceKind => (target === 'parquet' ? 'duckdb' : target)

interface Tally {
  set: string
  source: string
  right: number
  declined: number
  wrong: number
  misses: string[]
  /** Seconds spent asking (loading and modelling left out). */
  seconds?: number
}

const folder = mkdtempSync(join(tmpdir(), 'eval-'))
const tallies: Tally[] = []

/** Asks every turn of a question in one thread of the app; returns the last turn's final answer. */
async function answerOf(app: TestApp, ask: string | string[], user: string, region?: string): Promise<string> {
  const sessionSettings = {
    externalId: user,
    ...(region ? { userAttributes: [{ name: 'region', value: region }] } : {}),
  }
  let chatId: string | undefined
  let answer = ''
  for (const input of Array.isArray(ask) ? ask : [ask]) {
    const response = await app.request('POST', `${chatBase()}/stream-chat-state`, {
      headers: apiKey(keys.admin),
      body: { input, sessionSettings, ...(chatId ? { chatId } : {}) },
    })
    const lines = await readLines(response)
    chatId ??= (lines[0]?.state as { chatId?: string } | undefined)?.chatId
    answer = finalAnswer(mergeLines(lines))?.content ?? ''
  }
  return answer
}

function record(tally: Tally, outcome: Outcome, ask: string | string[], why: string, answer: string): void {
  tally[outcome]++
  if (outcome !== 'right' || only)
    tally.misses.push(
      `${outcome.padEnd(8)} ${JSON.stringify(ask)}: ${why}\n           ${only ? answer.replace(/\n/g, '\n           ') : answer.split('\n')[0].slice(0, 160)}`,
    )
}

const DEMO_QUESTIONS: Question[] = [...totals, ...comparisons, ...rankings, ...threads, ...reading, ...conversations]

/** Asks the demo set of an app; the truth is its SQL on the demo data (the same rows in every source). */
async function askDemo(app: TestApp, source: string, questions: Question[]): Promise<void> {
  const data = new Database(app.deps.semantic.demoData().path, { readonly: true })
  const tally: Tally = { set: 'demo', source, right: 0, declined: 0, wrong: 0, misses: [] }
  const started = performance.now()
  try {
    for (const [index, question] of questions.entries()) {
      if (!asked([question]).length) continue
      const answer = await answerOf(app, question.ask, `demo-${index}`, question.region)
      const { outcome, why } = score(answer, question.sql ? expectedRows(data, question) : undefined, question.first)
      record(tally, outcome, question.ask, why, answer)
    }
  } finally {
    data.close()
    await app.close()
  }
  tally.seconds = (performance.now() - started) / 1000
  tallies.push(tally)
}

/**
 * The demo set on the built-in demo model, then on a model `model generate` wrote of the demo tables in each source
 * (`demo-data --into`), with no edits. Questions asked as a user bound to a region need the built-in model's access
 * policies, so they are asked of the built-in model only.
 */
async function demoSets(targets: Target[]): Promise<void> {
  await askDemo(createTestApp(), 'built-in', DEMO_QUESTIONS)
  const sources = new Map<Target, () => Promise<DemoSource>>([
    ['sqlite', sqliteDemoSource],
    ['duckdb', duckdbDemoSource],
    ['postgres', postgresDemoSource],
    ['mariadb', mariadbDemoSource],
  ])
  for (const target of targets) {
    const make = sources.get(target)
    if (!make) continue
    const { config } = await make()
    const model = join(folder, `model-demo-${target}`)
    await generate(config, model, `demo (${target})`)
    await askDemo(
      appOn(model, config),
      target,
      DEMO_QUESTIONS.filter((question) => !question.region),
    )
  }
  removeDemoSourceFiles()
}

/** `model generate` of a source into `model`, as a user runs it. */
async function generate(config: DataSourceConfig, model: string, what: string): Promise<void> {
  const errors: string[] = []
  const code = await runCli(['model', 'generate', '--from', config.url ?? (config.path as string), '--out', model], {
    out: () => {},
    err: (text) => void errors.push(text),
    env: process.env,
  })
  if (code !== 0) throw new Error(`model generate failed on ${what}: ${errors.join('')}`)
}

/** A test app whose deployment 1 reads `model` over `config`. */
function appOn(model: string, config: DataSourceConfig): TestApp {
  const bootstrap = testBootstrap()
  const deployment = bootstrap.accounts[0].deployments?.[0]
  if (deployment) deployment.model = model
  return createTestApp({
    bootstrap,
    semantic: createSemanticService({
      config: { dbPath: ':memory:', demoDataPath: TEST_DEMO_DATA },
      logger: createLogger('silent'),
      dataSources: new Map([[1, config]]),
    }),
  })
}

/** Runs truth SQL on the source itself. */
async function truthRunner(target: Target, config: DataSourceConfig) {
  const kind = dialectOf(target)
  if (kind === 'sqlite') {
    const database = new Database(config.path as string, { readonly: true })
    return {
      run: async (sql: string) => database.query(sql).values() as unknown[][],
      close: async () => database.close(),
    }
  }
  if (kind === 'duckdb') {
    const { DuckDBInstance } = (await import('../plugins/semantic/sources/duckdb-module')).duckdb()
    const instance = await DuckDBInstance.create(config.path as string, { access_mode: 'READ_ONLY' })
    const connection = await instance.connect()
    return {
      run: async (sql: string) => (await connection.runAndReadAll(sql)).getRowsJS() as unknown[][],
      close: async () => {
        connection.closeSync()
        instance.closeSync()
      },
    }
  }
  const client = new Bun.SQL(config.url as string, { max: 1 })
  return {
    run: async (sql: string) => (await client.unsafe(sql).values()) as unknown[][],
    close: async () => client.close(),
  }
}

/** A sample loaded into one source kind: its data source config. */
async function loadInto(name: string, tables: SampleTable[], kind: Target): Promise<DataSourceConfig> {
  const base = { maxConnections: 4, queryTimeoutMs: 30_000 }
  if (kind === 'parquet') {
    const path = join(folder, `${name}-views.duckdb`)
    await loadParquetViews(tables, path, folder)
    return { type: 'duckdb', path, ...base } as DataSourceConfig
  }
  if (kind === 'sqlite') {
    const path = join(folder, `${name}.db`)
    loadSqlite(tables, path)
    return { type: 'sqlite', path, ...base } as DataSourceConfig
  }
  if (kind === 'duckdb') {
    const path = join(folder, `${name}.duckdb`)
    await loadDuckdb(tables, path)
    return { type: 'duckdb', path, ...base } as DataSourceConfig
  }
  const server = kind === 'postgres' ? await postgresServer() : await mariadbServer()
  const url = new URL(server.url)
  const database = `eval_${name}`
  const admin = new Bun.SQL(server.url, { max: 1 })
  try {
    await admin.unsafe(`DROP DATABASE IF EXISTS ${database}`)
    await admin.unsafe(`CREATE DATABASE ${database}`)
  } finally {
    await admin.close()
  }
  url.pathname = `/${database}`
  await loadServer(tables, url.toString(), kind)
  return { type: kind === 'postgres' ? 'postgres' : 'mysql', url: url.toString(), ...base } as DataSourceConfig
}

/** One sample set on one source kind: load, `model generate` with no edits, ask, score. */
async function sampleSet(name: string, questions: EvalQuestion[], tables: SampleTable[], kind: Target) {
  const tally: Tally = { set: name, source: kind, right: 0, declined: 0, wrong: 0, misses: [] }
  const config = await loadInto(name, tables, kind)
  const model = join(folder, `model-${name}-${kind}`)
  await generate(config, model, `${name} (${kind})`)
  // The truth first: DuckDB's file is opened by one instance at a time.
  const truth = await truthRunner(kind, config)
  const expected: Array<string[][] | undefined> = []
  try {
    for (const question of questions) {
      if (!question.sql) {
        expected.push(undefined)
        continue
      }
      const sql = typeof question.sql === 'function' ? question.sql(dialectOf(kind)) : question.sql
      const rows = await truth.run(sql)
      expected.push(
        rows.map((row) => {
          const cells = question.cells ?? [...row.slice(0, -1).map(() => 'text' as const), 'money' as const]
          return row.map((value, index) => {
            const cell = cells[index] ?? 'text'
            const plain = typeof value === 'bigint' ? Number(value) : value
            return writeCell(cell === 'text' || plain === null ? plain : Number(plain), cell)
          })
        }),
      )
    }
  } finally {
    await truth.close()
  }
  const app = appOn(model, config)
  const started = performance.now()
  try {
    for (const [index, question] of questions.entries()) {
      const answer = await answerOf(app, question.ask, `${name}-${index}`)
      const { outcome, why } = score(answer, expected[index], question.first)
      record(tally, outcome, question.ask, why, answer)
    }
  } finally {
    await app.close()
  }
  tally.seconds = (performance.now() - started) / 1000
  tallies.push(tally)
}

function printTable(): void {
  const header = ['set', 'source', 'right', 'declined', 'wrong', 'right %', 'asked in']
  const rows = tallies.map((tally) => {
    const total = tally.right + tally.declined + tally.wrong
    return [
      tally.set,
      tally.source,
      `${tally.right}/${total}`,
      String(tally.declined),
      String(tally.wrong),
      `${total === 0 ? 0 : Math.round((100 * tally.right) / total)}%`,
      `${(tally.seconds ?? 0).toFixed(1)} s`,
    ]
  })
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column].length)))
  const line = (cells: string[]) => `| ${cells.map((cell, column) => cell.padEnd(widths[column])).join(' | ')} |`
  console.log(line(header))
  console.log(`|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`)
  for (const row of rows) console.log(line(row))
}

async function main(): Promise<number> {
  const started = performance.now()
  const kinds = (['sqlite', 'duckdb', 'parquet', 'postgres', 'mariadb'] as Target[]).filter((kind) => {
    if (!wantedSources.has(kind)) return false
    if (kind === 'postgres' && !postgresAvailable) console.error('eval: Postgres is not installed here; skipped')
    else if (kind === 'mariadb' && !mariadbAvailable) console.error('eval: MariaDB is not installed here; skipped')
    else return true
    return false
  })
  // The demo's 120,000 orders make each of its questions slow: its generated models are asked on SQLite unless told.
  const demoKinds = new Set((options['demo-sources'] ?? 'sqlite').split(','))
  if (wantedSets.has('demo')) await demoSets(kinds.filter((kind) => demoKinds.has(kind)))
  // (The freight set is made by its generator, not read from a dump: a database no one grew the analyst on.)
  const samples: Array<[string, EvalQuestion[], () => SampleTable[]]> = [
    ['northwind', northwind, () => readSample('northwind')],
    ['pagila', pagila, () => readSample('pagila')],
    ['freight', freight, freightTables],
  ]
  for (const [name, questions, read] of samples) {
    if (!wantedSets.has(name)) continue
    const tables = read()
    for (const kind of kinds) await sampleSet(name, asked(questions), tables, kind)
  }
  printTable()
  if (options.verbose)
    for (const tally of tallies)
      if (tally.misses.length > 0) console.log(`\n${tally.set} on ${tally.source}:\n  ${tally.misses.join('\n  ')}`)
  console.log(`\n${Math.round((performance.now() - started) / 1000)} s`)
  const missed = tallies.filter((tally) => {
    const total = tally.right + tally.declined + tally.wrong
    const target = tally.set === 'demo' ? 0.95 : 0.9
    return tally.wrong > 0 || tally.right < target * total
  })
  return options.strict && missed.length > 0 ? 1 : 0
}

let exitCode = 2
try {
  exitCode = await main()
} catch (error) {
  console.error(`eval: cannot run: ${(error as Error).stack ?? error}`)
} finally {
  stopDatabaseServers()
  rmSync(folder, { recursive: true, force: true })
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${TEST_DEMO_DATA}${suffix}`, { force: true })
}
process.exit(exitCode)
