import { afterEach, beforeEach, describe, expect, it } from 'bun:test'
import type { Storage } from '../../../../../db/client'
import { loadConfig, type ChatLimits } from '../../../../../lib/config'
import { createLogger } from '../../../../../lib/logger'
import { randomToken } from '../../../../../lib/secrets'
import { NODE_LOST_MESSAGE } from '../../../../../plugins/chat/registry/interrupted-runs'
import {
  CLAIM,
  FIND_BY_MESSAGE,
  RELEASE,
  RELEASE_UNREAD,
} from '../../../../../plugins/chat/registry/redis/redis-scripts'
import { createScriptedAgent, type Script } from '../../../../../plugins/chat/run/scripted-agent'
import { apiKey, createTestApp, testAppStorage, type TestApp, redisNode } from '../../../../helpers/app'
import { chatBase, lineReader, messageId, type Line } from '../../../../helpers/chat'
import { storedRuns } from '../../../../helpers/chat-rows'
import { warnSkipped } from '../../../../helpers/database-servers'
import { keys } from '../../../../helpers/fixtures'
import { connectChatSocket } from '../../../../helpers/chat-socket'
import { embedSession } from '../../../../helpers/embed-sessions'
import { gate } from '../../../../helpers/gates'
import { listen } from '../../../../helpers/transports'
import { redisAvailable, redisServer } from '../../../../helpers/redis-server'

const admin = apiKey(keys.admin)
const alice = { externalId: 'alice' }

/**
 * Two nodes in one process: two apps over one database and one Redis, each with its own Redis registry (its own
 * connections and node id), as two service processes behind a load balancer would be.
 */
let storage: Storage
let nodeA: TestApp
let nodeB: TestApp
let script: Script
let redisUrl: string
let prefix: string

async function startNodes(leaseMs = 10_000, chatLimits: Partial<ChatLimits> = {}) {
  const url = await redisServer()
  redisUrl = url
  storage = testAppStorage()
  prefix = `test:${randomToken(6)}:`
  const logger = createLogger('silent')
  const node = () =>
    createTestApp({
      config: { chatLimits: { ...loadConfig({}).chatLimits, ...chatLimits } },
      storage,
      logger,
      agents: () => createScriptedAgent(() => script),
      ...redisNode({ url, storage, logger, prefix, leaseMs }),
    })
  nodeA = node()
  nodeB = node()
}

type Commands = { send(command: string, args: string[]): Promise<unknown> }

const commandsOf = (node: TestApp) => (node.deps.registry as unknown as { commands: Commands }).commands
/** The connection `node`'s cluster bus publishes on. */
const publisherOf = (node: TestApp) => (node.deps.bus as unknown as { publisher: Commands }).publisher

/**
 * Holds back node A's releases of finished runs by `delayMs` (or until `until` settles), as a slow link to Redis
 * would: its clients get a run's last line before the thread is free in Redis.
 */
function delayReleasesOnA(delayMs: number, until?: Promise<unknown>): Promise<unknown>[] {
  const commands = commandsOf(nodeA)
  const send = commands.send.bind(commands)
  const held: Promise<unknown>[] = []
  commands.send = (command, args) => {
    if (command !== 'EVAL' || (args[0] !== RELEASE && args[0] !== RELEASE_UNREAD)) return send(command, args)
    const later = (until ?? Bun.sleep(delayMs)).then(() => send(command, args))
    held.push(later)
    return later
  }
  return held
}

/**
 * Makes `node`'s link to Redis (its registry's, or `commands`) refuse the commands `refused` picks, as a Redis that
 * went away would; returns the undo.
 */
function refuseCommands(
  node: TestApp,
  refused: (command: string, args: string[]) => boolean,
  commands = commandsOf(node),
): () => void {
  const send = commands.send.bind(commands)
  commands.send = (command, args) =>
    refused(command, args) ? Promise.reject(new Error('Redis went away')) : send(command, args)
  return () => {
    commands.send = send
  }
}

/** Drops `node`'s subscription to the cluster bus, as a lost connection would; its next upkeep makes it again. */
async function loseSubscription(node: TestApp) {
  const bus = node.deps.bus as unknown as {
    listener: { client: { unsubscribe(): Promise<void> } }
    subscribed: unknown
  }
  await bus.listener.client.unsubscribe()
  bus.subscribed = undefined
}

/** A turn on node A that stops after its first chunk until `hold` opens. */
async function slowTurnOnA() {
  const hold = gate()
  script = { steps: [{ kind: 'text', chunks: ['Partial ', 'answer'], hold: { after: 1, until: hold.promise } }] }
  const response = await nodeA.request('POST', `${chatBase()}/stream-chat-state`, {
    headers: admin,
    body: { input: 'Slow question', messageId: messageId(1), sessionSettings: alice },
  })
  const reader = lineReader(response)
  const lines: Line[] = []
  // __cutoff__, the echo, the assistant message's start and its first delta.
  for (let index = 0; index < 4; index++) lines.push((await reader.next())!)
  return { reader, lines, chatId: (lines[0].state as { chatId: string }).chatId, hold }
}

/** A first turn on node A, answered in full: its lines and its thread. */
async function answeredOnA() {
  script = { steps: [{ kind: 'text', chunks: ['First answer'] }] }
  const first = await lineReader(
    await nodeA.request('POST', `${chatBase()}/stream-chat-state`, {
      headers: admin,
      body: { input: 'First', messageId: messageId(1), sessionSettings: alice },
    }),
  ).rest()
  return { first, chatId: (first[0].state as { chatId: string }).chatId }
}

/** What a Redis restarted without persistence keeps of these nodes' keys: nothing. */
async function redisLosesItsData() {
  const redis = new Bun.RedisClient(redisUrl)
  try {
    const keys = (await redis.send('KEYS', [`${prefix}*`])) as string[]
    if (keys.length > 0) await redis.send('DEL', keys)
  } finally {
    redis.close()
  }
}

/** Polls `check` until it holds (or fails the test after `ms`). */
async function eventually(check: () => Promise<boolean>, ms = 5_000) {
  const deadline = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`still not so after ${ms} ms`)
    await Bun.sleep(20)
  }
}

const onB = (body: Record<string, unknown>) =>
  nodeB.request('POST', `${chatBase()}/stream-chat-state`, {
    headers: admin,
    body: { sessionSettings: alice, ...body },
  })

if (!redisAvailable) warnSkipped('the two-node chat tests (Redis run registry)')
else
  describe('chat runs shared between two nodes through Redis', () => {
    afterEach(async () => {
      await nodeA.close()
      await nodeB.close()
      await storage.close()
    })

    describe('with live nodes', () => {
      beforeEach(() => startNodes())

      it('lets node B join a run of node A by its messageId: the full replay, then the rest live', async () => {
        const { reader, lines, chatId, hold } = await slowTurnOnA()
        const joined = lineReader(await onB({ chatId, messageId: messageId(1) }))
        const cutoff = (await joined.next())!
        expect(cutoff.state).toEqual({ chatId, isStreaming: true })
        // Without the chatId, by messageId alone, too.
        const byMessage = lineReader(await onB({ messageId: messageId(1) }))
        hold.open()
        const original = [...lines.slice(1), ...(await reader.rest())]
        expect(original.at(-1)?.id).toBe('__state__')
        expect(await joined.rest()).toEqual(original)
        expect((await byMessage.rest()).slice(1)).toEqual(original)
      })

      it('refuses a second turn on node B while the thread streams on node A', async () => {
        const { chatId, hold, reader } = await slowTurnOnA()
        const refused = await (await onB({ chatId, input: 'Another', messageId: messageId(2) })).text()
        expect(refused).toBe('{"error":"Streaming for thread is in progress"}\n')
        hold.open()
        await reader.rest()
        const accepted = await lineReader(await onB({ chatId, input: 'Another', messageId: messageId(2) })).rest()
        expect(accepted.at(-1)?.id).toBe('__state__')
      })

      it('starts one run for the same message sent to both nodes at once: the other node joins it', async () => {
        script = { steps: [{ kind: 'text', chunks: ['First answer'] }] }
        const first = await lineReader(await onB({ input: 'First', messageId: messageId(1) })).rest()
        const chatId = (first[0].state as { chatId: string }).chatId
        const hold = gate()
        script = { steps: [{ kind: 'text', chunks: ['Partial ', 'answer'], hold: { after: 1, until: hold.promise } }] }
        const body = { chatId, input: 'Same message', messageId: messageId(2), sessionSettings: alice }
        const [onNodeA, onNodeB] = await Promise.all([
          nodeA.request('POST', `${chatBase()}/stream-chat-state`, { headers: admin, body }),
          onB(body),
        ])
        const readers = [lineReader(onNodeA), lineReader(onNodeB)]
        const cutoffs = await Promise.all(readers.map(async (reader) => (await reader.next())!.state))
        expect(cutoffs.map((state) => (state as { isStreaming: boolean }).isStreaming).sort()).toEqual([false, true])
        hold.open()
        const [fromA, fromB] = await Promise.all(readers.map((reader) => reader.rest()))
        expect(fromA).toEqual(fromB)
        const messages = (fromA.at(-1)!.state as { messages: Line[] }).messages
        expect(messages.filter((message) => message.content === 'Same message')).toHaveLength(1)
      })

      it('starts one thread for the same new message sent to both nodes at once, without a chatId', async () => {
        const hold = gate()
        script = { steps: [{ kind: 'text', chunks: ['Partial ', 'answer'], hold: { after: 1, until: hold.promise } }] }
        const body = { input: 'A new question', messageId: messageId(3), sessionSettings: alice }
        const [onNodeA, onNodeB] = await Promise.all([
          nodeA.request('POST', `${chatBase()}/stream-chat-state`, { headers: admin, body }),
          onB(body),
        ])
        const readers = [lineReader(onNodeA), lineReader(onNodeB)]
        const cutoffs = (await Promise.all(readers.map(async (reader) => (await reader.next())!.state))) as {
          chatId: string
          isStreaming: boolean
        }[]
        // Each node opened a thread of its own for it; one run got the message, the other request joined that run.
        expect(cutoffs[0].chatId).toBe(cutoffs[1].chatId)
        expect(cutoffs.map((state) => state.isStreaming).sort()).toEqual([false, true])
        hold.open()
        const [fromA, fromB] = await Promise.all(readers.map((reader) => reader.rest()))
        expect(fromA).toEqual(fromB)
        expect(fromA.at(-1)?.id).toBe('__state__')
      })

      it('takes the next message on node B as soon as node A has answered, before node A released the thread', async () => {
        const held = delayReleasesOnA(500)
        const { first, chatId } = await answeredOnA()
        expect(first.at(-1)?.id).toBe('__state__')
        // The release leaves with the others of its turn of the event loop, after the last line.
        await eventually(async () => held.length === 1)
        script = { steps: [{ kind: 'text', chunks: ['Second answer'] }] }
        const next = await lineReader(await onB({ chatId, input: 'Next', messageId: messageId(2) })).rest()
        expect(next.at(-1)?.id).toBe('__state__')
        expect(next.map((line) => line.content).join('')).toContain('Second answer')
        await Promise.all(held)
        // Node A's late release left node B's claim alone: the thread is free again once that run ended.
        const third = await lineReader(await onB({ chatId, input: 'Third', messageId: messageId(3) })).rest()
        expect(third.at(-1)?.id).toBe('__state__')
      })

      it('takes the next message on node B when node A releases the thread just after node B found it held', async () => {
        const release = gate()
        const held = delayReleasesOnA(0, release.promise)
        const { chatId } = await answeredOnA()
        // Node B's claim fails on node A's record; node A's release lands before node B looks at who holds the thread.
        const commands = commandsOf(nodeB)
        const send = commands.send.bind(commands)
        let refusedClaims = 0
        commands.send = async (command, args) => {
          const answer = await send(command, args)
          if (command === 'EVAL' && args[0] === CLAIM && (answer as number[])[0] === 0 && refusedClaims++ === 0) {
            release.open()
            await Promise.all(held)
          }
          return answer
        }
        script = { steps: [{ kind: 'text', chunks: ['Second answer'] }] }
        const next = await lineReader(await onB({ chatId, input: 'Next', messageId: messageId(2) })).rest()
        expect(refusedClaims).toBe(1)
        expect(next.at(-1)?.id).toBe('__state__')
        expect(next.map((line) => line.content).join('')).toContain('Second answer')
      })

      it('stops the run on node A when node B is asked to abort it', async () => {
        const { chatId, reader } = await slowTurnOnA()
        const response = await nodeB.request('POST', `${chatBase()}/abort`, { headers: admin, body: { chatId } })
        expect(response.status).toBe(204)
        expect((await reader.rest()).at(-1)).toEqual({ error: 'Run aborted' })
        expect((await storedRuns(storage)).map((run) => run.status)).toEqual(['aborted'])
      })

      it('asks Redis for a new message of a new thread only to claim it and to release it, with no lookup first', async () => {
        const commands = commandsOf(nodeA)
        const send = commands.send.bind(commands)
        const scripts: string[] = []
        const names = new Map([
          [FIND_BY_MESSAGE, 'find by message'],
          [CLAIM, 'claim'],
          [RELEASE_UNREAD, 'release'],
        ])
        commands.send = (command, args) => {
          const name = command === 'EVAL' ? names.get(args[0]) : undefined
          if (name) scripts.push(name)
          return send(command, args)
        }
        script = { steps: [{ kind: 'text', chunks: ['Answer'] }] }
        const lines = await lineReader(
          await nodeA.request('POST', `${chatBase()}/stream-chat-state`, {
            headers: admin,
            body: { sessionSettings: alice, input: 'Hello', messageId: messageId(1) },
          }),
        ).rest()
        expect(lines.at(-1)?.id).toBe('__state__')
        await eventually(async () => scripts.includes('release'))
        expect(scripts).toEqual(['claim', 'release'])
      })
    })

    describe('with live nodes at their run limits', () => {
      beforeEach(() => startNodes(10_000, { maxRunsPerUser: 2, maxRunsPerKey: 3 }))

      /** A turn of `user` that stops after its first chunk until `hold` opens, read up to that chunk. */
      async function heldTurn(node: TestApp, user: string, id: string) {
        const response = await node.request('POST', `${chatBase()}/stream-chat-state`, {
          headers: admin,
          body: { input: `Question of ${user}`, messageId: id, sessionSettings: { externalId: user } },
        })
        expect(response.status).toBe(200)
        const reader = lineReader(response)
        for (let index = 0; index < 4; index++) await reader.next()
        return reader
      }

      it('counts the runs of a user and of an API key on every node together; joining counts against neither', async () => {
        const hold = gate()
        script = { steps: [{ kind: 'text', chunks: ['Partial ', 'answer'], hold: { after: 1, until: hold.promise } }] }
        const readers = [await heldTurn(nodeA, 'alice', messageId(1)), await heldTurn(nodeA, 'alice', messageId(2))]
        // Alice has two runs on node A: a third on node B is over her limit, before anything is stored.
        const third = await onB({ input: 'One more', messageId: messageId(3) })
        expect(third.status).toBe(429)
        expect(third.headers.get('retry-after')).toMatch(/^\d+$/)
        expect(await third.json()).toEqual({
          error: 'Too many runs for this user: at most 2 at once; retry when one has finished',
          code: 'TOO_MANY_RUNS',
        })
        expect((await storedRuns(storage)).length).toBe(2)
        // Joining one of them on node B is not a run.
        const joined = lineReader(await onB({ messageId: messageId(1) }))
        expect((await joined.next())!.state).toMatchObject({ isStreaming: true })
        // The admin key has two runs on node A: one more on node B (Bob's) fits, the fourth is over the key's limit.
        readers.push(await heldTurn(nodeB, 'bob', messageId(4)))
        const fourth = await nodeB.request('POST', `${chatBase()}/stream-chat-state`, {
          headers: admin,
          body: { input: 'Hello', messageId: messageId(5), sessionSettings: { externalId: 'carol' } },
        })
        expect(fourth.status).toBe(429)
        expect(((await fourth.json()) as { error: string }).error).toContain('for this API key: at most 3 at once')
        hold.open()
        for (const reader of [...readers, joined]) expect((await reader.rest()).at(-1)?.id).toBe('__state__')
        // Ended runs give their places back on every node.
        script = { steps: [{ kind: 'text', chunks: ['Answer'] }] }
        const again = await lineReader(await onB({ input: 'One more', messageId: messageId(3) })).rest()
        expect(again.at(-1)?.id).toBe('__state__')
      })
    })

    describe('with live nodes, over sockets', () => {
      beforeEach(() => startNodes())

      it('closes the sockets of an embed session on node B at once when node A revokes it', async () => {
        const { sessionId, token } = await embedSession(nodeA, 'viewer-b')
        const server = listen(nodeB.app)
        try {
          const client = await connectChatSocket(`ws://127.0.0.1:${server.port}${chatBase()}/ws?embedToken=${token}`)
          const revoked = await nodeA.request('POST', '/api/v1/embed/session/revoke', {
            headers: admin,
            body: { sessionId },
          })
          expect(revoked.status).toBe(204)
          expect((await client.waitForClose()).code).toBe(1008)
          expect(client.lines.at(-1)).toEqual({ error: 'Embed session was revoked' })
        } finally {
          await nodeB.app.stop(true)
        }
      })
    })

    describe('with live nodes, over sockets, while Redis does not answer', () => {
      beforeEach(() => startNodes(400))

      it('closes the sockets on node B of a session node A revoked while Redis did not answer, once it answers', async () => {
        const { sessionId, token } = await embedSession(nodeA, 'viewer-b')
        const server = listen(nodeB.app)
        let answer = () => {}
        try {
          const client = await connectChatSocket(`ws://127.0.0.1:${server.port}${chatBase()}/ws?embedToken=${token}`)
          answer = refuseCommands(nodeA, (command) => command === 'PUBLISH', publisherOf(nodeA))
          const revoked = await nodeA.request('POST', '/api/v1/embed/session/revoke', {
            headers: admin,
            body: { sessionId },
          })
          expect(revoked.status).toBe(204)
          await Bun.sleep(300)
          expect(client.closed()).toBeUndefined()
          answer()
          // Node A's next upkeep (a quarter lease, 100 ms here) announces it.
          expect((await client.waitForClose()).code).toBe(1008)
        } finally {
          answer()
          await nodeB.app.stop(true)
        }
      })

      it('checks every embed session it serves again once its own subscription comes back', async () => {
        const { sessionId, token } = await embedSession(nodeA, 'viewer-c')
        const server = listen(nodeB.app)
        try {
          const client = await connectChatSocket(`ws://127.0.0.1:${server.port}${chatBase()}/ws?embedToken=${token}`)
          // Node B is cut off: its subscription is gone, and the announcement is lost to it.
          await loseSubscription(nodeB)
          expect(
            (await nodeA.request('POST', '/api/v1/embed/session/revoke', { headers: admin, body: { sessionId } }))
              .status,
          ).toBe(204)
          // Node B's next upkeep subscribes again, and checks its sessions.
          expect((await client.waitForClose()).code).toBe(1008)
        } finally {
          await nodeB.app.stop(true)
        }
      })
    })

    describe('when node A dies mid-run', () => {
      beforeEach(() => startNodes(300))

      it('marks the run interrupted from node B, ends its joiners with an error line and frees the thread', async () => {
        const { chatId, hold } = await slowTurnOnA()
        const joined = lineReader(await onB({ chatId, messageId: messageId(1) }))
        await joined.next()
        // Node A stops renewing and releasing anything, as a killed process would.
        await nodeA.deps.registry.close()
        const rest = await joined.rest()
        expect(rest.at(-1)).toEqual({ error: NODE_LOST_MESSAGE })
        // Stored before the joiners were told.
        expect(await storedRuns(storage)).toEqual([{ status: 'interrupted', error: NODE_LOST_MESSAGE }])
        script = { steps: [{ kind: 'text', chunks: ['Answer'] }] }
        const next = await lineReader(await onB({ chatId, input: 'Again', messageId: messageId(2) })).rest()
        expect(next.at(-1)?.id).toBe('__state__')
        const messages = (next.at(-1)!.state as { messages: Line[] }).messages
        expect(messages.slice(0, 2).map((message) => [message.content, message.interrupted ?? false])).toEqual([
          ['Slow question', false],
          ['Partial ', true],
        ])
        hold.open()
      })
    })

    describe('when node A dies mid-run with no reader elsewhere', () => {
      beforeEach(() => startNodes(300))

      it('replays to a joiner on node B what storage holds of the run, then the error line', async () => {
        const { lines, hold } = await slowTurnOnA()
        await nodeA.deps.registry.close()
        const joined = await lineReader(await onB({ messageId: messageId(1) })).rest()
        expect(joined[0].state).toMatchObject({ isStreaming: true })
        // The echo and the answer so far (whole, as stored), then the end: what node A's client had, and its end.
        expect(joined.slice(1)).toEqual([
          lines[1],
          { ...lines[2], content: 'Partial ', isDelta: false, isInProcess: false, interrupted: true },
          { error: NODE_LOST_MESSAGE },
        ])
        hold.open()
      })
    })

    describe('when Redis loses its data (a restart without persistence) mid-run', () => {
      beforeEach(() => startNodes(300))

      it('lets the run finish: its node takes its lease again and sends its log again, and no line is lost', async () => {
        const { reader, lines, hold } = await slowTurnOnA()
        const joined = lineReader(await onB({ messageId: messageId(1) }))
        await joined.next()
        const redis = new Bun.RedisClient(redisUrl)
        await eventually(async () => ((await redis.send('KEYS', [`${prefix}log:*`])) as string[]).length === 1)
        const [log] = (await redis.send('KEYS', [`${prefix}log:*`])) as string[]
        await redisLosesItsData()
        // Node A's lines sent again may reach Redis before its renewal does: its log is back, without an end, starting
        // past its first lines (a reader that comes now must wait for the whole log, not take these as its start).
        await redis.send('XADD', [log, '*', 'i', '5', 'l', '{"id":"sent again before the rest"}\n'])
        redis.close()
        // Node A's next renewal (a third of a lease, 100 ms here) finds the lease gone and takes it again.
        await Bun.sleep(400)
        const late = lineReader(await onB({ messageId: messageId(1) }))
        hold.open()
        const original = [...lines.slice(1), ...(await reader.rest())]
        expect(original.at(-1)?.id).toBe('__state__')
        expect(await joined.rest()).toEqual(original)
        expect((await late.rest()).slice(1)).toEqual(original)
        expect((await storedRuns(storage)).map((run) => run.status)).toEqual(['completed'])
      })

      it('sends again the lines Redis did not take while it did not answer', async () => {
        const hold = gate()
        script = {
          // 30 ms apart: each chunk is its own publication, so its own XADD.
          steps: [
            {
              kind: 'text',
              chunks: ['one ', 'two ', 'three ', 'four'],
              hold: { after: 1, until: hold.promise },
              delayMs: 30,
            },
          ],
        }
        const reader = lineReader(
          await nodeA.request('POST', `${chatBase()}/stream-chat-state`, {
            headers: admin,
            body: { input: 'Question', messageId: messageId(1), sessionSettings: alice },
          }),
        )
        const lines: Line[] = []
        for (let index = 0; index < 4; index++) lines.push((await reader.next())!)
        const joined = lineReader(await onB({ messageId: messageId(1) }))
        await joined.next()
        // Node A's link refuses every XADD from now on.
        refuseCommands(nodeA, (command) => command === 'XADD')
        hold.open()
        const original = [...lines.slice(1), ...(await reader.rest())]
        expect(original.at(-1)?.id).toBe('__state__')
        expect(await joined.rest()).toEqual(original)
      })
    })

    describe('when node A dies mid-run and Redis loses its data', () => {
      beforeEach(() => startNodes(300))

      it('interrupts the run from node B within a few leases, and frees the thread', async () => {
        const { chatId, hold } = await slowTurnOnA()
        await nodeA.deps.registry.close()
        await redisLosesItsData()
        await eventually(async () => (await storedRuns(storage))[0]?.status === 'interrupted')
        script = { steps: [{ kind: 'text', chunks: ['Answer'] }] }
        const next = await lineReader(await onB({ chatId, input: 'Again', messageId: messageId(2) })).rest()
        expect(next.at(-1)?.id).toBe('__state__')
        hold.open()
      })
    })

    describe('when node A dies mid-run and node B is asked to abort it', () => {
      beforeEach(() => startNodes(10_000))

      it('ends the run in its place at once: 204, stored as aborted, and the thread takes a new message', async () => {
        const { chatId, hold } = await slowTurnOnA()
        await nodeA.deps.registry.close()
        const startedAt = Date.now()
        const response = await nodeB.request('POST', `${chatBase()}/abort`, { headers: admin, body: { chatId } })
        expect(response.status).toBe(204)
        expect((await storedRuns(storage)).map((run) => run.status)).toEqual(['aborted'])
        script = { steps: [{ kind: 'text', chunks: ['Answer'] }] }
        const next = await lineReader(await onB({ chatId, input: 'Again', messageId: messageId(2) })).rest()
        expect(next.at(-1)?.id).toBe('__state__')
        // Long before the dead node's lease (10 s) would have run out.
        expect(Date.now() - startedAt).toBeLessThan(8_000)
        hold.open()
      })
    })

    describe('when Redis does not take the end of a run', () => {
      beforeEach(() => startNodes(4_000))

      it('sends it again with the next upkeep: the joiner on node B gets the end, not a dead node', async () => {
        const { reader, lines, hold } = await slowTurnOnA()
        const joined = lineReader(await onB({ messageId: messageId(1) }))
        await joined.next()
        // The first release, and only it, is refused.
        let releases = 0
        refuseCommands(nodeA, (command, args) => command === 'EVAL' && args[0] === RELEASE && releases++ === 0)
        hold.open()
        const original = [...lines.slice(1), ...(await reader.rest())]
        expect(original.at(-1)?.id).toBe('__state__')
        // The next upkeep (a quarter lease, 1 s here) sends the end again, long before the lease would run out.
        expect(await joined.rest()).toEqual(original)
        expect(releases).toBe(2)
      })
    })

    describe('when node A misses the news of an abort on node B but is alive', () => {
      beforeEach(() => startNodes(300))

      it('tells node A again rather than ending its run in its place', async () => {
        const { chatId, reader, hold } = await slowTurnOnA()
        // Node A's subscription is gone for a moment (its next upkeep makes it again): the abort does not reach it.
        await loseSubscription(nodeA)
        const response = await nodeB.request('POST', `${chatBase()}/abort`, { headers: admin, body: { chatId } })
        expect(response.status).toBe(204)
        // Node A ended its own run: its client gets the abort, not a lost lease.
        expect((await reader.rest()).at(-1)).toEqual({ error: 'Run aborted' })
        expect((await storedRuns(storage)).map((run) => run.status)).toEqual(['aborted'])
        hold.open()
      })
    })

    describe("when node A dies mid-run at its user's limit", () => {
      beforeEach(() => startNodes(300, { maxRunsPerUser: 1 }))

      it('keeps counting a live run past its first lease: its node renews its place with the lease', async () => {
        const { reader, hold } = await slowTurnOnA()
        await Bun.sleep(700)
        expect((await onB({ input: 'Elsewhere', messageId: messageId(2) })).status).toBe(429)
        hold.open()
        expect((await reader.rest()).at(-1)?.id).toBe('__state__')
      })

      it("gives the dead node's run's place back once node B has interrupted it", async () => {
        const { chatId, hold } = await slowTurnOnA()
        expect((await onB({ input: 'Elsewhere', messageId: messageId(2) })).status).toBe(429)
        const joined = lineReader(await onB({ chatId, messageId: messageId(1) }))
        await joined.next()
        await nodeA.deps.registry.close()
        expect((await joined.rest()).at(-1)).toEqual({ error: NODE_LOST_MESSAGE })
        script = { steps: [{ kind: 'text', chunks: ['Answer'] }] }
        const next = await lineReader(await onB({ input: 'Elsewhere', messageId: messageId(2) })).rest()
        expect(next.at(-1)?.id).toBe('__state__')
        hold.open()
      })
    })
  })
