import { spawnSync } from 'bun'
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { TEST_DEMO_DATA } from '../../helpers/demo-data'
import { serverDatabase, type ServerDatabase } from '../../helpers/server-database'
import { startServerProcess, type ServerProcess } from '../../../harness/server-process'

/**
 * DuckDB from the compiled binary, which carries the native library inside itself. Built here with the project's own
 * build command (a few seconds), into a temporary folder: nothing beside the binary, no node_modules to fall back on.
 */
const root = join(import.meta.dir, '..', '..', '..')
const key = 'ak_binary_duckdb_0123456789'
const dir = mkdtempSync(join(tmpdir(), 'binary-duckdb-'))
const binary = join(dir, 'service')
// The embedded library is copied out here (instead of the shared temporary folder), so the test leaves nothing behind.
const cache = join(dir, 'cache')
// The DuckDB bindings ship for linux-x64 (glibc) in this project's lockfile; the build embeds that one.
const buildable = process.platform === 'linux' && process.arch === 'x64'
let server: ServerProcess | undefined
let database: ServerDatabase | undefined

function build(): void {
  const script = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: { build: string } })
    .scripts.build
  const command = script.replace('--outfile dist/service', `--outfile '${binary}'`)
  if (command === script) throw new Error(`the build script no longer writes dist/service: ${script}`)
  const result = spawnSync(['sh', '-c', command.replace(/^bun /, `'${process.execPath}' `)], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
  })
  if (result.exitCode !== 0) throw new Error(`build failed:\n${result.stderr.toString()}`)
}

beforeAll(async () => {
  if (!buildable) return
  build()
  const data = join(dir, 'shop.duckdb')
  const written = spawnSync([binary, 'demo-data', '--into', data], {
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      DUCKDB_LIBRARY_CACHE: cache,
      DEMO_DATA_PATH: TEST_DEMO_DATA,
    },
  })
  if (written.exitCode !== 0) throw new Error(`demo-data failed:\n${written.stderr.toString()}`)
  writeFileSync(
    join(dir, 'bootstrap.yaml'),
    `accounts:
  - name: acme
    plan: enterprise
    apiKeys: [{ name: admin, key: ${key}, admin: true }]
    deployments:
      - { id: 1, name: Built-in, model: demo, agents: [{ id: 1, name: A }] }
      - id: 2
        name: DuckDB
        model: demo
        dataSource: { type: duckdb, path: ${JSON.stringify(data)} }
        agents: [{ id: 2, name: B }]
`,
  )
  database = await serverDatabase(dir)
  server = await startServerProcess({
    env: {
      ...database.env,
      BOOTSTRAP_FILE: join(dir, 'bootstrap.yaml'),
      DEMO_DATA_PATH: TEST_DEMO_DATA,
      DUCKDB_LIBRARY_CACHE: cache,
    },
    command: [binary],
    timeoutMs: 60_000,
    // Away from the sources, as where it is deployed: what it loads must come from the binary itself.
    cwd: dir,
  })
}, 120_000)

afterAll(async () => {
  await server?.stop('SIGKILL')
  await database?.drop()
  rmSync(dir, { recursive: true, force: true })
})

async function sql(deployment: number, query: string) {
  const response = await fetch(`${server!.url}/api/v1/deployments/${deployment}/sql`, {
    method: 'POST',
    headers: { authorization: `Api-Key ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  })
  return { status: response.status, body: (await response.json()) as { data?: string[][] } }
}

describe.skipIf(!buildable)('the compiled binary with a DuckDB source', () => {
  it('answers a DuckDB deployment the same as the built-in demo data', async () => {
    const query = 'SELECT MEASURE(orders.count) AS count FROM orders'
    const builtIn = await sql(1, query)
    const duckdb = await sql(2, query)
    expect(builtIn.status).toBe(200)
    expect(duckdb.status).toBe(200)
    expect(duckdb.body.data).toEqual([['120000']])
    expect(duckdb.body).toEqual(builtIn.body)
  }, 60_000)

  it('answers a grouped sum over a join the same as the built-in demo data', async () => {
    const query = 'SELECT customers.region, MEASURE(orders.total_amount) FROM orders GROUP BY 1 ORDER BY 1'
    const builtIn = await sql(1, query)
    const duckdb = await sql(2, query)
    expect(builtIn.status).toBe(200)
    expect(duckdb.status).toBe(200)
    expect(duckdb.body.data?.length).toBeGreaterThan(1)
    expect(duckdb.body).toEqual(builtIn.body)
  }, 60_000)

  it('starts the worker threads it carries: no worker failed to load from the binary', async () => {
    // The built-in deployment's SQLite queries ran above; on SQLite storage the WAL checkpoint worker started too.
    expect((await sql(1, 'SELECT MEASURE(orders.count) AS count FROM orders')).status).toBe(200)
    expect(server!.output()).not.toContain('worker failed')
    expect(server!.output()).not.toContain('ModuleNotFound')
  })

  it('copies the native library out of the binary into the configured cache folder', () => {
    expect(readdirSync(cache).filter((name) => /^libduckdb-.+\.so$/.test(name))).toHaveLength(1)
  })
})

if (!buildable)
  console.warn(`SKIPPED: the DuckDB binary test needs linux-x64 (this is ${process.platform}-${process.arch})`)
