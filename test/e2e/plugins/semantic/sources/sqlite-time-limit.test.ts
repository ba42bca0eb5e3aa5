import { afterAll, describe, expect, it } from 'bun:test'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { QueryExecutionError } from '../../../../../plugins/semantic/sources/data-source'
import { QueryPool } from '../../../../../plugins/semantic/sources/query-pool'
import { createSqliteSource } from '../../../../../plugins/semantic/sources/sqlite-source'
import { sqliteDemoSource } from '../../../../helpers/demo-sources'

// A statement that runs for minutes inside one step of SQLite: no row comes back until it ends.
const ENDLESS =
  'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000000) SELECT SUM(x) FROM c'

/** Processes whose parent is `parent` and whose command line names the SQLite query worker. */
function queryProcesses(parent = process.pid): number[] {
  const pids: number[] = []
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8')
      const parentPid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      const command = readFileSync(`/proc/${name}/cmdline`, 'utf8')
      if (parentPid === parent && /query-worker/.test(command)) pids.push(Number(name))
    } catch {
      // Gone while we looked.
    }
  }
  return pids
}

/** Whether a process still runs (a zombie waiting to be reaped has stopped). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z'
  } catch {
    return false
  }
}

/** Resolves once the process has stopped; a process that never stops fails the test by its time limit. */
async function stopped(pid: number): Promise<void> {
  while (running(pid)) await Bun.sleep(20)
}

// The statement must really stop in SQLite, not only get its 504 while a thread or process keeps a core busy
// until it ends. Checked through /proc, which only Linux has.
describe.skipIf(process.platform !== 'linux' || !existsSync('/proc/self/stat'))('a SQLite query past its limit', () => {
  // A pool of one process per test, so the process a test starts is the one that runs its queries.
  const pools: QueryPool[] = []
  afterAll(() => pools.forEach((pool) => pool.close()))
  const source = async (queryTimeoutMs = 300) => {
    const pool = new QueryPool({ size: 1, timeoutMs: queryTimeoutMs })
    pools.push(pool)
    return createSqliteSource({ path: (await sqliteDemoSource()).config.path as string, pool, queryTimeoutMs })
  }

  it('is stopped with the process running it: 504 QUERY_TIMEOUT, that process gone, the next query answered', async () => {
    const sqlite = await source()
    const before = queryProcesses()
    expect((await sqlite.query('SELECT COUNT(*) FROM regions', [], 1)).rows.map((row) => Number(row[0]))).toEqual([6])
    const worker = queryProcesses().filter((pid) => !before.includes(pid))
    expect(worker).toHaveLength(1)

    const outcome = await sqlite.query(ENDLESS, [], 1).catch((error: Error) => error)
    expect(outcome).toMatchObject({ status: 504, code: 'QUERY_TIMEOUT' })
    await stopped(worker[0])

    expect((await sqlite.query('SELECT COUNT(*) FROM regions', [], 1)).rows.map((row) => Number(row[0]))).toEqual([6])
    const next = queryProcesses().filter((pid) => !before.includes(pid))
    expect(next).toHaveLength(1)
    expect(next[0]).not.toBe(worker[0])
  }, 20_000)

  it('fails the query of a process that dies under it, and answers the next one', async () => {
    const sqlite = await source(10_000)
    const before = queryProcesses()
    await sqlite.query('SELECT 1', [], 1)
    const [worker] = queryProcesses().filter((pid) => !before.includes(pid))
    const outcome = sqlite.query(ENDLESS, [], 1).catch((error: Error) => error)
    process.kill(worker, 'SIGKILL')
    expect(await outcome).toBeInstanceOf(QueryExecutionError)
    expect((await sqlite.query('SELECT COUNT(*) FROM regions', [], 1)).rows.map((row) => Number(row[0]))).toEqual([6])
  }, 20_000)

  it('stops with the server: a query process does not outlive a server killed in the middle of a statement', async () => {
    const { config } = await sqliteDemoSource()
    const script = `
      const { QueryPool } = await import(${JSON.stringify(new URL('../../../../../plugins/semantic/sources/query-pool.ts', import.meta.url).pathname)})
      const pool = new QueryPool({ size: 1, timeoutMs: 60_000 })
      await pool.run({ path: ${JSON.stringify(config.path)}, sql: 'SELECT 1', params: [], maxRows: 1 })
      const endless = pool.run({ path: ${JSON.stringify(config.path)}, sql: ${JSON.stringify(ENDLESS)}, params: [], maxRows: 1 })
      console.log('ready')
      await endless
    `
    const server = Bun.spawn([process.execPath, '--eval', script], { stdout: 'pipe', stderr: 'inherit' })
    const reader = server.stdout.getReader()
    let output = ''
    while (!output.includes('ready')) {
      const { value, done } = await reader.read()
      if (done) throw new Error(`the server script ended early: ${output}`)
      output += new TextDecoder().decode(value)
    }
    const [worker] = queryProcesses(server.pid)
    expect(worker).toBeNumber()
    server.kill('SIGKILL')
    await server.exited
    await stopped(worker)
  }, 20_000)
})
