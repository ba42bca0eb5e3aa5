import { afterEach, describe, expect, it } from 'bun:test'
import { eq } from 'drizzle-orm'
import { Elysia } from 'elysia'
import { decodeJwt, SignJWT } from 'jose'
import { authPlugin } from '../../../plugins/auth'
import { corePlugin } from '../../../plugins/core'
import { apiKey, createTestApp, testClock, type TestApp } from '../../helpers/app'
import { keys } from '../../helpers/fixtures'
import { admin, countRows, exchange, generate, mint, send, sessionRows } from './helpers'

let test: TestApp
afterEach(() => test?.close())

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

/** A probe with a deployment route behind `deploymentAccess`, the macro of `.../meta` and `.../sql`. */
function probe(app: TestApp) {
  const probeApp = new Elysia()
    .use(corePlugin(app.deps))
    .use(authPlugin(app.deps))
    .get('/probe/deployments/:deploymentId', ({ caller, deployment }) => ({ deployment: deployment.id, caller }), {
      deploymentAccess: true,
    })
  return async (deploymentId: number, token: string) => {
    const response = await probeApp.handle(
      new Request(`http://localhost/probe/deployments/${deploymentId}`, {
        headers: { authorization: `Embed-Token ${token}` },
      }),
    )
    return { status: response.status, body: (await response.json()) as Record<string, unknown> }
  }
}

async function tokenFor(body: Record<string, unknown>): Promise<string> {
  const response = await exchange(test, await mint(test, body))
  expect(response.status).toBe(200)
  return response.body.token as string
}

describe('POST /api/v1/embed/session/token', () => {
  it('exchanges a session for a 24-hour HS256 embed token carrying exactly the access granted at mint', async () => {
    const clock = testClock()
    test = createTestApp({ clock })
    const sessionId = await mint(test, {
      externalId: 'u1',
      embedTenantName: 'tenant-one',
      creatorMode: true,
      groups: [],
      securityContext: { org: 9 },
      settings: { showDashboardChat: false },
    })
    await mint(test, { externalId: 'u1', groups: ['sales'], userAttributes: [{ name: 'region', value: 'EU' }] })
    // Mid-second: the token's `exp` is in whole seconds, and `expiresAt` names the same instant.
    clock.advance(250)
    const response = await exchange(test, sessionId)
    expect(response.status).toBe(200)
    const token = response.body.token as string
    expect(response.body.expiresAt).toBe(new Date(Math.floor((clock() + 24 * HOUR) / 1000) * 1000).toISOString())
    const claims = decodeJwt(token)
    expect(claims.exp! - claims.iat!).toBe(24 * 3600)
    expect(new Date(claims.exp! * 1000).toISOString()).toBe(response.body.expiresAt as string)
    const get = probe(test)
    const result = await get(1, token)
    expect(result.status).toBe(200)
    expect(result.body.caller).toMatchObject({
      kind: 'embed',
      accountName: 'acme',
      deploymentId: 1,
      creatorMode: true,
      groups: [],
      userAttributes: {},
      securityContext: { org: 9 },
      settings: { showDashboardChat: false },
    })
  })

  it('returns 401 for a second exchange of the same session', async () => {
    test = createTestApp()
    const sessionId = await mint(test, { externalId: 'u1' })
    expect((await exchange(test, sessionId)).status).toBe(200)
    expect(await exchange(test, sessionId)).toEqual({
      status: 401,
      body: { error: 'Session is unknown, expired, revoked or already exchanged', code: 'INVALID_SESSION' },
    })
  })

  it('returns 401 for an exchange 5 minutes or more after minting', async () => {
    const clock = testClock()
    test = createTestApp({ clock })
    const late = await mint(test, { externalId: 'u1' })
    const justInTime = await mint(test, { externalId: 'u1' })
    clock.advance(5 * MINUTE - 1)
    expect((await exchange(test, justInTime)).status).toBe(200)
    clock.advance(1)
    expect(await exchange(test, late)).toEqual({
      status: 401,
      body: { error: 'Session is unknown, expired, revoked or already exchanged', code: 'INVALID_SESSION' },
    })
  })

  it('deletes expired sessions when the next one is minted, revoked ones once their time is up, and keeps the live ones', async () => {
    const clock = testClock()
    test = createTestApp({ clock })
    await mint(test, { externalId: 'u1' })
    const revoked = await mint(test, { externalId: 'u2' })
    const token = (await exchange(test, revoked)).body.token as string
    expect((await send(test, 'POST', '/api/v1/embed/session/revoke', admin, { sessionId: revoked })).status).toBe(204)
    clock.advance(5 * MINUTE)
    const live = await mint(test, { externalId: 'u3' })
    // The first session expired unexchanged and is gone; the revoked one stays while its token could be used, so the
    // token still says it was revoked (the page then says so) rather than that it names no session.
    expect(await countRows(test, 'embed_sessions')).toBe(2)
    expect(await probe(test)(1, token)).toEqual({
      status: 401,
      body: { error: 'Embed session was revoked', code: 'EMBED_SESSION_REVOKED' },
    })
    expect((await exchange(test, live)).status).toBe(200)
    clock.advance(DAY)
    await mint(test, { externalId: 'u4' })
    // The revoked session's token would have expired by now, and the exchanged live one's too: only the new one is left.
    expect(await countRows(test, 'embed_sessions')).toBe(1)
  })

  it('returns 401 for an unknown session id and 400 for a body without one', async () => {
    test = createTestApp()
    expect((await exchange(test, 'es_not-a-session')).status).toBe(401)
    const missing = await send(test, 'POST', '/api/v1/embed/session/token', {}, {})
    expect(missing).toEqual({
      status: 400,
      body: { error: expect.stringMatching(/^sessionId: /), code: 'VALIDATION_FAILED' },
    })
  })

  it('allows exactly one of many concurrent exchanges', async () => {
    test = createTestApp()
    const sessionId = await mint(test, { externalId: 'u1' })
    const results = await Promise.all(Array.from({ length: 8 }, () => exchange(test, sessionId)))
    expect(results.map((result) => result.status).sort()).toEqual([200, 401, 401, 401, 401, 401, 401, 401])
  })
})

describe('embed token verification', () => {
  it('returns 401 once the session is revoked, and revocation is 204 also for unknown or revoked ids', async () => {
    test = createTestApp()
    const sessionId = await mint(test, { externalId: 'u1' })
    const token = (await exchange(test, sessionId)).body.token as string
    const get = probe(test)
    expect((await get(1, token)).status).toBe(200)
    expect((await send(test, 'POST', '/api/v1/embed/session/revoke', admin, { sessionId })).status).toBe(204)
    expect(await get(1, token)).toEqual({
      status: 401,
      body: { error: 'Embed session was revoked', code: 'EMBED_SESSION_REVOKED' },
    })
    expect((await send(test, 'POST', '/api/v1/embed/session/revoke', admin, { sessionId })).status).toBe(204)
    expect((await send(test, 'POST', '/api/v1/embed/session/revoke', admin, { sessionId: 'es_unknown' })).status).toBe(
      204,
    )
  })

  it('makes a revoked, not yet exchanged session unexchangeable', async () => {
    test = createTestApp()
    const sessionId = await mint(test, { externalId: 'u1' })
    await send(test, 'POST', '/api/v1/embed/session/revoke', admin, { sessionId })
    expect((await exchange(test, sessionId)).status).toBe(401)
  })

  it("requires an admin key to revoke, and never revokes another account's session", async () => {
    test = createTestApp()
    const sessionId = await mint(test, { externalId: 'u1' })
    const member = await send(test, 'POST', '/api/v1/embed/session/revoke', apiKey(keys.member), { sessionId })
    expect(member).toEqual({
      status: 403,
      body: { error: 'This operation requires an admin API key', code: 'ADMIN_REQUIRED' },
    })
    expect(
      (await send(test, 'POST', '/api/v1/embed/session/revoke', apiKey(keys.otherAdmin), { sessionId })).status,
    ).toBe(204)
    expect((await sessionRows(test)).map((row) => row.revokedAt)).toEqual([null])
    expect((await exchange(test, sessionId)).status).toBe(200)
  })

  it('returns 403 for an embed token on an API-key route', async () => {
    test = createTestApp()
    const token = await tokenFor({ externalId: 'u1' })
    const response = await generate(
      test,
      { deploymentId: 1, externalId: 'u2' },
      { authorization: `Embed-Token ${token}` },
    )
    expect(response).toEqual({
      status: 403,
      body: { error: 'Embed tokens cannot be used on this route', code: 'EMBED_TOKEN_NOT_ALLOWED' },
    })
    expect(await countRows(test, 'embed_sessions')).toBe(1)
    const tenants = await send(test, 'GET', '/api/v1/embed-tenants/tenant-one/groups', {
      authorization: `Embed-Token ${token}`,
    })
    expect(tenants.status).toBe(403)
  })

  it("returns 403 for a token on another deployment's route", async () => {
    test = createTestApp()
    const token = await tokenFor({ externalId: 'u1' })
    const get = probe(test)
    expect((await get(1, token)).status).toBe(200)
    expect(await get(2, token)).toEqual({
      status: 403,
      body: { error: 'Credential is not valid for deployment 2', code: 'DEPLOYMENT_OUT_OF_SCOPE' },
    })
  })

  it('returns 401 after 24 hours', async () => {
    const clock = testClock()
    test = createTestApp({ clock })
    const token = await tokenFor({ externalId: 'u1' })
    const get = probe(test)
    clock.advance(24 * HOUR - 1000)
    expect((await get(1, token)).status).toBe(200)
    clock.advance(1000)
    expect(await get(1, token)).toEqual({
      status: 401,
      body: { error: 'Embed token expired', code: 'EMBED_TOKEN_EXPIRED' },
    })
  })

  it('returns 401 for a tampered token and for one signed with another key', async () => {
    test = createTestApp()
    const token = await tokenFor({ externalId: 'u1' })
    const [header, payload, signature] = token.split('.')
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString())
    const widened = Buffer.from(JSON.stringify({ ...claims, deploymentId: 2 })).toString('base64url')
    const get = probe(test)
    expect(await get(1, `${header}.${widened}.${signature}`)).toEqual({
      status: 401,
      body: { error: 'Invalid embed token', code: 'INVALID_EMBED_TOKEN' },
    })
    const forged = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256' })
      .sign(new TextEncoder().encode('guess'))
    expect((await get(1, forged)).status).toBe(401)
  })

  it('keeps the signing key in server_secrets, so tokens survive a restart', async () => {
    test = createTestApp()
    const token = await tokenFor({ externalId: 'u1' })
    expect(
      await countRows(test, 'server_secrets', eq(test.storage.tables.serverSecrets.name, 'embed_token_signing_key')),
    ).toBe(1)
    const restarted = createTestApp({ storage: test.storage })
    const response = await probe(restarted)(1, token)
    expect(response.status).toBe(200)
    await restarted.deps.lifecycle.shutdown()
  })

  it('stops the tokens of a deleted embed tenant', async () => {
    test = createTestApp()
    const token = await tokenFor({ externalId: 'u1', embedTenantName: 'tenant-two' })
    expect((await send(test, 'DELETE', '/api/v1/embed-tenants/tenant-two')).status).toBe(204)
    expect((await probe(test)(1, token)).status).toBe(401)
  })
})

describe('embed session pruning', () => {
  it('deletes unexchanged sessions past 5 minutes and exchanged ones past 24 hours when a session is minted', async () => {
    const clock = testClock()
    test = createTestApp({ clock })
    await mint(test, { externalId: 'never-exchanged' })
    const exchanged = await mint(test, { externalId: 'exchanged' })
    await exchange(test, exchanged)
    clock.advance(5 * MINUTE)
    await mint(test, { externalId: 'trigger' })
    expect((await sessionRows(test)).length).toBe(2)
    clock.advance(24 * HOUR)
    await mint(test, { externalId: 'trigger' })
    expect((await sessionRows(test)).length).toBe(1)
  })
})
