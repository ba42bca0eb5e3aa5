import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { startCluster, type Cluster } from '../../helpers/cluster'
import { postgresAvailable, warnSkipped } from '../../helpers/database-servers'
import { redisAvailable } from '../../helpers/redis-server'

const backend = 'ak_bootstrap_backend_0123456789'
const reporting = 'ak_bootstrap_reporting_0123456789'
/** Two admin keys; the changed file revokes one and makes the other a member key. */
const bootstrap = (change: boolean) => `accounts:
  - name: acme
    plan: enterprise
    apiKeys:
      - { name: backend, key: ${backend}, admin: true${change ? ', revoked: true' : ''} }
      - { name: reporting, key: ${reporting}, admin: ${!change} }
    deployments:
      - id: 1
        name: Bootstrap change
        model: demo
        agents: [{ id: 1, name: Analyst }]
`
const available = postgresAvailable && redisAvailable
if (!available) warnSkipped('the bootstrap change between nodes (Postgres and redis-server)')

let cluster: Cluster | undefined
beforeAll(async () => {
  if (available) cluster = await startCluster({ nodes: 1, bootstrap: bootstrap(false) })
}, 120_000)
afterAll(async () => {
  await cluster?.stop()
}, 60_000)

/** What generate-session, an admin operation, answers the key on `url`. */
const mint = async (url: string, key: string) => {
  const response = await fetch(`${url}/api/v1/embed/generate-session`, {
    method: 'POST',
    headers: { authorization: `Api-Key ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ deploymentId: 1, externalId: 'someone' }),
  })
  return { status: response.status, code: ((await response.json()) as { code?: string }).code }
}

describe.skipIf(!available)('a node starting with a changed bootstrap file', () => {
  it('revokes and demotes keys on the nodes already running, at once', async () => {
    const running = cluster!.nodes[0]
    expect(await mint(running.url, backend)).toEqual({ status: 200, code: undefined })
    expect(await mint(running.url, reporting)).toEqual({ status: 200, code: undefined })
    // A rolling deploy: the next node starts with the new file while this one still serves.
    writeFileSync(cluster!.env.BOOTSTRAP_FILE, bootstrap(true))
    const started = await cluster!.addNode()
    for (const node of [started, running]) {
      expect(await mint(node.url, backend)).toEqual({ status: 401, code: 'INVALID_API_KEY' })
      expect(await mint(node.url, reporting)).toEqual({ status: 403, code: 'ADMIN_REQUIRED' })
    }
  }, 60_000)
})
