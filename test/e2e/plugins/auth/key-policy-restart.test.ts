import { afterAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { TEST_DEMO_DATA } from '../../../helpers/demo-data'
import { serverDatabase } from '../../../helpers/server-database'
import { startServerProcess, type ServerProcess } from '../../../../harness/server-process'

const dir = mkdtempSync(join(tmpdir(), 'key-policy-restart-'))
const servers: ServerProcess[] = []
// Restarted on the same database: its SQLite file, or with TEST_STORAGE=postgres its Postgres database.
const database = await serverDatabase(dir)
afterAll(async () => {
  for (const server of servers) await server.stop('SIGKILL')
  await database.drop()
  rmSync(dir, { recursive: true, force: true })
})

const root = 'ak_restart_root_0123456789'
const ops = 'ak_restart_ops_0123456789'
const scoped = 'ak_restart_scoped_0123456789'
writeFileSync(
  join(dir, 'bootstrap.yaml'),
  `accounts:
  - name: acme
    plan: enterprise
    apiKeys:
      - { name: root, key: ${root}, admin: true }
      - { name: ops, key: ${ops}, admin: true }
      - { name: scoped, key: ${scoped}, admin: true, deployments: [2] }
    deployments:
      - { id: 1, name: One, agents: [{ id: 1, name: A }] }
      - { id: 2, name: Two, agents: [{ id: 2, name: B }] }
`,
)
const env = {
  ...database.env,
  BOOTSTRAP_FILE: join(dir, 'bootstrap.yaml'),
  DEMO_DATA_PATH: TEST_DEMO_DATA,
}

async function call(server: ServerProcess, method: string, path: string, key: string, body?: unknown) {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Api-Key ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return { status: response.status, body: (await response.json()) as Record<string, any> }
}

describe('key policies across a restart', () => {
  it('refuses a scoped key the takeover over HTTP and restores the policies of bootstrap keys at the next start', async () => {
    const first = await startServerProcess({ env })
    servers.push(first)
    // Key ids of a fresh database follow the file's order.
    const [rootId, opsId] = [1, 2]
    expect((await call(first, 'GET', `/api/v1/api-keys/${rootId}/policy`, root)).body).toMatchObject({
      keyName: 'root',
    })

    const takeover = await call(first, 'PUT', `/api/v1/api-keys/${rootId}/policy`, scoped, { role: 'viewer' })
    expect(takeover).toMatchObject({ status: 403, body: { code: 'KEY_OUT_OF_SCOPE' } })

    // A change the file does not say: the ops key reduced to a viewer, which locks it out of settings.
    expect((await call(first, 'PUT', `/api/v1/api-keys/${opsId}/policy`, root, { role: 'viewer' })).status).toBe(200)
    expect((await call(first, 'PATCH', '/api/v1/app-config', ops, { applyThemeGlobally: true })).status).toBe(403)
    expect(await first.stop('SIGTERM')).toBe(0)

    const second = await startServerProcess({ env })
    servers.push(second)
    const restored = await call(second, 'GET', `/api/v1/api-keys/${opsId}/policy`, root)
    expect(restored).toMatchObject({ status: 200, body: { keyName: 'ops', role: 'admin', isDefault: true } })
    expect((await call(second, 'PATCH', '/api/v1/app-config', ops, { applyThemeGlobally: true })).status).toBe(200)
    await second.stop('SIGTERM')
  }, 120_000)
})
