import { and, eq, gt, inArray, isNull, sql } from 'drizzle-orm'
import type { Db, Storage } from '../../db/client'
import type { embedSessions } from '../../db/schema'
import { UnauthorizedError } from '../../lib/errors'
import { hashSecret, randomToken } from '../../lib/secrets'
import { preparedPer } from '../../db/prepared'

/** A minted session must be exchanged within this window: a leaked session id is worth little for long. */
export const EXCHANGE_WINDOW_MS = 5 * 60_000
/** Lifetime of the embed token a session is exchanged for. */
export const TOKEN_TTL_MS = 24 * 60 * 60_000

type SessionRow = typeof embedSessions.$inferSelect

/** What a session grants, fixed at mint time. */
export type SessionGrant = Pick<
  SessionRow,
  | 'accountId'
  | 'deploymentId'
  | 'userId'
  | 'embedTenantId'
  | 'creatorMode'
  | 'settings'
  | 'securityContext'
  | 'groups'
  | 'userAttributes'
>

/** An exchanged session, as the embed token is signed from it (`expiresAt` in Unix milliseconds). */
export type ExchangedSession = Pick<SessionRow, 'publicId' | 'userId' | 'deploymentId' | 'expiresAt'>

/**
 * The session lifecycle: mint (the caller gets a 256-bit secret; only its SHA-256 is stored), exchange once within
 * five minutes, revoke, prune. The exchange is one conditional UPDATE, so two racing exchanges cannot both win.
 */
export function createSessionStore(storage: Storage, clock: () => number) {
  const { embedSessions } = storage.tables
  const placeholder = (name: string) => sql`${sql.placeholder(name)}`
  const exchangeStatement = preparedPer((db) =>
    db
      .update(embedSessions)
      .set({ exchangedAt: placeholder('now'), expiresAt: placeholder('expiresAt') })
      .where(
        and(
          eq(embedSessions.secretHash, sql.placeholder('hash')),
          isNull(embedSessions.exchangedAt),
          isNull(embedSessions.revokedAt),
          gt(embedSessions.expiresAt, sql.placeholder('now')),
        ),
      )
      .returning({
        publicId: embedSessions.publicId,
        userId: embedSessions.userId,
        deploymentId: embedSessions.deploymentId,
        expiresAt: embedSessions.expiresAt,
      })
      .prepare(),
  )
  const { insertSession, pruneExpired } = storage.repositories.embedSessions()

  async function pruneIn(tx: Db): Promise<number> {
    return (await pruneExpired(tx).execute({ now: clock() })).length
  }

  return {
    /** Stores a new session and returns its secret `sessionId`. Runs inside the caller's transaction `tx`. */
    async mint(tx: Db, grant: SessionGrant): Promise<string> {
      const sessionId = `es_${randomToken(32)}`
      const now = clock()
      await insertSession(tx).execute({
        publicId: randomToken(16),
        secretHash: hashSecret(sessionId),
        accountId: grant.accountId,
        deploymentId: grant.deploymentId,
        userId: grant.userId,
        embedTenantId: grant.embedTenantId,
        creatorMode: grant.creatorMode,
        settings: grant.settings,
        securityContext: grant.securityContext,
        groups: grant.groups,
        userAttributes: grant.userAttributes,
        createdAt: now,
        expiresAt: now + EXCHANGE_WINDOW_MS,
      })
      return sessionId
    },

    /** Marks the session exchanged; 401 for an unknown, revoked, late or already exchanged one (one message for all). */
    async exchange(sessionId: string): Promise<ExchangedSession> {
      const now = clock()
      const hash = hashSecret(sessionId)
      // In whole seconds, as the token's `exp` carries it: the exchange's `expiresAt`, the token and the session's
      // context then name the same instant (the token died up to a second before the time the exchange gave).
      const expiresAt = Math.floor((now + TOKEN_TTL_MS) / 1000) * 1000
      const [row] = await storage.transaction(async (tx) => exchangeStatement(tx).execute({ now, expiresAt, hash }))
      if (!row)
        throw new UnauthorizedError('Session is unknown, expired, revoked or already exchanged', 'INVALID_SESSION')
      return row
    },

    /**
     * Revokes a session of the account on one of `deploymentScope`'s deployments (any, when `null`); unknown,
     * foreign, out-of-scope and already revoked ids are silently ignored, so the answer never tells them apart.
     */
    async revoke(
      accountId: number,
      sessionId: string,
      deploymentScope: readonly number[] | null = null,
    ): Promise<void> {
      const hash = hashSecret(sessionId)
      await storage.transaction(async (tx) => {
        await tx
          .update(embedSessions)
          .set({ revokedAt: clock() })
          .where(
            and(
              eq(embedSessions.secretHash, hash),
              eq(embedSessions.accountId, accountId),
              isNull(embedSessions.revokedAt),
              deploymentScope === null ? undefined : inArray(embedSessions.deploymentId, [...deploymentScope]),
            ),
          )
      })
    },

    /**
     * Deletes sessions past their exchange window or token lifetime, in `tx` when given (the caller's transaction),
     * else in a transaction of its own. Returns how many. A revoked session is kept until then: its tokens, which
     * the host page may still hold, keep answering `EMBED_SESSION_REVOKED` (the page says "Access was revoked"),
     * not `INVALID_EMBED_TOKEN` as a token of no session would.
     */
    prune(tx?: Db): Promise<number> {
      return tx ? pruneIn(tx) : storage.transaction(pruneIn)
    },
  }
}

export type SessionStore = ReturnType<typeof createSessionStore>
