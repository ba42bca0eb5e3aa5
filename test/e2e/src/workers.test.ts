import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { lineReader, messageId } from '../../helpers/chat'
import { TEST_DEMO_DATA } from '../../helpers/demo-data'
import { redisAvailable, startRedisServer, type RedisServer } from '../../helpers/redis-server'
import { serverDatabase, type ServerDatabase } from '../../helpers/server-database'
import { startServerProcess, type ServerProcess } from '../../../harness/server-process'
import { warnSkipped } from '../../helpers/database-servers'

if (!redisAvailable) warnSkipped('the WORKERS tests (redis-server)')

const dir = mkdtempSync(join(tmpdir(), 'workers-'))
let redis: RedisServer | undefined
const servers: ServerProcess[] = []
/** Each server's database: a file in `dir`, or with TEST_STORAGE=postgres one the workers share on Postgres. */
const databases: ServerDatabase[] = []
/** Every worker process the tests saw, restarted ones included. */
const workerPids = new Set<number>()
beforeAll(async () => {
  if (redisAvailable) redis = await startRedisServer()
})
afterAll(async () => {
  // SIGTERM: the supervisor stops its workers and waits for them. Workers it could not stop (or whose supervisor a
  // test killed) are killed here: one still shutting down could write its database again once the folder is gone.
  await Promise.all(
    servers.map(async (server) => {
      const killing = setTimeout(() => server.process.kill('SIGKILL'), 10_000)
      await server.stop('SIGTERM')
      clearTimeout(killing)
    }),
  )
  try {
    for (const pid of workerPids) if (isAlive(pid)) process.kill(pid, 'SIGKILL')
    await waitFor(() => ![...workerPids].some(isAlive), 'the workers exiting')
  } finally {
    for (const database of databases) await database.drop()
    await redis?.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}, 60_000)

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

const key = 'ak_workers_test_0123456789'
// 60 deltas 100 ms apart: a run streams for about 6 s, time enough for every rejoin to arrive on a loaded machine.
writeFileSync(
  join(dir, 'bootstrap.yaml'),
  `accounts:
  - name: acme
    plan: enterprise
    apiKeys: [{ name: admin, key: ${key}, admin: true }]
    deployments:
      - id: 1
        name: Workers
        agents: [{ id: 1, name: Paced, kind: scripted, config: { lines: 60, lineBytes: 8, delayMs: 100 } }]
`,
)

async function databaseFor(name: string): Promise<Record<string, string>> {
  const database = await serverDatabase(dir, name)
  databases.push(database)
  return database.env
}

async function startWorkers(name: string): Promise<{ server: ServerProcess; pids: number[] }> {
  const server = await startServerProcess({
    env: {
      BOOTSTRAP_FILE: join(dir, 'bootstrap.yaml'),
      WORKERS: '2',
      REDIS_URL: redis!.url,
      ...(await databaseFor(name)),
      DEMO_DATA_PATH: TEST_DEMO_DATA,
      LOG_FORMAT: 'json',
    },
  })
  servers.push(server)
  const started = /"msg":"workers listening".*"pids":\[(\d+),(\d+)\]/.exec(server.output())!
  const pids = [Number(started[1]), Number(started[2])]
  for (const pid of pids) workerPids.add(pid)
  return { server, pids }
}

/** The workers that logged a request to `path`, from the shared output. */
const workersServing = (server: ServerProcess, path: string) =>
  new Set(
    server
      .output()
      .split('\n')
      .filter((line) => line.includes('"msg":"request"') && line.includes(`"path":"${path}"`))
      .map((line) => (JSON.parse(line) as { worker: number }).worker),
  )

async function waitFor(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs} ms`)
    await Bun.sleep(50)
  }
}

describe.skipIf(!redisAvailable)('WORKERS', () => {
  it('serves one port from two worker processes, each connection taken by either', async () => {
    const { server, pids } = await startWorkers('spread')
    expect(pids.every(isAlive)).toBe(true)
    expect(pids).not.toContain(server.process.pid)
    // A new connection each time: the kernel spreads connections over the workers listening on the port.
    for (let index = 0; index < 40; index++) {
      const response = await fetch(`${server.url}/healthz`, { headers: { connection: 'close' } })
      expect(response.status).toBe(200)
    }
    await waitFor(() => workersServing(server, '/healthz').size === 2, 'requests reaching both workers')
    expect([...workersServing(server, '/healthz')].sort()).toEqual([1, 2])
  }, 60_000)

  it('answers /metrics for every worker, whichever one a scrape reaches', async () => {
    const { server } = await startWorkers('metrics')
    // A new connection each time: requests and scrapes reach both workers, and each scrape counts the requests of both.
    const scrape = async () => {
      const response = await fetch(`${server.url}/metrics`, { headers: { connection: 'close' } })
      return response.text()
    }
    const healthzCount = (text: string) =>
      Number(/^acs_http_requests_total\{[^}]*route="\/healthz",status="200"\} (\d+)$/m.exec(text)?.[1] ?? 0)
    const before = healthzCount(await scrape())
    for (let index = 0; index < 40; index++) {
      const response = await fetch(`${server.url}/healthz`, { headers: { connection: 'close' } })
      expect(response.status).toBe(200)
    }
    await waitFor(() => workersServing(server, '/healthz').size === 2, 'requests reaching both workers')
    for (let index = 0; index < 8; index++) {
      const text = await scrape()
      expect(healthzCount(text)).toBe(before + 40)
      expect(text).toMatch(/^acs_build_info\{[^}]*\} 1$/m)
      expect(text).toMatch(/^process_cpu_seconds_total \d/m)
    }
  }, 60_000)

  it('shares runs between the workers: any connection rejoins a run, and its thread is busy on every worker', async () => {
    const { server } = await startWorkers('shared')
    const chat = (body: object, requestId: string) =>
      fetch(`${server.url}/api/v1/public/acme/agents/1/chat/stream-chat-state`, {
        method: 'POST',
        headers: {
          authorization: `Api-Key ${key}`,
          'content-type': 'application/json',
          connection: 'close',
          'x-request-id': requestId,
        },
        body: JSON.stringify({ sessionSettings: { externalId: 'shared' }, ...body }),
      })
    const id = messageId(1)
    const original = lineReader(await chat({ input: 'Share this', messageId: id }, 'original'))
    const head = [(await original.next())!]
    const chatId = head[0].state!.chatId!
    // New connections, each to either worker, while the run streams (about 6 s): every rejoin gets the whole run,
    // and every new message is refused (each is answered at once, long before the run ends).
    const rejoining = Promise.all(
      Array.from({ length: 20 }, async (_, index) =>
        lineReader(await chat({ chatId, messageId: id }, `rejoin-${index}`)).rest(),
      ),
    )
    const busy = await Promise.all(
      Array.from({ length: 20 }, async (_, index) =>
        lineReader(await chat({ chatId, input: 'And this', messageId: messageId(2) }, `busy-${index}`)).rest(),
      ),
    )
    const rejoins = await rejoining
    const sent = [...head, ...(await original.rest())]
    expect(sent.at(-1)!.id).toBe('__state__')
    for (const lines of rejoins) {
      expect(lines[0].state).toEqual({ chatId, isStreaming: true })
      expect(lines.slice(1)).toEqual(sent.slice(1))
    }
    for (const lines of busy) expect(lines).toEqual([{ error: 'Streaming for thread is in progress' }])
    // Both workers answered: neither the rejoins nor the refused messages all landed on the worker running the turn.
    const workerOf = (requestId: string) =>
      (
        JSON.parse(
          server
            .output()
            .split('\n')
            .find((line) => line.includes(`"requestId":"${requestId}"`))!,
        ) as { worker: number }
      ).worker
    await waitFor(
      () => ['rejoin-19', 'busy-19'].every((id) => server.output().includes(`"requestId":"${id}"`)),
      'the access log',
    )
    const other = workerOf('original') === 1 ? 2 : 1
    expect(Array.from({ length: 20 }, (_, index) => workerOf(`rejoin-${index}`))).toContain(other)
    expect(Array.from({ length: 20 }, (_, index) => workerOf(`busy-${index}`))).toContain(other)
  }, 60_000)

  it('starts a worker again when it dies, the port answering meanwhile', async () => {
    const { server, pids } = await startWorkers('restart')
    process.kill(pids[0], 'SIGKILL')
    await waitFor(() => !isAlive(pids[0]), 'the worker exiting')
    // The other worker takes every connection until the first is back.
    expect((await fetch(`${server.url}/readyz`, { headers: { connection: 'close' } })).status).toBe(200)
    await waitFor(() => server.output().includes('"msg":"worker started again"'), 'the restart')
    expect(server.output()).toContain('"msg":"worker died; starting it again","worker":1')
    const restarted = Number(/"msg":"worker started again","worker":1,"pid":(\d+)/.exec(server.output())![1])
    workerPids.add(restarted)
    expect(isAlive(restarted)).toBe(true)
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200)
  }, 60_000)

  it('stops every worker on SIGTERM and exits 0', async () => {
    const { server, pids } = await startWorkers('stop')
    expect(await server.stop('SIGTERM')).toBe(0)
    servers.splice(servers.indexOf(server), 1)
    await waitFor(() => !pids.some(isAlive), 'the workers exiting')
    expect(server.output().match(/"msg":"stopped","worker"/g)).toHaveLength(2)
  }, 60_000)

  it('leaves no worker behind when the supervisor is killed', async () => {
    const { server, pids } = await startWorkers('orphans')
    await server.stop('SIGKILL')
    servers.splice(servers.indexOf(server), 1)
    await waitFor(() => !pids.some(isAlive), 'the orphaned workers stopping')
  }, 60_000)

  it('refuses to start when another process holds the port', async () => {
    const holder = Bun.serve({ hostname: '127.0.0.1', port: 0, reusePort: false, fetch: () => new Response('') })
    try {
      const error = await startServerProcess({
        env: {
          WORKERS: '2',
          REDIS_URL: redis!.url,
          PORT: String(holder.port),
          ...(await databaseFor('taken')),
          DEMO_DATA_PATH: TEST_DEMO_DATA,
        },
      }).then(
        (server) => {
          servers.push(server)
          return undefined
        },
        (failure: Error) => failure,
      )
      expect(error?.message).toContain(`Port ${holder.port} on 127.0.0.1 is already in use`)
    } finally {
      holder.stop(true)
    }
  }, 60_000)
})
