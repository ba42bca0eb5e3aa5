import { afterEach, beforeEach, describe, expect, it } from 'bun:test'
import { createScriptedAgent, type Script } from '../../../plugins/chat/run/scripted-agent'
import { apiKey, createTestApp, type TestApp } from '../../helpers/app'
import { chatBase, lineReader, messageId, readLines } from '../../helpers/chat'
import { keys } from '../../helpers/fixtures'
import { gate } from '../../helpers/gates'

let script: Script
let test: TestApp

beforeEach(() => {
  test = createTestApp({ agents: () => createScriptedAgent(() => script) })
})
afterEach(() => test.close())

const open = (agentId: number, key: string, body: Record<string, unknown>) =>
  test
    .request('POST', `${chatBase('acme', agentId)}/stream-chat-state`, { headers: apiKey(key), body })
    .then(lineReader)

describe('joining an active run by its messageId', () => {
  it("never joins a run of another agent, even the same user's, from a key outside that run's deployment", async () => {
    const hold = gate()
    script = {
      steps: [
        { kind: 'text', chunks: ['Revenue of deployment 1 is 42'] },
        { kind: 'wait', until: hold.promise },
        { kind: 'text', chunks: ['.'] },
      ],
    }
    const alice = { externalId: 'alice' }
    // Agent 1 belongs to deployment 1; the scoped key may reach deployment 2 (agent 2) only.
    const running = await open(1, keys.admin, { sessionSettings: alice, input: 'Revenue?', messageId: messageId(7) })
    const chatId = ((await running.next())!.state as { chatId: string }).chatId

    // By messageId alone, agent 2 has no run and no answer of it: the request gets a new thread of its own, empty.
    const byMessage = await readLines(
      await test.request('POST', `${chatBase('acme', 2)}/stream-chat-state`, {
        headers: apiKey(keys.scoped),
        body: { sessionSettings: alice, messageId: messageId(7) },
      }),
    )
    expect(byMessage.map((line) => line.id)).toEqual(['__cutoff__', '__state__'])
    expect((byMessage[0].state as { chatId: string }).chatId).not.toBe(chatId)
    expect(byMessage[1].state).toEqual({ messages: [] })
    const byChatReader = await open(2, keys.scoped, { sessionSettings: alice, chatId, messageId: messageId(7) })
    // A request that joined would wait here for the held run: read its first line, then let the run finish.
    const first = await byChatReader.next()
    hold.open()
    const byChat = [first, ...(await byChatReader.rest())]
    const original = await running.rest()
    expect(JSON.stringify(original)).toContain('Revenue of deployment 1')
    expect(byChat).toEqual([{ error: `Chat ${chatId} not found` }])
  })

  it('lets the same user rejoin the run on its own agent', async () => {
    const hold = gate()
    script = {
      steps: [
        { kind: 'text', chunks: ['one '] },
        { kind: 'wait', until: hold.promise },
        { kind: 'text', chunks: ['two'] },
      ],
    }
    const alice = { externalId: 'alice' }
    const running = await open(2, keys.scoped, { sessionSettings: alice, input: 'Count', messageId: messageId(8) })
    const chatId = ((await running.next())!.state as { chatId: string }).chatId
    const joiner = await open(2, keys.scoped, { sessionSettings: alice, messageId: messageId(8) })
    const cutoff = (await joiner.next())!
    hold.open()
    expect(cutoff.state).toEqual({ chatId, isStreaming: true })
    expect(JSON.stringify(await joiner.rest())).toContain('two')
    await running.rest()
  })
})
