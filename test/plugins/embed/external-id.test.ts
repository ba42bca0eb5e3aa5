import { afterEach, describe, expect, it } from 'bun:test'
import { asc, eq } from 'drizzle-orm'
import { createScriptedAgent } from '../../../plugins/chat/run/scripted-agent'
import { apiKey, createTestApp, type TestApp } from '../../helpers/app'
import { chatBase, messageId, readLines } from '../../helpers/chat'
import { keys, tokenSecrets } from '../../helpers/fixtures'
import { serviceToken } from '../../helpers/tokens'
import { countRows, storedAttributeValues } from './helpers'

let test: TestApp
afterEach(() => test?.close())

const INVALID = { error: 'externalId must be lowercase and trimmed', code: 'INVALID_EXTERNAL_ID' }
const SPELLINGS = ['Acme-7', 'ACME-7', ' acme-7', 'acme-7 ', 'acme-7\n']

const externalUsers = () => {
  const { users } = test.storage.tables
  return test.storage.db
    .select({ identity: users.identity })
    .from(users)
    .where(eq(users.kind, 'external'))
    .orderBy(asc(users.identity))
}

describe('externalId is never normalized', () => {
  it('returns 400 for a chat sessionSettings.externalId that is not lowercase and trimmed, before the stream', async () => {
    test = createTestApp({ agents: () => createScriptedAgent(() => ({ steps: [{ kind: 'text', chunks: ['ok'] }] })) })
    const chat = (externalId: string, region: string, n: number) =>
      test.request('POST', `${chatBase()}/stream-chat-state`, {
        headers: apiKey(keys.admin),
        body: {
          input: 'Hi',
          messageId: messageId(n),
          sessionSettings: { externalId, userAttributes: [{ name: 'region', value: region }] },
        },
      })
    const first = await chat('acme-7', 'EU', 1)
    expect(first.status).toBe(200)
    expect((await readLines(first)).at(-1)?.id).toBe('__state__')
    for (const [index, externalId] of SPELLINGS.entries()) {
      const response = await chat(externalId, 'US', index + 2)
      expect({ externalId, status: response.status, body: await response.json() }).toEqual({
        externalId,
        status: 400,
        body: INVALID,
      })
    }
    expect(await externalUsers()).toEqual([{ identity: 'acme-7' }])
    expect(await storedAttributeValues(test)).toEqual([{ value: '"EU"' }])
    expect(await countRows(test, 'chat_threads')).toBe(1)
  })

  it('returns 400 for such an externalId in the sessionSettings of the SQL API too', async () => {
    test = createTestApp()
    const response = await test.request('POST', '/api/v1/deployments/1/sql', {
      headers: apiKey(keys.admin),
      body: { query: 'SELECT MEASURE(orders.count) FROM orders', sessionSettings: { externalId: 'Acme-7' } },
    })
    expect({ status: response.status, body: await response.json() }).toEqual({ status: 400, body: INVALID })
    expect(await externalUsers()).toEqual([])
  })

  it('still matches internalId lowercased and trimmed', async () => {
    test = createTestApp()
    const response = await test.request('POST', '/api/v1/embed/generate-session', {
      headers: apiKey(keys.admin),
      body: { deploymentId: 1, internalId: '  ALICE@acme.com ' },
    })
    expect(response.status).toBe(200)
  })

  it('returns 401 for a service token whose externalId or sub claim is not lowercase and trimmed', async () => {
    test = createTestApp()
    const post = async (claims: Record<string, unknown>) => {
      const token = await serviceToken(tokenSecrets.deployment2, { scope: ['chat'], ...claims })
      const response = await test.request('POST', `${chatBase('acme', 2)}/stream-chat-state`, {
        headers: { 'x-service-auth-token': token },
        body: { input: 'Hi', messageId: messageId(1) },
      })
      return {
        status: response.status,
        body: (await response.json().catch(() => null)) as Record<string, unknown> | null,
      }
    }
    expect(await post({ externalId: 'Acme-7' })).toEqual({
      status: 401,
      body: {
        error: 'Token claim externalId must be lowercase and trimmed: it names an external user',
        code: 'INVALID_EXTERNAL_ID',
      },
    })
    expect(await post({ sub: ' acme-7' })).toMatchObject({ status: 401, body: { code: 'INVALID_EXTERNAL_ID' } })
    expect(await post({ sub: 'ACME-7', externalId: 'acme-7' })).toMatchObject({ status: 200 })
    expect(await externalUsers()).toEqual([{ identity: 'acme-7' }])
  })
})

describe('an identity with an unpaired surrogate', () => {
  it('is 400 on generate-session and the chat, and 401 in a service token, instead of sharing one stored user', async () => {
    test = createTestApp({ agents: () => createScriptedAgent(() => ({ steps: [{ kind: 'text', chunks: ['ok'] }] })) })
    // Stored as UTF-8, both would read back as "sur\uFFFD": the second caller would get the first one's attributes.
    for (const externalId of ['sur\uD800', 'sur\uDBFF', '\uDC00x']) {
      const minted = await test.request('POST', '/api/v1/embed/generate-session', {
        headers: apiKey(keys.admin),
        body: { deploymentId: 1, externalId, userAttributes: [{ name: 'region', value: 'Asia' }] },
      })
      expect({ externalId, status: minted.status, body: await minted.json() }).toEqual({
        externalId,
        status: 400,
        body: {
          error: 'Text must be well-formed Unicode: externalId has an unpaired surrogate',
          code: 'UNPAIRED_SURROGATE',
        },
      })
      const chat = await test.request('POST', `${chatBase()}/stream-chat-state`, {
        headers: apiKey(keys.admin),
        body: { input: 'Hi', sessionSettings: { externalId } },
      })
      expect({ externalId, status: chat.status }).toEqual({ externalId, status: 400 })
    }
    const internal = await test.request('POST', '/api/v1/embed/generate-session', {
      headers: apiKey(keys.admin),
      body: { deploymentId: 1, internalId: 'alice\uD800' },
    })
    expect({ status: internal.status, body: await internal.json() }).toMatchObject({
      status: 400,
      body: { error: 'Text must be well-formed Unicode: internalId has an unpaired surrogate' },
    })
    const token = await serviceToken(tokenSecrets.deployment2, { scope: ['chat'], externalId: 'sur\uD800' })
    const claimed = await test.request('POST', `${chatBase('acme', 2)}/stream-chat-state`, {
      headers: { 'x-service-auth-token': token },
      body: { input: 'Hi', messageId: messageId(1) },
    })
    expect({ status: claimed.status, body: await claimed.json() }).toEqual({
      status: 401,
      body: { error: 'Token claim externalId must be well-formed Unicode text', code: 'INVALID_EXTERNAL_ID' },
    })
    // A well-formed id with U+FFFD of its own is a user like any other.
    const replacement = await test.request('POST', '/api/v1/embed/generate-session', {
      headers: apiKey(keys.admin),
      body: { deploymentId: 1, externalId: 'sur\uFFFD' },
    })
    expect(replacement.status).toBe(200)
    expect(await externalUsers()).toEqual([{ identity: 'sur\uFFFD' }])
  })
})
