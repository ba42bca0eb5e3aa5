import { afterEach, beforeEach, describe, expect, it } from 'bun:test'
import { createScriptedAgent } from '../../../plugins/chat/scripted-agent'
import { apiKey, createTestApp, type TestApp } from '../../helpers/app'
import { chatBase, readLines } from '../../helpers/chat'
import { keys } from '../../helpers/fixtures'

let test: TestApp
beforeEach(() => {
  test = createTestApp({ agents: () => createScriptedAgent({ steps: [{ kind: 'text', chunks: ['ok'] }] }) })
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
  })

  it('refuses to read a thread that a deny policy names, and only that one', async () => {
    const denied = await newThread()
    const other = await newThread()
    await setPolicies([{ actions: ['ChatThreadRead'], effect: 'deny', resourceType: 'thread', resources: [denied] }])
    expect((await chat({ chatId: denied })).status).toBe(403)
    expect((await chat({ chatId: other })).status).toBe(200)
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
