import { eq, sql } from 'drizzle-orm'
import type { Storage } from '../../db/client'
import type { ClusterBus } from '../../lib/cluster-bus'
import { UnauthorizedError } from '../../lib/errors'
import { constantTimeEqual, hashSecret } from '../../lib/secrets'
import type { ApiKeyCaller } from './model'

/**
 * How long a node that shares its storage with others answers from a key it keeps in memory: another node's start
 * may apply a bootstrap file that revokes, demotes or rescopes it. The change is announced over the cluster bus
 * (`bootstrap-applied`); this bounds it should the announcement be lost.
 */
export const API_KEYS_MAX_AGE_MS = 5_000

/**
 * Authenticates `Api-Key` credentials. Keys are stored only as SHA-256 hashes; the lookup is by hash and the
 * stored hash is then compared in constant time. Unknown and revoked keys are both 401, with the same message.
 * Valid keys are remembered by hash (every request of a backend sends the same key): keys are changed and revoked
 * only by the bootstrap, at a start. One process applied it before the authenticator existed, so it keeps them
 * for good; several nodes (a `shared` cluster bus) read a key again when another node's start announces it applied
 * the bootstrap, and at least every `API_KEYS_MAX_AGE_MS`, so a key revoked there stops working here too.
 */
export function createApiKeyAuthenticator(
  storage: Storage,
  cluster?: { bus: Pick<ClusterBus, 'shared' | 'subscribe'>; clock: () => number },
) {
  const { accounts, apiKeys } = storage.tables
  const byHash = storage.db
    .select({
      id: apiKeys.id,
      accountId: apiKeys.accountId,
      accountName: accounts.name,
      keyHash: apiKeys.keyHash,
      admin: apiKeys.admin,
      deploymentScope: apiKeys.deploymentScope,
      revokedAt: apiKeys.revokedAt,
    })
    .from(apiKeys)
    .innerJoin(accounts, eq(accounts.id, apiKeys.accountId))
    .where(eq(apiKeys.keyHash, sql.placeholder('hash')))
    .prepare()
  const valid = new Map<string, { caller: ApiKeyCaller; readAt: number }>()
  const shared = cluster?.bus.shared === true
  const now = cluster?.clock ?? (() => 0)
  // Raised by each announcement: a read under way when one came may hold the key as it was, and is not kept.
  let generation = 0
  if (cluster && shared)
    cluster.bus.subscribe((event) => {
      // Back on the bus after losing it: announcements made meanwhile never came.
      if (event.type === 'bootstrap-applied' || event.type === 'embed-sessions-recheck') {
        generation++
        valid.clear()
      }
    })
  return async function authenticateApiKey(key: string): Promise<ApiKeyCaller> {
    const hash = hashSecret(key)
    const known = valid.get(hash)
    if (known && (!shared || now() - known.readAt < API_KEYS_MAX_AGE_MS)) return known.caller
    valid.delete(hash)
    const readAt = now()
    const readIn = generation
    const [row] = await byHash.execute({ hash })
    if (!row || !constantTimeEqual(row.keyHash, hash) || row.revokedAt !== null)
      throw new UnauthorizedError('Invalid or revoked API key', 'INVALID_API_KEY')
    const caller: ApiKeyCaller = {
      kind: 'apiKey',
      accountId: row.accountId,
      accountName: row.accountName,
      keyId: row.id,
      admin: row.admin,
      deploymentScope: row.deploymentScope ?? null,
    }
    if (readIn === generation) valid.set(hash, { caller, readAt })
    return caller
  }
}
