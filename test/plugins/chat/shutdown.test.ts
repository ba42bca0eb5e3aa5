import { afterEach, describe, expect, it } from 'bun:test'
import { createScriptedAgent } from '../../../plugins/chat/run/scripted-agent'
import { apiKey, createTestApp, type TestApp } from '../../helpers/app'
import { chatBase, lineReader, messageId } from '../../helpers/chat'
import { keys } from '../../helpers/fixtures'
import { gate } from '../../helpers/gates'

let test: TestApp | undefined
afterEach(async () => {
  await test?.close()
  test = undefined
})

const admin = apiKey(keys.admin)

describe('a node shutting down', () => {
  it('ends active runs at the start of the drain and refuses new turns with 503 SHUTTING_DOWN', async () => {
    const held = gate()
    test = createTestApp({
      agents: () =>
        createScriptedAgent({
          steps: [{ kind: 'text', chunks: ['Partial', ' and the rest'], hold: { after: 1, until: held.promise } }],
        }),
    })
    const post = (body: Record<string, unknown>) =>
      test!.request('POST', `${chatBase()}/stream-chat-state`, {
        headers: admin,
        body: { sessionSettings: { externalId: 'alice' }, ...body },
      })
    const running = lineReader(await post({ input: 'Hello', messageId: messageId(1) }))
    while ((await running.next())?.content !== 'Partial');

    await test.deps.lifecycle.drain()
    // The run ends at once (its agent is still held): the partial answer, then the error line.
    expect((await running.rest()).at(-1)).toEqual({ error: 'The server is shutting down; the run was interrupted' })
    const refused = await post({ input: 'Another question', messageId: messageId(2) })
    expect(refused.status).toBe(503)
    expect(refused.headers.get('retry-after')).toBe('1')
    expect(await refused.json()).toEqual({ error: 'The server is shutting down; please retry', code: 'SHUTTING_DOWN' })
    const readiness = await test.request('GET', '/readyz')
    expect(readiness.status).toBe(503)
    held.open()
  })
})
