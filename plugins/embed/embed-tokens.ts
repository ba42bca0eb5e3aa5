import { eq, getTableColumns, sql } from 'drizzle-orm'
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose'
import { first, type Storage } from '../../db/client'
import { preparedOnce } from '../../db/prepared'
import { UnauthorizedError } from '../../lib/errors'
import { randomToken } from '../../lib/secrets'
import type { EmbedCaller, EmbedTokenVerifier } from '../auth/model'
import type { ExchangedSession } from './sessions'

const KEY_NAME = 'embed_token_signing_key'
const ISSUER = 'analytics-chat-service'
const AUDIENCE = 'embed'

/**
 * The server's own HS256 key for embed tokens: generated at first start and kept in `server_secrets`, so tokens
 * survive restarts. Insert-if-absent then read makes two processes (or nodes) starting at once agree on one key.
 */
export async function loadSigningKey(storage: Storage, now: number): Promise<Uint8Array> {
  const { serverSecrets } = storage.tables
  const row = await storage.transaction(async (tx) => {
    await tx
      .insert(serverSecrets)
      .values({ name: KEY_NAME, value: randomToken(32), createdAt: now })
      .onConflictDoNothing({ target: serverSecrets.name })
    return first(tx.select({ value: serverSecrets.value }).from(serverSecrets).where(eq(serverSecrets.name, KEY_NAME)))
  })
  return new Uint8Array(Buffer.from(row!.value, 'base64url'))
}

/** Embed tokens: signed at the session exchange, verified on every request that carries one. */
export interface EmbedTokens extends EmbedTokenVerifier {
  sign(session: ExchangedSession): Promise<string>
}

/**
 * Signs and verifies embed tokens. A token names its session (`sid`, the non-secret public id); every check reads
 * the session row (one prepared statement), so a revoked or deleted session's tokens stop working at once and
 * the caller gets exactly the access recorded at mint time.
 */
export function createEmbedTokens(storage: Storage, clock: () => number): EmbedTokens {
  const { accounts, embedSessions } = storage.tables
  // Loaded once, at the first token signed or checked (the factory itself cannot wait for the database).
  let loading: Promise<Uint8Array> | undefined
  const signingKey = () => {
    loading ??= loadSigningKey(storage, clock()).catch((error: unknown) => {
      loading = undefined
      throw error
    })
    return loading
  }
  // Every column of the session (the grant recorded at mint time) and its account's name.
  const sessionByPublicId = preparedOnce(
    storage.db
      .select({ ...getTableColumns(embedSessions), accountName: accounts.name })
      .from(embedSessions)
      .innerJoin(accounts, eq(accounts.id, embedSessions.accountId))
      .where(eq(embedSessions.publicId, sql.placeholder('publicId')))
      .prepare(),
  )

  return {
    async sign(session: ExchangedSession): Promise<string> {
      const key = await signingKey()
      return new SignJWT({ sid: session.publicId, deploymentId: session.deploymentId })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .setSubject(String(session.userId))
        .setIssuedAt(Math.floor(clock() / 1000))
        .setExpirationTime(Math.floor(session.expiresAt / 1000))
        .sign(key)
    },

    async verify(token: string): Promise<EmbedCaller> {
      const key = await signingKey()
      let sid: unknown
      let exp: number | undefined
      try {
        const { payload } = await jwtVerify(token, key, {
          algorithms: ['HS256'],
          issuer: ISSUER,
          audience: AUDIENCE,
          currentDate: new Date(clock()),
        })
        sid = payload.sid
        exp = payload.exp
      } catch (error) {
        if (error instanceof joseErrors.JWTExpired)
          throw new UnauthorizedError('Embed token expired', 'EMBED_TOKEN_EXPIRED')
        throw new UnauthorizedError('Invalid embed token', 'INVALID_EMBED_TOKEN')
      }
      const row = typeof sid === 'string' ? (await sessionByPublicId.execute({ publicId: sid }))[0] : undefined
      if (!row || row.exchangedAt === null) throw new UnauthorizedError('Invalid embed token', 'INVALID_EMBED_TOKEN')
      if (row.revokedAt !== null) throw new UnauthorizedError('Embed session was revoked', 'EMBED_SESSION_REVOKED')
      if (row.expiresAt <= clock()) throw new UnauthorizedError('Embed token expired', 'EMBED_TOKEN_EXPIRED')
      return {
        kind: 'embed',
        accountId: row.accountId,
        accountName: row.accountName,
        deploymentId: row.deploymentId,
        sessionId: sid as string,
        userId: row.userId,
        embedTenantId: row.embedTenantId,
        creatorMode: row.creatorMode,
        groups: row.groups,
        userAttributes: row.userAttributes,
        securityContext: row.securityContext,
        settings: row.settings,
        expiresAt: exp ?? Math.floor(row.expiresAt / 1000),
      }
    },
  }
}
