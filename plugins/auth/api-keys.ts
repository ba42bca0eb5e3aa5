import type { Storage } from '../../db/client'
import { UnauthorizedError } from '../../src/errors'
import { constantTimeEqual, hashSecret } from '../../src/secrets'
import type { ApiKeyCaller } from './model'

interface KeyRow {
  id: number
  accountId: number
  accountName: string
  keyHash: string
  admin: number
  deploymentScope: string | null
  revokedAt: number | null
}

/**
 * Authenticates `Api-Key` credentials. Keys are stored only as SHA-256 hashes; the lookup is by hash and the
 * stored hash is then compared in constant time. Unknown and revoked keys are both 401, with the same message.
 * Valid keys are remembered by hash (every request of a backend sends the same key): keys are created, changed and
 * revoked only by the bootstrap, at start, before the authenticator exists.
 */
export function createApiKeyAuthenticator(storage: Storage) {
  const byHash = storage.sqlite.query<KeyRow, [string]>(
    `SELECT k.id AS id, k.account_id AS accountId, a.name AS accountName, k.key_hash AS keyHash, k.admin AS admin,
            k.deployment_scope AS deploymentScope, k.revoked_at AS revokedAt
       FROM api_keys k JOIN accounts a ON a.id = k.account_id
      WHERE k.key_hash = ?`,
  )
  const valid = new Map<string, ApiKeyCaller>()
  return function authenticateApiKey(key: string): ApiKeyCaller {
    const hash = hashSecret(key)
    const known = valid.get(hash)
    if (known) return known
    const row = byHash.get(hash)
    if (!row || !constantTimeEqual(row.keyHash, hash) || row.revokedAt !== null)
      throw new UnauthorizedError('Invalid or revoked API key', 'INVALID_API_KEY')
    const caller: ApiKeyCaller = {
      kind: 'apiKey',
      accountId: row.accountId,
      accountName: row.accountName,
      keyId: row.id,
      admin: row.admin === 1,
      deploymentScope: row.deploymentScope === null ? null : (JSON.parse(row.deploymentScope) as number[]),
    }
    valid.set(hash, caller)
    return caller
  }
}
