import { afterEach, beforeEach, describe, expect, it } from 'bun:test'
import { createScriptedAgent, type Script } from '../../../plugins/chat/run/scripted-agent'
import { apiKey, createTestApp, type TestApp } from '../../helpers/app'
import { chatBase, lineReader, messageId, readLines } from '../../helpers/chat'
import { keys } from '../../helpers/fixtures'
import { gate } from '../../helpers/gates'

let test: TestApp
let script: Script
beforeEach(() => {
  script = { steps: [{ kind: 'text', chunks: ['ok'] }] }
  test = createTestApp({ agents: () => createScriptedAgent(() => script) })
})
afterEach(() => test.close())

const admin = apiKey(keys.admin)
const setPolicies = async (chatThreadPolicies: unknown[]) => {
  const response = await test.request('PATCH', '/api/v1/deployments/1/ai-engineer-settings', {
    headers: admin,
    body: { chatThreadPolicies },
  })
  expect(response.status).toBe(200)
}
const chat = (body: Record<string, unknown>) =>
  test.request('POST', `${chatBase()}/stream-chat-state`, {
    headers: admin,
    body: { sessionSettings: { externalId: 'policy-user' }, ...body },
  })

async function newThread(): Promise<string> {
  const lines = await readLines(await chat({ input: 'Hello' }))
  return lines[0].state!.chatId!
}

describe('chatThreadPolicies on the chat', () => {
  it('refuses new messages with 403 when ChatThreadCreate is denied on the agent, and still lets threads be read', async () => {
    const chatId = await newThread()
    await setPolicies([{ actions: ['ChatThreadCreate'], effect: 'deny', resourceType: 'agent', resources: ['1'] }])
    const refused = await chat({ input: 'Again' })
    expect(refused.status).toBe(403)
    expect(await refused.json()).toEqual({
      error: 'Chat thread policy denies ChatThreadCreate on agent 1',
      code: 'CHAT_POLICY_DENIED',
    })
    const state = await readLines(await chat({ chatId }))
    expect(state.map((line) => line.id)).toEqual(['__cutoff__', '__state__'])
    // A request with neither input nor chatId would start an empty thread: refused alike.
    const empty = await chat({})
    expect(empty.status).toBe(403)
    expect(((await empty.json()) as { code: string }).code).toBe('CHAT_POLICY_DENIED')
  })

  it('refuses to read a thread that a deny policy names, and only that one', async () => {
    const denied = await newThread()
    const other = await newThread()
    await setPolicies([{ actions: ['ChatThreadRead'], effect: 'deny', resourceType: 'thread', resources: [denied] }])
    expect((await chat({ chatId: denied })).status).toBe(403)
    expect((await chat({ chatId: other })).status).toBe(200)
  })

  it('refuses to read a denied thread reached by its messageId, finished or running, as when it is named', async () => {
    const finished = await readLines(await chat({ input: 'Hello', messageId: messageId(1) }))
    const denied = finished[0].state!.chatId!
    const other = await newThread()
    const hold = gate()
    script = { steps: [{ kind: 'text', chunks: ['Partial', ' rest'], hold: { after: 1, until: hold.promise } }] }
    const running = lineReader(await chat({ input: 'Slow', messageId: messageId(2) }))
    const held = (await running.next())!.state!.chatId!
    await setPolicies([
      { actions: ['ChatThreadRead'], effect: 'deny', resourceType: 'thread', resources: [denied, held] },
    ])
    const refusals = [
      { messageId: messageId(1) },
      { messageId: messageId(1), input: 'Hello' },
      { messageId: messageId(1), chatId: other },
      { messageId: messageId(1), chatId: other, input: 'Hello' },
      { messageId: messageId(2) },
      { messageId: messageId(2), input: 'Slow' },
    ]
    for (const body of refusals) {
      const response = await chat(body)
      expect({ body, status: response.status, answer: await response.json() }).toEqual({
        body,
        status: 403,
        answer: {
          error: `Chat thread policy denies ChatThreadRead on thread ${body.messageId === messageId(1) ? denied : held}`,
          code: 'CHAT_POLICY_DENIED',
        },
      })
    }
    // Denied on the agent: no thread of it is read by messageId either.
    await setPolicies([{ actions: ['ChatThreadRead'], effect: 'deny', resourceType: 'agent', resources: ['1'] }])
    expect((await chat({ messageId: messageId(1) })).status).toBe(403)
    await setPolicies([])
    expect((await readLines(await chat({ messageId: messageId(1) }))).map((line) => line.id)).toEqual([
      '__cutoff__',
      '__state__',
    ])
    hold.open()
    expect((await running.rest()).at(-1)!.id).toBe('__state__')
  })

  it('applies an allow-list: only the agents it names may start threads', async () => {
    await setPolicies([{ actions: ['ChatThreadCreate'], effect: 'allow', resourceType: 'agent', resources: ['2'] }])
    expect((await chat({ input: 'Hi' })).status).toBe(403)
  })

  it('refuses abort when ChatThreadAbort is denied', async () => {
    const chatId = await newThread()
    await setPolicies([{ actions: ['ChatThreadAbort'], effect: 'deny', resourceType: 'thread', resources: ['*'] }])
    const response = await test.request('POST', `${chatBase()}/abort`, { headers: admin, body: { chatId } })
    expect(response.status).toBe(403)
    await setPolicies([])
    expect((await test.request('POST', `${chatBase()}/abort`, { headers: admin, body: { chatId } })).status).toBe(204)
  })
})
