import { afterEach, beforeEach, describe, expect, it } from 'bun:test'
import { and, eq } from 'drizzle-orm'
import { applyBootstrap } from '../../../src/bootstrap/apply'
import { first, type Storage } from '../../../db/client'
import type { StorageKind } from '../../helpers/storages'
import { testBootstrap } from '../../helpers/fixtures'

let storage: Storage

async function keyId(name: string): Promise<number> {
  const { apiKeys } = storage.tables
  const row = await first(
    storage.db
      .select({ id: apiKeys.id })
      .from(apiKeys)
      .where(and(eq(apiKeys.accountId, 1), eq(apiKeys.name, name))),
  )
  return row!.id
}

async function policyOf(name: string) {
  const { apiKeyPolicies } = storage.tables
  const row = await first(
    storage.db
      .select({ role: apiKeyPolicies.role, actions: apiKeyPolicies.actions, updatedAt: apiKeyPolicies.updatedAt })
      .from(apiKeyPolicies)
      .where(eq(apiKeyPolicies.apiKeyId, await keyId(name))),
  )
  return row ?? null
}

/** How the bootstrap keeps the key policies it names, on each of `kinds` (SQLite here, Postgres in test/e2e/db/). */
export function bootstrapPoliciesContract(kinds: StorageKind[]): void {
  describe.each(kinds)('bootstrap and key policies on $name', (kind) => {
    let dispose: () => Promise<void>
    beforeEach(async () => {
      ;({ storage, dispose } = await kind.open())
    })
    afterEach(() => dispose())

    it('restores the default policy of the keys it names when applied again over a changed database', async () => {
      const { apiKeyPolicies } = storage.tables
      await applyBootstrap(storage, testBootstrap(), 'test', 1000)
      // What a takeover (or a mistake) leaves behind: the unscoped admin key reduced to a viewer.
      const admin = await keyId('admin')
      const member = await keyId('member')
      await storage.transaction((tx) =>
        tx.insert(apiKeyPolicies).values([
          { apiKeyId: admin, role: 'viewer', actions: ['ContentRead'], updatedAt: 2000 },
          { apiKeyId: member, role: 'custom', actions: [], updatedAt: 2000 },
        ]),
      )
      await applyBootstrap(storage, testBootstrap(), 'test', 3000)
      expect(await policyOf('admin')).toBeNull()
      expect(await policyOf('member')).toBeNull()
    })

    it('applies the role a key names, and puts it back at the next start, leaving keys it does not name alone', async () => {
      const { apiKeys, apiKeyPolicies } = storage.tables
      const file = testBootstrap()
      file.accounts[0].apiKeys![1].role = 'viewer'
      await applyBootstrap(storage, file, 'test', 1000)
      expect(await policyOf('member')).toEqual({ role: 'viewer', actions: ['ContentRead'], updatedAt: 1000 })
      // Same file again: nothing to change, so the row stays as it was.
      await applyBootstrap(storage, file, 'test', 2000)
      expect((await policyOf('member'))?.updatedAt).toBe(1000)

      const member = await keyId('member')
      await storage.transaction(async (tx) => {
        await tx
          .update(apiKeyPolicies)
          .set({ role: 'admin', actions: ['SecretsManage'] })
          .where(eq(apiKeyPolicies.apiKeyId, member))
        const [cli] = await tx
          .insert(apiKeys)
          .values({ accountId: 1, name: 'cli-key', keyHash: 'h', keyPrefix: 'ak_cli', admin: true, createdAt: 1 })
          .returning({ id: apiKeys.id })
        await tx
          .insert(apiKeyPolicies)
          .values({ apiKeyId: cli.id, role: 'viewer', actions: ['ContentRead'], updatedAt: 1 })
      })
      await applyBootstrap(storage, file, 'test', 3000)
      expect(await policyOf('member')).toEqual({ role: 'viewer', actions: ['ContentRead'], updatedAt: 3000 })
      expect((await policyOf('cli-key'))?.role).toBe('viewer')
    })
  })
}
