import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { lineReader, messageId, rawLines, type Line } from '../../helpers/chat'
import { startCluster, type Cluster } from '../../helpers/cluster'
import { postgresAvailable, warnSkipped } from '../../helpers/database-servers'
import { redisAvailable } from '../../helpers/redis-server'
import type { ServerProcess } from '../../../harness/server-process'

const key = 'ak_two_nodes_0123456789'
const BUSY = 'Streaming for thread is in progress'
// Agent 1 streams 40 short deltas 100 ms apart (about 4 s): long enough to join in the middle. Agent 2 streams for
// a minute: it is aborted or killed long before its end.
const bootstrap = `accounts:
  - name: acme
    plan: enterprise
    apiKeys: [{ name: admin, key: ${key}, admin: true }]
    deployments:
      - id: 1
        name: Two nodes
        model: demo
        agents:
          - { id: 1, name: Paced, kind: scripted, config: { lines: 40, lineBytes: 8, delayMs: 100 } }
          - { id: 2, name: Endless, kind: scripted, config: { lines: 600, lineBytes: 5, delayMs: 100 } }
`
const available = postgresAvailable && redisAvailable
if (!available) warnSkipped('the two-node test (Postgres and redis-server)')

let cluster: Cluster | undefined
let a: ServerProcess
let b: ServerProcess

beforeAll(async () => {
  if (!available) return
  cluster = await startCluster({ nodes: 2, bootstrap })
  ;[a, b] = cluster.nodes
}, 120_000)

afterAll(async () => {
  await cluster?.stop()
}, 60_000)

const admin = { authorization: `Api-Key ${key}`, 'content-type': 'application/json' }
const chat = (node: ServerProcess, agentId: number, path: string, body: object, headers: object = admin) =>
  fetch(`${node.url}/api/v1/public/acme/agents/${agentId}/chat/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  })
const asUser = (externalId: string) => ({ sessionSettings: { externalId } })

/** Reads lines until one matches, returning every line read. */
async function readUntil(reader: ReturnType<typeof lineReader>, done: (line: Line) => boolean): Promise<Line[]> {
  const lines: Line[] = []
  for (let line = await reader.next(); line; line = await reader.next()) {
    lines.push(line)
    if (done(line)) return lines
  }
  throw new Error(`the stream ended first: ${JSON.stringify(lines.slice(-3))}`)
}

/** The thread as stored, read through `node`. */
async function storedThread(node: ServerProcess, agentId: number, chatId: string, user: string): Promise<Line[]> {
  const lines = await lineReader(await chat(node, agentId, 'stream-chat-state', { chatId, ...asUser(user) })).rest()
  expect(lines.map((line) => line.id)).toEqual(['__cutoff__', '__state__'])
  return lines[1].state!.messages as Line[]
}

describe.skipIf(!available)('two nodes on one Postgres and one Redis', () => {
  it('replays a run started on node A, line for line, to joiners on node B', async () => {
    const id = messageId(1)
    const original = rawLines(
      await chat(a, 1, 'stream-chat-state', { input: 'Tell me something', messageId: id, ...asUser('joiner') }),
    )
    const head: string[] = []
    // Joined in the middle: after the echo and a few deltas, so the joiners need the replay and then the live part.
    while (head.filter((line) => line.includes('"isDelta":true')).length < 5) head.push((await original.next())!)
    const chatId = (JSON.parse(head[0]) as Line).state!.chatId!
    const byChat = chat(b, 1, 'stream-chat-state', { chatId, messageId: id, ...asUser('joiner') })
    // A client that lost the chatId rejoins by its user and messageId alone.
    const byMessage = chat(b, 1, 'stream-chat-state', { messageId: id, ...asUser('joiner') })
    const [joined, joinedByMessage] = await Promise.all(
      [byChat, byMessage].map(async (response) => rawLines(await response).rest()),
    )
    const sent = [...head, ...(await original.rest())]

    expect(JSON.parse(sent.at(-1)!).id).toBe('__state__')
    for (const lines of [joined, joinedByMessage]) {
      expect(JSON.parse(lines[0])).toEqual({ id: '__cutoff__', sort: 0, state: { chatId, isStreaming: true } })
      // After its own __cutoff__, a joiner gets exactly what the original client got: every line, same bytes, in order.
      expect(lines.slice(1)).toEqual(sent.slice(1))
    }
    // Finished, the same messageId is answered from the database on either node.
    for (const node of [a, b]) {
      const again = await lineReader(
        await chat(node, 1, 'stream-chat-state', { messageId: id, ...asUser('joiner') }),
      ).rest()
      expect(again.map((line) => line.id)).toEqual(['__cutoff__', '__state__'])
    }
  }, 60_000)

  it('refuses a second message on node B while node A streams the thread, and aborts it from node B', async () => {
    const reader = lineReader(
      await chat(a, 2, 'stream-chat-state', { input: 'Go on forever', messageId: messageId(10), ...asUser('busy') }),
    )
    const head = await readUntil(reader, (line) => line.isDelta === true)
    const chatId = head[0].state!.chatId!

    const busy = await lineReader(
      await chat(b, 2, 'stream-chat-state', { chatId, input: 'Me too', messageId: messageId(11), ...asUser('busy') }),
    ).rest()
    expect(busy).toEqual([{ error: BUSY }])

    expect((await chat(b, 2, 'abort', { chatId, ...asUser('busy') })).status).toBe(204)
    // The run on node A stops: its stream ends with an error line, and the partial answer is kept as interrupted.
    const rest = await reader.rest()
    expect(rest.at(-1)).toHaveProperty('error')
    expect(rest.filter((line) => line.isDelta).length).toBeLessThan(600)
    const messages = await storedThread(b, 2, chatId, 'busy')
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant'])
    expect(messages[1]).toMatchObject({ interrupted: true, isInProcess: false })

    // Free again: node B takes the next message; node A aborts that one.
    const next = lineReader(
      await chat(b, 2, 'stream-chat-state', { chatId, input: 'Again', messageId: messageId(12), ...asUser('busy') }),
    )
    const started = await readUntil(next, (line) => line.isDelta === true)
    expect(started.find((line) => line.role === 'user')?.content).toBe('Again')
    expect((await chat(a, 2, 'abort', { chatId, ...asUser('busy') })).status).toBe(204)
    expect((await next.rest()).at(-1)).toHaveProperty('error')
    // Another user of the account may not abort it: the thread is not theirs.
    expect((await chat(a, 2, 'abort', { chatId, ...asUser('someone-else') })).status).toBe(403)
  }, 60_000)

  it('honours on node B an embed session minted on node A, and refuses it on node B once revoked on node A', async () => {
    const minted = await fetch(`${a.url}/api/v1/embed/generate-session`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ deploymentId: 1, externalId: 'embedded-user' }),
    })
    expect(minted.status).toBe(200)
    const { sessionId } = (await minted.json()) as { sessionId: string }
    const exchanged = await fetch(`${b.url}/api/v1/embed/session/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ sessionId }),
    })
    expect(exchanged.status).toBe(200)
    const { token } = (await exchanged.json()) as { token: string }
    const embed = { authorization: `Embed-Token ${token}` }
    // Exchanged once on node B, the session cannot be exchanged again on node A.
    const twice = await fetch(`${a.url}/api/v1/embed/session/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ sessionId }),
    })
    expect(twice.status).toBe(401)

    const meta = (node: ServerProcess) => fetch(`${node.url}/api/v1/deployments/1/meta`, { headers: embed })
    for (const node of [a, b]) expect((await meta(node)).status).toBe(200)
    const turn = await lineReader(await chat(b, 1, 'stream-chat-state', { input: 'Hello' }, embed)).rest()
    expect(turn.at(-1)?.id).toBe('__state__')

    const revoked = await fetch(`${a.url}/api/v1/embed/session/revoke`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ sessionId }),
    })
    expect(revoked.status).toBe(204)
    for (const node of [b, a]) {
      const refused = await meta(node)
      expect(refused.status).toBe(401)
      expect(await refused.json()).toEqual({ error: 'Embed session was revoked', code: 'EMBED_SESSION_REVOKED' })
    }
    const chatRefused = await chat(b, 1, 'stream-chat-state', { input: 'Hello again' }, embed)
    expect(chatRefused.status).toBe(401)
  }, 60_000)

  it('frees the thread on node B within 30 s when node A is killed mid-run, the run marked interrupted', async () => {
    const reader = lineReader(
      await chat(a, 2, 'stream-chat-state', { input: 'Until the end', messageId: messageId(20), ...asUser('killed') }),
    )
    const head = await readUntil(reader, (line) => line.isDelta === true)
    const chatId = head[0].state!.chatId!
    await a.stop('SIGKILL')
    const killedAt = Date.now()

    // Node B refuses the thread while the dead node's lease runs, then takes the message: within 30 s of the kill.
    let accepted: ReturnType<typeof lineReader> | undefined
    let started: Line[] = []
    while (!accepted) {
      const attempt = lineReader(
        await chat(b, 2, 'stream-chat-state', {
          chatId,
          input: 'Still there?',
          messageId: messageId(21),
          ...asUser('killed'),
        }),
      )
      const first = await readUntil(attempt, (line) => line.id === '__cutoff__' || 'error' in line)
      if (first.at(-1)!.id === '__cutoff__') {
        accepted = attempt
        started = [...first, ...(await readUntil(attempt, (line) => line.isDelta === true))]
        break
      }
      expect(first).toEqual([{ error: BUSY }])
      expect(Date.now() - killedAt, 'the thread was still busy 30 s after its node died').toBeLessThan(30_000)
      await Bun.sleep(500)
    }
    expect(started.find((line) => line.role === 'user')?.content).toBe('Still there?')

    // The killed run is kept as far as it got, marked interrupted; the new run is live on node B.
    const messages = await storedThread(b, 2, chatId, 'killed')
    expect(messages.slice(0, 3).map((message) => message.role)).toEqual(['user', 'assistant', 'user'])
    expect(messages[1]).toMatchObject({ interrupted: true, isInProcess: false })
    const received = head
      .filter((line) => line.isDelta)
      .map((line) => line.content)
      .join('')
    expect((messages[1].content ?? '').startsWith(received)).toBe(true)

    expect((await chat(b, 2, 'abort', { chatId, ...asUser('killed') })).status).toBe(204)
    expect((await accepted.rest()).at(-1)).toHaveProperty('error')
  }, 90_000)
})
