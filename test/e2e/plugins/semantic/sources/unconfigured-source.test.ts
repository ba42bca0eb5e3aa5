import { afterAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { keys, testBootstrap } from '../../../../helpers/fixtures'
import { startServerProcess, type ServerProcess } from '../../../../../harness/server-process'

const dir = mkdtempSync(join(tmpdir(), 'unconfigured-source-'))
let server: ServerProcess | undefined
afterAll(async () => {
  await server?.stop()
  rmSync(dir, { recursive: true, force: true })
})

describe('a data source whose URL the driver refuses', () => {
  it('never stops the start: its deployment answers 503, named in the log and in /readyz, and the others answer', async () => {
    const bootstrap = testBootstrap()
    bootstrap.accounts[0].deployments![0].dataSource = {
      type: 'postgres',
      url: 'postgres://shop:hunter2@127.0.0.1:1/shop?sslmode=bogus',
    } as never
    const file = join(dir, 'bootstrap.json')
    writeFileSync(file, JSON.stringify(bootstrap))
    server = await startServerProcess({ env: { DB_PATH: join(dir, 'service.db'), BOOTSTRAP_FILE: file } })
    const sql = (deploymentId: number) =>
      fetch(`${server!.url}/api/v1/deployments/${deploymentId}/sql`, {
        method: 'POST',
        headers: { authorization: `Api-Key ${keys.admin}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'SELECT MEASURE(products.count) FROM products' }),
      })
    const refused = await sql(1)
    expect(refused.status).toBe(503)
    expect(await refused.json()).toEqual({
      error: expect.stringContaining('deployment 1'),
      code: 'DATA_SOURCE_UNAVAILABLE',
    })
    const other = await sql(2)
    expect(other.status).toBe(200)
    expect((await other.json()).data).toEqual([['120']])

    const ready = await fetch(`${server.url}/readyz`)
    expect(ready.status).toBe(200)
    expect((await ready.json()).checks['dataSource:1']).toMatchObject({
      status: 'failing',
      error: 'invalid configuration',
      deploymentId: 1,
    })
    const logged = server
      .output()
      .split('\n')
      .filter((line) => line.includes('data source cannot be configured'))
      .map((line) => JSON.parse(line))
    expect(logged).toEqual([expect.objectContaining({ deploymentId: 1, error: expect.stringContaining('sslmode') })])
    expect(server.output()).not.toContain('hunter2')
  }, 60_000)
})
