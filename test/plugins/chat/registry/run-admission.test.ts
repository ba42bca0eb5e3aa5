import { afterEach, describe, expect, it } from 'bun:test'
import type { AgentTurn } from '../../../../plugins/chat/run/agent'
import { createScriptedAgent } from '../../../../plugins/chat/run/scripted-agent'
import { loadConfig, type ChatLimits } from '../../../../lib/config'
import { apiKey, createTestApp, type TestApp } from '../../../helpers/app'
import { storedMessages } from '../../../helpers/chat-rows'
import { chatBase, lineReader, messageId, readLines } from '../../../helpers/chat'
import { connectChatSocket, turnEnded } from '../../../helpers/chat-socket'
import { keys } from '../../../helpers/fixtures'
import { gate, until } from '../../../helpers/gates'
import { listen } from '../../../helpers/transports'

let test: TestApp | undefined
afterEach(async () => {
  release.open()
  if (test?.app.server) await test.app.stop(true)
  await test?.close()
  test = undefined
})

let release = gate()
/** Inputs in the order the agent started answering them. */
let started: string[] = []

/** An app whose agent holds every run until `release` opens (each run waits for the gate of its time). */
function appWith(limits: Partial<ChatLimits> = {}) {
  release = gate()
  started = []
  const config = loadConfig({})
  test = createTestApp({
    config: { chatLimits: { ...config.chatLimits, ...limits } },
    agents: () =>
      createScriptedAgent((turn: AgentTurn) => {
        started.push(turn.input)
        const held = release.promise
        return {
          steps: [
            { kind: 'wait', until: held },
            { kind: 'text', chunks: [`Answer to ${turn.input}`] },
          ],
        }
      }),
  })
  return test
}

const post = (app: TestApp, body: Record<string, unknown>, key: string = keys.admin) =>
  app.request('POST', `${chatBase()}/stream-chat-state`, { headers: apiKey(key), body })

const ask = (app: TestApp, user: string, input: string, extra: Record<string, unknown> = {}) =>
  post(app, { input, sessionSettings: { externalId: user }, ...extra })

describe('chat run admission', () => {
  it('refuses the fifth concurrent run of one user with 429 TOO_MANY_RUNS and Retry-After, before the stream starts', async () => {
    const app = appWith()
    const running = await Promise.all([1, 2, 3, 4].map((index) => ask(app, 'busy-user', `Question ${index}`)))
    for (const response of running) expect(response.status).toBe(200)
    await until(() => started.length === 4)

    const fifth = await ask(app, 'busy-user', 'Question 5')
    expect(fifth.status).toBe(429)
    expect(Number(fifth.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    const body = (await fifth.json()) as { error: string; code: string }
    expect(body).toEqual({ error: expect.stringContaining('at most 4'), code: 'TOO_MANY_RUNS' })
    // Refused before anything was stored.
    expect((await storedMessages(app.storage, 'user')).filter((message) => message.content === 'Question 5')).toEqual(
      [],
    )
    const metrics = await (await app.request('GET', '/metrics')).text()
    expect(metrics).toContain('chat_admission_refused_total{limit="user"} 1')

    // Another user is not held back by the first one's runs.
    const other = await ask(app, 'other-user', 'Mine')
    expect(other.status).toBe(200)

    release.open()
    for (const response of [...running, other]) expect((await readLines(response)).at(-1)?.id).toBe('__state__')
    // Once the runs have ended, the user may start new ones.
    const again = await ask(app, 'busy-user', 'Question 6')
    expect(again.status).toBe(200)
    expect((await readLines(again)).at(-1)?.id).toBe('__state__')
  })

  it('lets a client join an active run with its messageId while the user is at the limit', async () => {
    const app = appWith()
    const first = await ask(app, 'joiner', 'Joined question', { messageId: messageId(1) })
    const chatId = ((await lineReader(first).next())?.state as { chatId: string }).chatId
    const others = await Promise.all([2, 3, 4].map((index) => ask(app, 'joiner', `Question ${index}`)))
    await until(() => started.length === 4)
    expect((await ask(app, 'joiner', 'One too many')).status).toBe(429)

    const joined = await post(app, { chatId, messageId: messageId(1), sessionSettings: { externalId: 'joiner' } })
    expect(joined.status).toBe(200)
    const rejoined = await post(app, { messageId: messageId(1), sessionSettings: { externalId: 'joiner' } })
    expect(rejoined.status).toBe(200)
    release.open()
    for (const response of [joined, rejoined]) {
      const lines = await readLines(response)
      expect(lines[0].state?.isStreaming).toBe(true)
      expect(lines.at(-1)?.id).toBe('__state__')
    }
    for (const response of others) await response.text()
  })

  it('counts the runs of every user of one API key against the key limit', async () => {
    const app = appWith({ maxRunsPerKey: 2 })
    const running = [await ask(app, 'key-user-1', 'A'), await ask(app, 'key-user-2', 'B')]
    const third = await ask(app, 'key-user-3', 'C')
    expect(third.status).toBe(429)
    expect(((await third.json()) as { code: string }).code).toBe('TOO_MANY_RUNS')
    // Another key of the account has its own budget.
    const otherKey = await post(app, { input: 'D', sessionSettings: { externalId: 'key-user-3' } }, keys.member)
    expect(otherKey.status).toBe(200)
    release.open()
    for (const response of [...running, otherKey]) await response.text()
  })

  it('queues runs beyond the server-wide limit and executes them in the order they came', async () => {
    const app = appWith({ maxActiveRuns: 1, runQueueSize: 2 })
    const first = await ask(app, 'queue-1', 'First')
    await until(() => started.length === 1)
    const second = await ask(app, 'queue-2', 'Second')
    const third = await ask(app, 'queue-3', 'Third')
    expect([second.status, third.status]).toEqual([200, 200])
    // The queue is full: the next one is refused.
    const fourth = await ask(app, 'queue-4', 'Fourth')
    expect(fourth.status).toBe(429)
    expect(((await fourth.json()) as { error: string }).error).toContain('busy')
    // A queued run streams its cutoff and waits, its user message stored; the agent has not started it.
    const secondReader = lineReader(second)
    expect((await secondReader.next())?.id).toBe('__cutoff__')
    const stored = async () =>
      (await storedMessages(app.storage, 'user')).filter((message) => message.content === 'Second').length
    await until(async () => (await stored()) === 1)
    await Bun.sleep(20)
    expect(started).toEqual(['First'])
    // One run executes, two wait: the metrics count each once, where it is.
    const metrics = await app.deps.metrics.render()
    expect(metrics).toContain('chat_active_runs 1\n')
    expect(metrics).toContain('chat_admission_queued 2\n')

    release.open()
    const finished: string[] = []
    const ended = (name: string) => (lines: Awaited<ReturnType<typeof readLines>>) => {
      finished.push(name)
      return lines
    }
    const ends = await Promise.all([
      readLines(first).then(ended('First')),
      secondReader.rest().then(ended('Second')),
      readLines(third).then(ended('Third')),
    ])
    for (const lines of ends) expect(lines.at(-1)?.id).toBe('__state__')
    expect(started).toEqual(['First', 'Second', 'Third'])
    expect(finished).toEqual(['First', 'Second', 'Third'])
  })

  it('ends a queued run that is aborted at once and gives its place to the next', async () => {
    const app = appWith({ maxActiveRuns: 1, runQueueSize: 1 })
    const first = await ask(app, 'abort-1', 'Running')
    await until(() => started.length === 1)
    const queued = await ask(app, 'abort-2', 'Queued')
    const reader = lineReader(queued)
    const chatId = ((await reader.next())?.state as { chatId: string }).chatId
    const aborted = await app.request('POST', `${chatBase()}/abort`, { headers: apiKey(keys.admin), body: { chatId } })
    expect(aborted.status).toBe(204)
    expect((await reader.rest()).at(-1)).toEqual({ error: 'Run aborted' })
    // The queue has room again.
    const next = await ask(app, 'abort-3', 'Next')
    expect(next.status).toBe(200)
    release.open()
    expect((await readLines(first)).at(-1)?.id).toBe('__state__')
    expect((await readLines(next)).at(-1)?.id).toBe('__state__')
    expect(started).toEqual(['Running', 'Next'])
  })

  it('answers a WebSocket turn over the limit with an error line and keeps the socket open', async () => {
    const app = appWith({ maxRunsPerUser: 1 })
    const held = await ask(app, 'socket-user', 'Held')
    await until(() => started.length === 1)
    const client = await connectChatSocket(`ws://127.0.0.1:${listen(app.app).port}${chatBase()}/ws`, apiKey(keys.admin))
    client.send({ input: 'Over the limit', sessionSettings: { externalId: 'socket-user' } })
    await client.waitFor(turnEnded)
    expect(client.lines).toEqual([{ error: expect.stringContaining('Too many runs for this user') }])
    release.open()
    await held.text()
    client.send({ input: 'Later', sessionSettings: { externalId: 'socket-user' } })
    await client.waitFor(turnEnded, 2)
    expect(client.lines.at(-1)?.id).toBe('__state__')
    expect(client.closed()).toBeUndefined()
    client.close()
  })
})
