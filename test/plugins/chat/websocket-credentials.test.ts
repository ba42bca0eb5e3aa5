import { afterEach, beforeEach, describe, expect, it } from 'bun:test'
import { createScriptedAgent } from '../../../plugins/chat/run/scripted-agent'
import { apiKey, createTestApp, testClock, type TestApp } from '../../helpers/app'
import { storedMessages } from '../../helpers/chat-rows'
import { chatBase, messageId } from '../../helpers/chat'
import { connectChatSocket, turnEnded } from '../../helpers/chat-socket'
import { keys, tokenSecrets } from '../../helpers/fixtures'
import { serviceToken } from '../../helpers/tokens'
import { listen } from '../../helpers/transports'

let test: TestApp
let clock: ReturnType<typeof testClock>
let origin: string
beforeEach(() => {
  clock = testClock(Date.now())
  test = createTestApp({ clock, agents: () => createScriptedAgent({ steps: [{ kind: 'text', chunks: ['Hello'] }] }) })
  origin = `ws://127.0.0.1:${listen(test.app).port}`
})
afterEach(async () => {
  await test.app.stop(true)
  await test.close()
})

async function embedSession(externalId: string) {
  const minted = await test.request('POST', '/api/v1/embed/generate-session', {
    headers: apiKey(keys.admin),
    body: { deploymentId: 1, externalId },
  })
  const { sessionId } = (await minted.json()) as { sessionId: string }
  const exchanged = await test.request('POST', '/api/v1/embed/session/token', { body: { sessionId } })
  const { token } = (await exchanged.json()) as { token: string }
  return { sessionId, token }
}

describe('GET {chat_base_url}/chat/ws credential checks', () => {
  it('takes ?embedToken= on the upgrade only: the HTTP chat routes want it as a header', async () => {
    const { token } = await embedSession('viewer-0')
    for (const path of ['stream-chat-state', 'abort']) {
      const inAddress = await test.request('POST', `${chatBase()}/${path}?embedToken=${token}`, {
        body: { input: 'Hi', chatId: 'x' },
      })
      expect({ path, status: inAddress.status, code: (await inAddress.json()).code }).toEqual({
        path,
        status: 401,
        code: 'MISSING_CREDENTIALS',
      })
    }
    const client = await connectChatSocket(`${origin}${chatBase()}/ws?embedToken=${token}`)
    client.send({ input: 'Hi', messageId: messageId(1) })
    await client.waitFor(turnEnded)
    expect(client.lines.at(-1)?.id).toBe('__state__')
    client.close()
  })

  it('ends the next turn with an error line and closes the socket once the embed session is revoked', async () => {
    const { sessionId, token } = await embedSession('viewer-1')
    const client = await connectChatSocket(`${origin}${chatBase()}/ws?embedToken=${token}`)
    client.send({ input: 'Before', messageId: messageId(1) })
    await client.waitFor(turnEnded)
    expect(client.lines.at(-1)?.id).toBe('__state__')

    const revoked = await test.request('POST', '/api/v1/embed/session/revoke', {
      headers: apiKey(keys.admin),
      body: { sessionId },
    })
    expect(revoked.status).toBe(204)
    client.send({ input: 'After', messageId: messageId(2) })
    const closed = await client.waitForClose()
    expect(client.lines.at(-1)).toEqual({ error: 'Embed session was revoked' })
    expect(closed.code).toBe(1008)
    // Nothing of the refused turn was stored: the thread holds the first turn only.
    const users = (await storedMessages(test.storage, 'user')).map(({ content }) => ({ content }))
    expect(users).toEqual([{ content: 'Before' }])
  })

  it('refuses a state read on the socket of a revoked session', async () => {
    const { sessionId, token } = await embedSession('viewer-2')
    const client = await connectChatSocket(`${origin}${chatBase()}/ws`, { authorization: `Embed-Token ${token}` })
    client.send({ input: 'Before' })
    await client.waitFor(turnEnded)
    const chatId = (client.lines[0].state as { chatId: string }).chatId
    await test.request('POST', '/api/v1/embed/session/revoke', { headers: apiKey(keys.admin), body: { sessionId } })
    client.send({ chatId })
    const closed = await client.waitForClose()
    expect(client.lines.at(-1)).toEqual({ error: 'Embed session was revoked' })
    expect(closed.code).toBe(1008)
  })

  it('refuses an abort message on the socket of a revoked session', async () => {
    const { sessionId, token } = await embedSession('viewer-4')
    const client = await connectChatSocket(`${origin}${chatBase()}/ws?embedToken=${token}`)
    client.send({ input: 'Before' })
    await client.waitFor(turnEnded)
    const chatId = (client.lines[0].state as { chatId: string }).chatId
    await test.request('POST', '/api/v1/embed/session/revoke', { headers: apiKey(keys.admin), body: { sessionId } })
    client.send({ type: 'abort', chatId })
    const closed = await client.waitForClose()
    expect(client.lines.at(-1)).toEqual({ error: 'Embed session was revoked' })
    expect(closed.code).toBe(1008)
  })

  it('ends the next turn with an error line and closes the socket once the service token has expired', async () => {
    const expiresAt = Math.floor(clock() / 1000) + 60
    const token = await serviceToken(
      tokenSecrets.deployment2,
      { externalId: 'jwt-user', scope: ['chat'] },
      { expiresIn: expiresAt },
    )
    const client = await connectChatSocket(`${origin}${chatBase('acme', 2)}/ws`, { 'x-service-auth-token': token })
    client.send({ input: 'Within the lifetime' })
    await client.waitFor(turnEnded)
    expect(client.lines.at(-1)?.id).toBe('__state__')

    clock.advance(61_000)
    client.send({ input: 'After exp' })
    const closed = await client.waitForClose()
    expect(client.lines.at(-1)).toEqual({ error: 'Token expired' })
    expect(closed.code).toBe(1008)
    expect((await storedMessages(test.storage, 'user')).map(({ content }) => ({ content }))).toEqual([
      { content: 'Within the lifetime' },
    ])
  })

  it('keeps a socket with a valid credential open across turns', async () => {
    const { token } = await embedSession('viewer-3')
    const client = await connectChatSocket(`${origin}${chatBase()}/ws?embedToken=${token}`)
    client.send({ input: 'One' })
    client.send({ input: 'Two' })
    await client.waitFor((line) => line.id === '__state__', 2)
    expect(client.closed()).toBeUndefined()
    client.close()
  })
})
