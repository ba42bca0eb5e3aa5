import { afterEach, beforeEach, describe, expect, it } from 'bun:test'
import { createScriptedAgent, type Script } from '../../../plugins/chat/run/scripted-agent'
import { apiKey, createTestApp, type TestApp } from '../../helpers/app'
import { chatBase, lineReader, messageId } from '../../helpers/chat'
import { connectChatSocket, turnEnded } from '../../helpers/chat-socket'
import { keys } from '../../helpers/fixtures'
import { embedSession } from '../../helpers/embed-sessions'
import { gate } from '../../helpers/gates'
import { listen } from '../../helpers/transports'

let test: TestApp
let origin: string
let script: Script

beforeEach(() => {
  script = { steps: [{ kind: 'text', chunks: ['Hello'] }] }
  test = createTestApp({ agents: () => createScriptedAgent(() => script) })
  origin = `ws://127.0.0.1:${listen(test.app).port}`
})
afterEach(async () => {
  await test.app.stop(true)
  await test.close()
})

const revoke = (sessionId: string) =>
  test.request('POST', '/api/v1/embed/session/revoke', { headers: apiKey(keys.admin), body: { sessionId } })

describe('GET {chat_base_url}/chat/ws when the embed session is revoked', () => {
  it('closes an idle socket of the session at once, with the error line', async () => {
    const { sessionId, token } = await embedSession(test, 'viewer-idle')
    const client = await connectChatSocket(`${origin}${chatBase()}/ws?embedToken=${token}`)
    client.send({ input: 'Before', messageId: messageId(1) })
    await client.waitFor(turnEnded)
    expect((await revoke(sessionId)).status).toBe(204)
    // Nothing is sent: the revocation alone closes the socket.
    const closed = await client.waitForClose()
    expect(closed.code).toBe(1008)
    expect(client.lines.at(-1)).toEqual({ error: 'Embed session was revoked' })
  })

  it('stops sending a turn in progress to the socket of the session', async () => {
    const { sessionId, token } = await embedSession(test, 'viewer-busy')
    const hold = gate()
    script = { steps: [{ kind: 'text', chunks: ['Partial ', 'rest'], hold: { after: 1, until: hold.promise } }] }
    const client = await connectChatSocket(`${origin}${chatBase()}/ws?embedToken=${token}`)
    client.send({ input: 'Slow', messageId: messageId(2) })
    await client.waitFor((line) => line.content === 'Partial ')
    await revoke(sessionId)
    const closed = await client.waitForClose()
    hold.open()
    expect(closed.code).toBe(1008)
    expect(client.lines.at(-1)).toEqual({ error: 'Embed session was revoked' })
    expect(client.lines.some((line) => line.id === '__state__')).toBe(false)
  })

  it("leaves the sockets of the account's other sessions open", async () => {
    const revoked = await embedSession(test, 'viewer-gone')
    const kept = await embedSession(test, 'viewer-kept')
    const gone = await connectChatSocket(`${origin}${chatBase()}/ws?embedToken=${revoked.token}`)
    const client = await connectChatSocket(`${origin}${chatBase()}/ws?embedToken=${kept.token}`)
    await revoke(revoked.sessionId)
    await gone.waitForClose()
    client.send({ input: 'Still here', messageId: messageId(3) })
    await client.waitFor(turnEnded)
    expect(client.lines.at(-1)?.id).toBe('__state__')
    expect(client.closed()).toBeUndefined()
  })
})

describe('POST {chat_base_url}/chat/stream-chat-state when the embed session is revoked', () => {
  const stream = (token: string, body: Record<string, unknown>) =>
    test.request('POST', `${chatBase()}/stream-chat-state`, {
      headers: { authorization: `Embed-Token ${token}` },
      body,
    })

  it("ends a stream the session is reading at once with the error line; the account's other sessions read on", async () => {
    const revoked = await embedSession(test, 'reader-gone')
    const kept = await embedSession(test, 'reader-kept')
    const hold = gate()
    script = { steps: [{ kind: 'text', chunks: ['Partial ', 'rest'], hold: { after: 1, until: hold.promise } }] }
    const gone = lineReader(await stream(revoked.token, { input: 'Slow', messageId: messageId(4) }))
    const other = lineReader(await stream(kept.token, { input: 'Slow too', messageId: messageId(5) }))
    while ((await gone.next())?.content !== 'Partial ');
    while ((await other.next())?.content !== 'Partial ');

    expect((await revoke(revoked.sessionId)).status).toBe(204)
    // Before the run ends: the revoked reader gets the error line and nothing of the rest.
    expect(await gone.rest()).toEqual([{ error: 'Embed session was revoked' }])
    hold.open()
    expect((await other.rest()).at(-1)?.id).toBe('__state__')
  })
})
