import { afterEach, beforeEach, describe, expect, it } from 'bun:test'
import { createScriptedAgent, type Script } from '../../../plugins/chat/run/scripted-agent'
import { apiKey, createTestApp, type TestApp } from '../../helpers/app'
import { storedMessages, storedRuns } from '../../helpers/chat-rows'
import { chatBase, lineReader, messageId, type Line } from '../../helpers/chat'
import { keys } from '../../helpers/fixtures'
import { gate, until } from '../../helpers/gates'

const admin = apiKey(keys.admin)
let test: TestApp
let script: Script

beforeEach(() => {
  test = createTestApp({ agents: () => createScriptedAgent(() => script) })
})
afterEach(() => test.close())

async function startSlowTurn(settings = { externalId: 'alice' }) {
  const hold = gate()
  script = {
    steps: [{ kind: 'text', chunks: ['Partial ', 'answer', ' never sent'], hold: { after: 2, until: hold.promise } }],
  }
  const response = await test.request('POST', `${chatBase()}/stream-chat-state`, {
    headers: admin,
    body: { input: 'Slow question', messageId: messageId(1), sessionSettings: settings },
  })
  const reader = lineReader(response)
  const lines: Line[] = []
  for (let index = 0; index < 5; index++) lines.push((await reader.next())!)
  return { reader, lines, chatId: (lines[0].state as { chatId: string }).chatId, hold }
}

describe('POST {chat_base_url}/chat/abort', () => {
  it('stops the active run: 204, the stream ends with an error line, the partial answer is kept as interrupted', async () => {
    const { reader, lines, chatId } = await startSlowTurn()
    const response = await test.request('POST', `${chatBase()}/abort`, { headers: admin, body: { chatId } })
    expect(response.status).toBe(204)
    const rest = await reader.rest()
    expect(rest.at(-1)).toEqual({ error: 'Run aborted' })
    expect([...lines, ...rest].some((line) => line.id === '__state__')).toBe(false)
    const state = await test.request('POST', `${chatBase()}/stream-chat-state`, {
      headers: admin,
      body: { chatId, sessionSettings: { externalId: 'alice' } },
    })
    const messages = ((await lineReader(state).rest())[1].state as { messages: Line[] }).messages
    expect(messages.map((message) => [message.role, message.content, message.interrupted ?? false])).toEqual([
      ['user', 'Slow question', false],
      ['assistant', 'Partial answer', true],
    ])
    const [run] = await storedRuns(test.storage)
    expect(run).toEqual({ status: 'aborted', error: 'Run aborted' })
  })

  it('marks the last answer of a run aborted between messages as interrupted', async () => {
    const hold = gate()
    script = {
      steps: [
        { kind: 'text', chunks: ['Complete part'] },
        { kind: 'wait', until: hold.promise },
        { kind: 'text', chunks: ['never'] },
      ],
    }
    const response = await test.request('POST', `${chatBase()}/stream-chat-state`, {
      headers: admin,
      body: { input: 'Q', sessionSettings: { externalId: 'alice' } },
    })
    const reader = lineReader(response)
    const chatId = ((await reader.next())!.state as { chatId: string }).chatId
    await until(
      async () =>
        (await storedMessages(test.storage, 'assistant')).filter((message) => message.status === 'complete').length ===
        1,
    )
    await test.request('POST', `${chatBase()}/abort`, { headers: admin, body: { chatId } })
    expect((await reader.rest()).at(-1)).toEqual({ error: 'Run aborted' })
    const rows = (await storedMessages(test.storage, 'assistant')).map(({ content, status }) => ({ content, status }))
    expect(rows).toEqual([{ content: 'Complete part', status: 'interrupted' }])
  })

  it('accepts new messages on the thread after an abort', async () => {
    const { reader, chatId } = await startSlowTurn()
    await test.request('POST', `${chatBase()}/abort`, { headers: admin, body: { chatId } })
    await reader.rest()
    script = { steps: [{ kind: 'text', chunks: ['Fresh answer'] }] }
    const response = await test.request('POST', `${chatBase()}/stream-chat-state`, {
      headers: admin,
      body: { chatId, input: 'Again', messageId: messageId(2), sessionSettings: { externalId: 'alice' } },
    })
    const lines = await lineReader(response).rest()
    expect(lines.at(-1)?.id).toBe('__state__')
    expect((lines.at(-1)!.state as { messages: Line[] }).messages.map((message) => message.sort)).toEqual([1, 2, 3, 4])
  })

  it('lets the thread take a new message as soon as the abort has answered 204', async () => {
    for (let attempt = 0; attempt < 5; attempt++) {
      const { reader, chatId } = await startSlowTurn({ externalId: `prompt-${attempt}` })
      const aborted = await test.request('POST', `${chatBase()}/abort`, { headers: admin, body: { chatId } })
      expect(aborted.status).toBe(204)
      // No waiting for the aborted stream's end: the client sends its next message at once.
      script = { steps: [{ kind: 'text', chunks: ['Fresh answer'] }] }
      const response = await test.request('POST', `${chatBase()}/stream-chat-state`, {
        headers: admin,
        body: { chatId, input: 'Again', sessionSettings: { externalId: `prompt-${attempt}` } },
      })
      const lines = await lineReader(response).rest()
      expect({ attempt, last: lines.at(-1) }).toMatchObject({ attempt, last: { id: '__state__' } })
      await reader.rest()
    }
  })

  it('answers 204 when no run is active', async () => {
    const { reader, chatId, hold } = await startSlowTurn()
    hold.open()
    await reader.rest()
    const response = await test.request('POST', `${chatBase()}/abort`, { headers: admin, body: { chatId } })
    expect(response.status).toBe(204)
  })

  it("answers 403 for another user's chat and 404 for an unknown one", async () => {
    const { chatId, hold } = await startSlowTurn()
    const other = await test.request('POST', `${chatBase()}/abort`, {
      headers: admin,
      body: { chatId, sessionSettings: { externalId: 'bob' } },
    })
    expect(other.status).toBe(403)
    expect(await other.json()).toEqual({ error: 'This chat belongs to another user', code: 'CHAT_NOT_OWNED' })
    const unknown = await test.request('POST', `${chatBase()}/abort`, { headers: admin, body: { chatId: 'nope' } })
    expect(unknown.status).toBe(404)
    expect(((await unknown.json()) as { code: string }).code).toBe('CHAT_NOT_FOUND')
    const otherAccount = await test.request('POST', `/api/v1/public/other/agents/3/chat/abort`, {
      headers: apiKey(keys.otherAdmin),
      body: { chatId },
    })
    expect(otherAccount.status).toBe(404)
    expect(await test.deps.metrics.render()).toContain('chat_active_runs 1')
    hold.open()
  })

  it('refuses an externalId that is not lowercase and trimmed (400), as the chat does, and the run goes on', async () => {
    const { chatId, hold } = await startSlowTurn({ externalId: 'alice' })
    for (const externalId of ['Alice', ' alice', 'ALICE']) {
      const response = await test.request('POST', `${chatBase()}/abort`, {
        headers: admin,
        body: { chatId, sessionSettings: { externalId } },
      })
      expect({ externalId, status: response.status, body: await response.json() }).toEqual({
        externalId,
        status: 400,
        body: { error: 'externalId must be lowercase and trimmed', code: 'INVALID_EXTERNAL_ID' },
      })
    }
    expect(await test.deps.metrics.render()).toContain('chat_active_runs 1')
    hold.open()
  })

  it('holds the rules of sessionSettings under an embed token too (400), as the chat does', async () => {
    const minted = await test.request('POST', '/api/v1/embed/generate-session', {
      headers: admin,
      body: { deploymentId: 1, externalId: 'alice' },
    })
    const { sessionId } = (await minted.json()) as { sessionId: string }
    const exchanged = await test.request('POST', '/api/v1/embed/session/token', { body: { sessionId } })
    const viewer = { authorization: `Embed-Token ${((await exchanged.json()) as { token: string }).token}` }
    const { chatId, hold } = await startSlowTurn({ externalId: 'alice' })
    for (const sessionSettings of [{}, { externalId: 'Alice' }, { internalId: 'bob', groups: ['sales'] }]) {
      const body = { chatId, sessionSettings }
      const chat = await test.request('POST', `${chatBase()}/stream-chat-state`, { headers: viewer, body })
      const abort = await test.request('POST', `${chatBase()}/abort`, { headers: viewer, body })
      expect({ sessionSettings, status: abort.status, body: await abort.json() }).toEqual({
        sessionSettings,
        status: 400,
        body: await chat.json(),
      })
    }
    expect(await test.deps.metrics.render()).toContain('chat_active_runs 1')
    hold.open()
  })

  it('answers 400 for an internal user that does not exist, as the chat does, and the run goes on', async () => {
    const { chatId, hold } = await startSlowTurn({ externalId: 'alice' })
    const body = { chatId, sessionSettings: { internalId: ' Nobody@Acme.com ' } }
    const chat = await test.request('POST', `${chatBase()}/stream-chat-state`, { headers: admin, body })
    const abort = await test.request('POST', `${chatBase()}/abort`, { headers: admin, body })
    expect({ status: abort.status, body: await abort.json() }).toEqual({ status: chat.status, body: await chat.json() })
    expect(abort.status).toBe(400)
    expect(await test.deps.metrics.render()).toContain('chat_active_runs 1')
    hold.open()
  })

  it('lets the owner abort with the same sessionSettings', async () => {
    const { reader, chatId } = await startSlowTurn({ externalId: 'alice' })
    const response = await test.request('POST', `${chatBase()}/abort`, {
      headers: admin,
      body: { chatId, sessionSettings: { externalId: 'alice' } },
    })
    expect(response.status).toBe(204)
    expect((await reader.rest()).at(-1)).toEqual({ error: 'Run aborted' })
    await until(async () => (await test.deps.metrics.render()).includes('chat_runs_total{outcome="aborted"} 1'))
  })
})
