import { afterEach, beforeEach, describe, expect, it } from 'bun:test'
import { createScriptedAgent, type Script } from '../../../plugins/chat/run/scripted-agent'
import { apiKey, createTestApp, type TestApp } from '../../helpers/app'
import { storedMessages } from '../../helpers/chat-rows'
import { chatBase, lineReader, mergeLines, messageId, type Line } from '../../helpers/chat'
import { keys } from '../../helpers/fixtures'
import { gate } from '../../helpers/gates'

const admin = apiKey(keys.admin)
const alice = { externalId: 'alice' }
let test: TestApp
let script: Script

beforeEach(() => {
  test = createTestApp({ agents: () => createScriptedAgent(() => script) })
})
afterEach(() => test.close())

const storedContent = async (chatId: string) => {
  const [message] = await storedMessages(test.storage, 'assistant', chatId)
  return message && { content: message.content, status: message.status }
}

describe('saving a running answer', () => {
  it('saves what was streamed when the thread is read mid-run, then appends the rest: the stored answer is whole', async () => {
    const hold = gate()
    script = {
      steps: [
        { kind: 'text', chunks: ['Alpha ', 'beta ', 'gamma ', 'delta'], hold: { after: 2, until: hold.promise } },
      ],
    }
    const response = await test.request('POST', `${chatBase()}/stream-chat-state`, {
      headers: admin,
      body: { input: 'Tell me', messageId: messageId(1), sessionSettings: alice },
    })
    const reader = lineReader(response)
    const seen: Line[] = []
    while (seen.filter((line) => line.isDelta).length < 2) seen.push((await reader.next())!)
    const chatId = (seen[0].state as { chatId: string }).chatId

    // Reading the thread saves the running answer as it stands.
    const midway = await lineReader(
      await test.request('POST', `${chatBase()}/stream-chat-state`, {
        headers: admin,
        body: { chatId, sessionSettings: alice },
      }),
    ).rest()
    const partial = (midway[1].state as { messages: Line[] }).messages[1]
    expect(partial).toMatchObject({ role: 'assistant', content: 'Alpha beta ', isInProcess: true })
    expect(await storedContent(chatId)).toEqual({ content: 'Alpha beta ', status: 'in_process' })

    hold.open()
    const rest = await reader.rest()
    const final = (rest.at(-1)!.state as { messages: Line[] }).messages[1]
    expect(final).toMatchObject({ content: 'Alpha beta gamma delta', isInProcess: false })
    expect(await storedContent(chatId)).toEqual({ content: 'Alpha beta gamma delta', status: 'complete' })
  })

  it('has every line a client receives stored by the time it arrives: tool calls with results, answer text', async () => {
    const hold = gate()
    script = {
      steps: [
        { kind: 'tool', name: 'serviceSqlApi', input: { sql: 'SELECT 1' }, result: { rows: [[1]] } },
        { kind: 'text', chunks: ['One ', 'two ', 'three ', 'four'], hold: { after: 3, until: hold.promise } },
      ],
    }
    const response = await test.request('POST', `${chatBase()}/stream-chat-state`, {
      headers: admin,
      body: { input: 'Tell me', messageId: messageId(1), sessionSettings: alice },
    })
    const reader = lineReader(response)
    const received: Line[] = []
    // Up to the third delta of the answer: the agent holds the fourth until the gate opens.
    while (received.filter((line) => line.isDelta && line.content).length < 3) {
      const line = await reader.next()
      if (line?.role === 'assistant') received.push(line)
      // What the client has now is in the database already: a crash from here on loses none of it.
      const rows = new Map((await storedMessages(test.storage, 'assistant')).map((row) => [row.id, row]))
      for (const message of mergeLines(received)) {
        expect(rows.get(message.id as string)?.content.startsWith(message.content)).toBe(true)
        if (message.toolCall) expect(rows.get(message.id as string)!.toolCall!).toMatchObject(message.toolCall)
      }
    }
    expect(mergeLines(received).map((message) => message.content)).toEqual(['', 'One two three '])
    hold.open()
    await reader.rest()
  })
})
