import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { join } from 'node:path'
import { lineReader, messageId, type Line } from '../../helpers/chat'
import { connectChatSocket, turnEnded } from '../../helpers/chat-socket'
import { testStorage } from '../../helpers/bootstrapped-postgres'
import { startCluster, type Cluster } from '../../helpers/cluster'
import { warnSkipped } from '../../helpers/database-servers'
import { nginxAvailable, startLoadBalancer, type LoadBalancer } from '../../helpers/nginx'
import { redisAvailable } from '../../helpers/redis-server'

const key = 'ak_load_balancer_0123456789'
// 40 deltas 100 ms apart: a turn streams for about 4 s.
const bootstrap = `accounts:
  - name: acme
    plan: enterprise
    apiKeys: [{ name: admin, key: ${key}, admin: true }]
    deployments:
      - id: 1
        name: Behind nginx
        model: demo
        agents:
          - { id: 1, name: Paced, kind: scripted, config: { lines: 40, lineBytes: 8, delayMs: 100 } }
`
const available = redisAvailable && nginxAvailable
if (!available) warnSkipped('the load balancer test (redis-server and nginx)')

let cluster: Cluster | undefined
let balancer: LoadBalancer | undefined

beforeAll(async () => {
  if (!available) return
  // What is under test is nginx's configuration, not where the nodes keep their state: one SQLite file for both (as
  // WORKERS would), so it runs wherever Redis does; the nodes on Postgres are the two-node test's, and this one's
  // with TEST_STORAGE=postgres.
  cluster = await startCluster({
    nodes: 2,
    bootstrap,
    storage: testStorage === 'postgres' ? 'postgres' : 'sqlite-file',
  })
  const [a, b] = cluster.nodes
  balancer = await startLoadBalancer(join(import.meta.dir, '..', '..', '..', 'deploy', 'scale-out', 'nginx.conf'), {
    'node-1': `127.0.0.1:${a.port}`,
    'node-2': `127.0.0.1:${b.port}`,
  })
}, 120_000)

afterAll(async () => {
  await balancer?.stop()
  await cluster?.stop()
}, 60_000)

const headers = { authorization: `Api-Key ${key}`, 'content-type': 'application/json' }
const post = (body: object) =>
  fetch(`${balancer!.url}/api/v1/public/acme/agents/1/chat/stream-chat-state`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ sessionSettings: { externalId: 'balanced' }, ...body }),
  })

describe.skipIf(!available)('the scale-out profile’s nginx in front of two nodes', () => {
  it('sends requests to both nodes in turn', async () => {
    const ids = Array.from({ length: 10 }, () => crypto.randomUUID())
    for (const id of ids)
      expect((await fetch(`${balancer!.url}/readyz`, { headers: { 'x-request-id': id } })).status).toBe(200)
    // Every request is logged by the node that served it, under the request id it was sent with (once the response
    // is out, so the last lines may still be on their way).
    const servedBy = () =>
      cluster!.nodes.map((node) => ids.filter((id) => node.output().includes(`"requestId":"${id}"`)))
    for (let waited = 0; servedBy().flat().length < ids.length && waited < 5000; waited += 20) await Bun.sleep(20)
    const served = servedBy()
    expect(served.flat().sort()).toEqual([...ids].sort())
    // Round robin, no node pinned: both take their share.
    for (const share of served) expect(share.length).toBeGreaterThan(0)
  })

  it('streams a turn line by line and replays it to a rejoin, wherever each request lands', async () => {
    const id = messageId(1)
    const original = lineReader(await post({ input: 'Through the balancer', messageId: id }))
    const head: Line[] = []
    while (!head.some((line) => line.isDelta)) head.push((await original.next())!)
    // The first delta came through while the run still streams: nginx does not hold the response back.
    const joined = await lineReader(await post({ messageId: id })).rest()
    expect(joined[0].state).toMatchObject({ isStreaming: true })
    const sent = [...head, ...(await original.rest())]
    expect(sent.at(-1)!.id).toBe('__state__')
    expect(joined.slice(1)).toEqual(sent.slice(1))
  }, 30_000)

  it('passes WebSocket upgrades through', async () => {
    const socket = await connectChatSocket(
      `${balancer!.url.replace('http', 'ws')}/api/v1/public/acme/agents/1/chat/ws`,
      headers,
    )
    try {
      socket.send({ input: 'Over a socket', messageId: messageId(2), sessionSettings: { externalId: 'balanced' } })
      await socket.waitFor(turnEnded)
      expect(socket.lines[0].id).toBe('__cutoff__')
      expect(socket.lines.at(-1)!.id).toBe('__state__')
      expect(socket.lines.filter((line) => line.isDelta && line.content).length).toBe(40)
    } finally {
      socket.close()
    }
  }, 30_000)
})
