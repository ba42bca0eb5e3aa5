import { afterEach, describe, expect, it } from 'bun:test'
import { SignJWT, type JWTPayload } from 'jose'
import { loadConfig } from '../../../lib/config'
import { createTestApp, type TestApp } from '../../helpers/app'
import { chatBase, messageId, readLines } from '../../helpers/chat'
import { tokenSecrets } from '../../helpers/fixtures'

let test: TestApp
afterEach(() => test?.close())

const now = () => Math.floor(Date.now() / 1000)
const sign = (claims: JWTPayload) =>
  new SignJWT({ sub: 'token-user', scope: ['chat'], ...claims })
    .setProtectedHeader({ alg: 'HS256' })
    .sign(new TextEncoder().encode(tokenSecrets.deployment2))

async function chat(token: string) {
  const response = await test.request('POST', `${chatBase('acme', 2)}/stream-chat-state`, {
    headers: { 'x-service-auth-token': token },
    body: { input: 'Hi', messageId: messageId(1) },
  })
  if (response.status !== 200) return { status: response.status, body: await response.json() }
  return { status: response.status, last: (await readLines(response)).at(-1)?.id }
}

describe('service token lifetime', () => {
  it('returns 401 for a genuine service token without exp', async () => {
    test = createTestApp()
    expect(await chat(await sign({ iat: now() }))).toEqual({
      status: 401,
      body: { error: 'Token must carry an exp claim', code: 'TOKEN_EXP_REQUIRED' },
    })
    expect(await chat(await sign({}))).toMatchObject({ status: 401, body: { code: 'TOKEN_EXP_REQUIRED' } })
  })

  it('returns 401 when exp - iat is over a day, and accepts a day', async () => {
    test = createTestApp()
    const iat = now() - 60
    expect(await chat(await sign({ iat, exp: iat + 86_401 }))).toEqual({
      status: 401,
      body: { error: 'Token lifetime is over the 86400 s this server accepts', code: 'TOKEN_LIFETIME_TOO_LONG' },
    })
    expect(await chat(await sign({ iat, exp: iat + 86_400 }))).toEqual({ status: 200, last: '__state__' })
  })

  it('counts the lifetime from now without iat, and from now when iat lies in the future', async () => {
    test = createTestApp()
    expect(await chat(await sign({ exp: now() + 10 * 86_400 }))).toMatchObject({
      status: 401,
      body: { code: 'TOKEN_LIFETIME_TOO_LONG' },
    })
    const later = now() + 365 * 86_400
    expect(await chat(await sign({ iat: later, exp: later + 3600 }))).toMatchObject({
      status: 401,
      body: { code: 'TOKEN_LIFETIME_TOO_LONG' },
    })
    expect(await chat(await sign({ exp: now() + 3600 }))).toEqual({ status: 200, last: '__state__' })
  })

  it('takes the longest lifetime from SERVICE_TOKEN_MAX_TTL_S', async () => {
    const config = loadConfig({ SERVICE_TOKEN_MAX_TTL_S: '300' })
    expect(config.serviceTokenMaxTtlS).toBe(300)
    expect(loadConfig({}).serviceTokenMaxTtlS).toBe(86_400)
    expect(() => loadConfig({ SERVICE_TOKEN_MAX_TTL_S: '0' })).toThrow(/SERVICE_TOKEN_MAX_TTL_S/)
    test = createTestApp({ config: { serviceTokenMaxTtlS: 300 } })
    expect(await chat(await sign({ iat: now(), exp: now() + 301 }))).toMatchObject({
      status: 401,
      body: { code: 'TOKEN_LIFETIME_TOO_LONG' },
    })
    expect(await chat(await sign({ iat: now(), exp: now() + 300 }))).toEqual({ status: 200, last: '__state__' })
  })

  it('still answers 401 INVALID_TOKEN for a forged token without exp, telling nothing about its claims', async () => {
    test = createTestApp()
    const forged = await new SignJWT({ sub: 'x', scope: ['chat'] })
      .setProtectedHeader({ alg: 'HS256' })
      .sign(new TextEncoder().encode('not-the-secret-0123456789'))
    expect(await chat(forged)).toEqual({ status: 401, body: { error: 'Invalid token', code: 'INVALID_TOKEN' } })
  })
})
