import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { SQL } from 'bun'
import { Database } from 'bun:sqlite'
import { lineReader, messageId, rawLines, type Line } from '../../helpers/chat'
import { startCluster, type Cluster } from '../../helpers/cluster'
import { postgresAvailable, warnSkipped } from '../../helpers/database-servers'
import { redisAvailable } from '../../helpers/redis-server'
import type { ServerProcess } from '../../../harness/server-process'

const key = 'ak_fencing_0123456789ab'
// Streams for a minute, a short delta every 100 ms: the run is still going when its node is paused.
const bootstrap = `accounts:
  - name: acme
    plan: enterprise
    apiKeys: [{ name: admin, key: ${key}, admin: true }]
    deployments:
      - id: 1
        name: Fencing
        model: demo
        agents:
          - { id: 1, name: Endless, kind: scripted, config: { lines: 600, lineBytes: 5, delayMs: 100 } }
`
const NODE_LOST = 'The server running this answer stopped; the answer was interrupted'
const LEASE_LOST = 'The server lost its hold on this answer; it was interrupted'

if (!redisAvailable) warnSkipped('the fencing tests (redis-server)')
else if (!postgresAvailable) warnSkipped('the fencing test on Postgres')

const headers = { authorization: `Api-Key ${key}`, 'content-type': 'application/json' }
const chat = (node: ServerProcess, body: object) =>
  fetch(`${node.url}/api/v1/public/acme/agents/1/chat/stream-chat-state`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ ...body, sessionSettings: { externalId: 'sleeper' } }),
  })

const isDelta = (line: string) => line.includes('"isDelta":true')

/** The thread as stored, read through `node`. */
async function storedThread(node: ServerProcess, chatId: string): Promise<Line[]> {
  const lines = await lineReader(await chat(node, { chatId })).rest()
  expect(lines.map((line) => line.id)).toEqual(['__cutoff__', '__state__'])
  return lines[1].state!.messages as Line[]
}

/** The run records of a thread, read straight from the cluster's database. */
async function runsOf(cluster: Cluster, chatId: string): Promise<Array<Record<string, unknown>>> {
  const query = 'SELECT status, error, ended_at AS "endedAt" FROM chat_runs WHERE thread_id = $1'
  if (cluster.databaseUrl.startsWith('postgres')) {
    const database = new SQL(cluster.databaseUrl, { max: 1 })
    try {
      return await database.unsafe(query, [chatId])
    } finally {
      await database.close()
    }
  }
  const database = new Database(cluster.databaseUrl, { readonly: true })
  try {
    return database.query<Record<string, unknown>, [string]>(query.replace('$1', '?')).all(chatId)
  } finally {
    database.close()
  }
}

for (const storage of ['postgres', 'sqlite-file'] as const)
  describe.skipIf(!redisAvailable || (storage === 'postgres' && !postgresAvailable))(
    `two nodes on ${storage === 'postgres' ? 'one Postgres' : 'one SQLite file'} and one Redis, one paused past its lease (fencing)`,
    () => {
      let cluster: Cluster | undefined
      let a: ServerProcess
      let b: ServerProcess

      beforeAll(async () => {
        cluster = await startCluster({ nodes: 2, bootstrap, storage })
        ;[a, b] = cluster.nodes
      }, 120_000)

      afterAll(async () => {
        // A node left paused by a failed test must be woken to be killed.
        if (a?.process.exitCode === null) a.process.kill('SIGCONT')
        await cluster?.stop()
      }, 60_000)

      it('writes nothing when it wakes: the thread stays as the node that took it over left it', async () => {
        const id = messageId(1)
        const owner = rawLines(await chat(a, { input: 'Keep going', messageId: id }))
        const head = await owner.until(3, isDelta)
        const chatId = (JSON.parse(head[0]) as Line).state!.chatId!
        // A joiner on node B follows the run from node A's log in Redis.
        const joiner = rawLines(await chat(b, { chatId, messageId: id }))
        const joinedHead = await joiner.until(5, isDelta)

        a.process.kill('SIGSTOP')
        const pausedAt = Date.now()
        // Node B takes the lease over once it runs out, marks the run interrupted and ends its log.
        const joined = [...joinedHead, ...(await joiner.rest())]
        expect(JSON.parse(joined.at(-1)!)).toEqual({ error: NODE_LOST })
        expect(Date.now() - pausedAt).toBeLessThan(30_000)
        const leftByB = await storedThread(b, chatId)
        expect(leftByB.map((message) => message.role)).toEqual(['user', 'assistant'])
        expect(leftByB[1]).toMatchObject({ interrupted: true, isInProcess: false })
        const runOf = () => runsOf(cluster!, chatId)
        {
          const runLeftByB = await runOf()
          expect(runLeftByB).toHaveLength(1)
          expect(runLeftByB[0]).toMatchObject({ status: 'interrupted', error: NODE_LOST })

          a.process.kill('SIGCONT')
          // Node A's client gets one error line and the end of its stream; before it, nothing the joiner did not get.
          const owned = [...head, ...(await owner.rest())]
          expect(JSON.parse(owned.at(-1)!)).toEqual({ error: LEASE_LOST })
          expect(owned.slice(1, -1)).toEqual(joined.slice(1, -1))

          // Time for node A's timers, renewals and pending saves to have run: the thread and the run are as B left them.
          await Bun.sleep(3_000)
          expect(await storedThread(b, chatId)).toEqual(leftByB)
          expect(await storedThread(a, chatId)).toEqual(leftByB)
          expect(await runOf()).toEqual(runLeftByB)
          // What a client received is stored: the answer is the deltas both clients got.
          const received = owned
            .filter(isDelta)
            .map((line) => (JSON.parse(line) as Line).content)
            .join('')
          expect(leftByB[1].content).toBe(received)
          expect(a.output()).toContain('another node took its thread over')
        }

        // Node A serves the thread again: its next message runs there.
        const next = rawLines(await chat(a, { chatId, input: 'Back again', messageId: messageId(2) }))
        const started = await next.until(1, isDelta)
        expect(started.some((line) => line.includes('"content":"Back again"'))).toBe(true)
        const abort = await fetch(`${a.url}/api/v1/public/acme/agents/1/chat/abort`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ chatId, sessionSettings: { externalId: 'sleeper' } }),
        })
        expect(abort.status).toBe(204)
        await next.rest()
      }, 120_000)
    },
  )
