import type { Storage } from '../../db/client'
import type { embedSessions } from '../../db/schema'
import { UnauthorizedError } from '../../lib/errors'
import { hashSecret, randomToken } from '../../lib/secrets'

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
  const { sqlite } = storage
  const exchangeStatement = sqlite.query<ExchangedSession, [number, number, string, number]>(
    `UPDATE embed_sessions SET exchanged_at = ?1, expires_at = ?2
      WHERE secret_hash = ?3 AND exchanged_at IS NULL AND revoked_at IS NULL AND expires_at > ?4
      RETURNING public_id AS publicId, user_id AS userId, deployment_id AS deploymentId, expires_at AS expiresAt`,
  )
  const revokeStatement = sqlite.query<unknown, [number, string, number, string | null]>(
    `UPDATE embed_sessions SET revoked_at = ?1
      WHERE secret_hash = ?2 AND account_id = ?3 AND revoked_at IS NULL
        AND (?4 IS NULL OR deployment_id IN (SELECT value FROM json_each(?4)))`,
  )
  // Two statements rather than one OR, so each uses its index (embed_sessions_expires, embed_sessions_revoked).
  const pruneExpired = sqlite.query<unknown, [number]>('DELETE FROM embed_sessions WHERE expires_at <= ?1')
  const pruneRevoked = sqlite.query<unknown, []>('DELETE FROM embed_sessions WHERE revoked_at IS NOT NULL')
  const insertSession = sqlite.query<
    unknown,
    [string, string, number, number, number, number | null, number, string, string, string, string, number, number]
  >(
    `INSERT INTO embed_sessions (public_id, secret_hash, account_id, deployment_id, user_id, embed_tenant_id, creator_mode, settings,
                                 security_context, groups, user_attributes, created_at, expires_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  )

  return {
    /** Stores a new session and returns its secret `sessionId`. Runs inside the caller's transaction. */
    mint(grant: SessionGrant): string {
      const sessionId = `es_${randomToken(32)}`
      const now = clock()
      insertSession.run(
        randomToken(16),
        hashSecret(sessionId),
        grant.accountId,
        grant.deploymentId,
        grant.userId,
        grant.embedTenantId,
        grant.creatorMode ? 1 : 0,
        JSON.stringify(grant.settings),
        JSON.stringify(grant.securityContext),
        JSON.stringify(grant.groups),
        JSON.stringify(grant.userAttributes),
        now,
        now + EXCHANGE_WINDOW_MS,
      )
      return sessionId
    },

    /** Marks the session exchanged; 401 for an unknown, revoked, late or already exchanged one (one message for all). */
    exchange(sessionId: string): ExchangedSession {
      const now = clock()
      const row = exchangeStatement.get(now, now + TOKEN_TTL_MS, hashSecret(sessionId), now)
      if (!row)
        throw new UnauthorizedError('Session is unknown, expired, revoked or already exchanged', 'INVALID_SESSION')
      return row
    },

    /**
     * Revokes a session of the account on one of `deploymentScope`'s deployments (any, when `null`); unknown,
     * foreign, out-of-scope and already revoked ids are silently ignored, so the answer never tells them apart.
     */
    revoke(accountId: number, sessionId: string, deploymentScope: readonly number[] | null = null): void {
      revokeStatement.run(
        clock(),
        hashSecret(sessionId),
        accountId,
        deploymentScope === null ? null : JSON.stringify(deploymentScope),
      )
    },

    /** Deletes sessions past their exchange window or token lifetime, and revoked ones. Returns how many. */
    prune(): number {
      return pruneExpired.run(clock()).changes + pruneRevoked.run().changes
    },
  }
}

export type SessionStore = ReturnType<typeof createSessionStore>
