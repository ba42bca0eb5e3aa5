import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { DataSourceConfig } from '../../plugins/semantic/sources/data-source'
import { runCli } from '../../src/cli/index'
import {
  mariadbAvailable,
  mariadbServer,
  postgresAvailable,
  sourcePostgresServer,
  warnSkipped,
  type DatabaseServer,
} from './database-servers'
import { TEST_DEMO_DATA } from './demo-data'

/** A source holding the demo tables, loaded with `demo-data --into` once per test run. */
export interface DemoSource {
  name: string
  config: DataSourceConfig
  server?: DatabaseServer
}

async function load(into: string): Promise<void> {
  const errors: string[] = []
  const code = await runCli(['demo-data', '--into', into], {
    out: () => {},
    err: (text) => void errors.push(text),
    env: { ...process.env, DEMO_DATA_PATH: TEST_DEMO_DATA },
  })
  if (code !== 0) throw new Error(`demo-data --into failed: ${errors.join('')}`)
}

const config = (type: DataSourceConfig['type'], where: { url?: string; path?: string }): DataSourceConfig => ({
  type,
  ...where,
  maxConnections: 4,
  queryTimeoutMs: 30_000,
})

let folder: string | undefined
const loaded = new Map<string, Promise<DemoSource>>()

function once(name: string, make: () => Promise<DemoSource>): Promise<DemoSource> {
  let source = loaded.get(name)
  if (!source) loaded.set(name, (source = make()))
  return source
}

export const sqliteDemoSource = () =>
  once('sqlite file', async () => {
    folder ??= mkdtempSync(join(tmpdir(), 'demo-sources-'))
    const path = join(folder, 'shop.db')
    await load(path)
    return { name: 'sqlite file', config: config('sqlite', { path }) }
  })

export const duckdbDemoSource = () =>
  once('duckdb', async () => {
    folder ??= mkdtempSync(join(tmpdir(), 'demo-sources-'))
    const path = join(folder, 'shop.duckdb')
    await load(path)
    return { name: 'duckdb', config: config('duckdb', { path }) }
  })

/** On a Postgres server of its own: the outage test stops it, and the run's server holds the test apps' state. */
export const postgresDemoSource = () =>
  once('postgres', async () => {
    const server = await sourcePostgresServer()
    await load(server.url)
    return { name: 'postgres', config: config('postgres', { url: server.url }), server }
  })

export const mariadbDemoSource = () =>
  once('mariadb', async () => {
    const server = await mariadbServer()
    await load(server.url)
    return { name: 'mariadb', config: config('mysql', { url: server.url }), server }
  })

/** Every demo source this machine can run (servers whose binaries are missing are skipped, loudly). */
export async function demoSources(): Promise<DemoSource[]> {
  const sources: Array<Promise<DemoSource>> = [sqliteDemoSource(), duckdbDemoSource()]
  if (postgresAvailable) sources.push(postgresDemoSource())
  else warnSkipped('Postgres data source tests')
  if (mariadbAvailable) sources.push(mariadbDemoSource())
  else warnSkipped('MariaDB data source tests')
  return Promise.all(sources)
}

/** Removes the SQLite demo copy (the servers go with `stopDatabaseServers`). */
export function removeDemoSourceFiles(): void {
  if (folder) rmSync(folder, { recursive: true, force: true })
  folder = undefined
}
