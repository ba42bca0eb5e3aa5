import { eq, sql } from 'drizzle-orm'
import type { Storage } from '../../db/client'
import { UnauthorizedError } from '../../lib/errors'
import { constantTimeEqual, hashSecret } from '../../lib/secrets'
import type { ApiKeyCaller } from './model'

/**
 * Authenticates `Api-Key` credentials. Keys are stored only as SHA-256 hashes; the lookup is by hash and the
 * stored hash is then compared in constant time. Unknown and revoked keys are both 401, with the same message.
 * Valid keys are remembered by hash (every request of a backend sends the same key): keys are created, changed and
 * revoked only by the bootstrap, at start, before the authenticator exists.
 */
export function createApiKeyAuthenticator(storage: Storage) {
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
  const valid = new Map<string, ApiKeyCaller>()
  return async function authenticateApiKey(key: string): Promise<ApiKeyCaller> {
    const hash = hashSecret(key)
    const known = valid.get(hash)
    if (known) return known
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
    valid.set(hash, caller)
    return caller
  }
}
