import { afterEach, describe, expect, it } from 'bun:test'
import { createLogger } from '../../../../lib/logger'
import { apiKey, createTestApp, testAppStorage, type TestApp, redisNode } from '../../../helpers/app'
import { storedMessages } from '../../../helpers/chat-rows'
import { chatBase, messageId } from '../../../helpers/chat'
import { freePort } from '../../../helpers/database-servers'
import { keys } from '../../../helpers/fixtures'

let test: TestApp | undefined
afterEach(async () => {
  await test?.close()
  test = undefined
})

describe('POST {chat_base_url}/chat/stream-chat-state while Redis does not answer', () => {
  it('answers 503 RUN_REGISTRY_UNAVAILABLE with Retry-After, and the refused runs do not count against the user', async () => {
    const storage = testAppStorage()
    const logged: Array<{ level: string; msg: string }> = []
    const logger = createLogger('info', {}, (line) => void logged.push(JSON.parse(line)))
    const url = `redis://127.0.0.1:${await freePort()}`
    test = createTestApp({
      storage,
      logger,
      ...redisNode({ url, storage, logger, prefix: 'test:outage:' }),
    })
    // More than the per-user limit (4): a refused run must give its place back.
    for (let index = 0; index < 6; index++) {
      const response = await test.request('POST', `${chatBase()}/stream-chat-state`, {
        headers: apiKey(keys.admin),
        body: { input: 'Hello', messageId: messageId(index), sessionSettings: { externalId: 'alice' } },
      })
      expect(response.status).toBe(503)
      expect(response.headers.get('retry-after')).toBe('2')
      expect(await response.json()).toEqual({
        error: 'The run registry (Redis) does not answer; please retry shortly',
        code: 'RUN_REGISTRY_UNAVAILABLE',
      })
    }
    // An outage to wait out, told as warnings: nothing at error level, so no alert fires on a bug that is not one.
    expect(logged.filter((entry) => entry.level === 'error')).toEqual([])
    expect(logged.some((entry) => entry.level === 'warn' && entry.msg.startsWith('request refused'))).toBe(true)
    // Nothing was stored for the refused turns.
    expect([...(await storedMessages(storage, 'user')), ...(await storedMessages(storage, 'assistant'))]).toEqual([])
  })
})
