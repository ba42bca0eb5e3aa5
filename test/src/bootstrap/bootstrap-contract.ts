import { afterEach, beforeEach, describe, expect, it } from 'bun:test'
import { asc, eq, getTableColumns, type Table } from 'drizzle-orm'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { applyBootstrap } from '../../../src/bootstrap/apply'
import type { Storage } from '../../../db/client'
import { hashSecret } from '../../../lib/secrets'
import type { StorageKind } from '../../helpers/storages'
import { testBootstrap } from '../../helpers/fixtures'

const TABLES = [
  'accounts',
  'apiKeys',
  'deployments',
  'deploymentBranches',
  'agents',
  'users',
  'groups',
  'userAttributeDefinitions',
  'embedTenants',
] as const

/** Every row of the bootstrap's tables, ordered by their first two columns. */
async function snapshot(storage: Storage): Promise<Record<string, unknown[]>> {
  const entries = await Promise.all(
    TABLES.map(async (name) => {
      const table = storage.tables[name] as Table
      const [a, b] = Object.values(getTableColumns(table))
      return [name, await storage.db.select().from(table).orderBy(asc(a), asc(b))] as const
    }),
  )
  return Object.fromEntries(entries)
}

export function withTempDir<T>(work: (dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'bootstrap-test-'))
  try {
    return work(dir)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** applyBootstrap's rules on each of `kinds` (SQLite here, Postgres in test/e2e/src/bootstrap/bootstrap.test.ts). */
export function applyBootstrapContract(kinds: StorageKind[]): void {
  describe.each(kinds)('applyBootstrap on $name', (kind) => {
    let storage: Storage
    let dispose: () => Promise<void>
    beforeEach(async () => {
      ;({ storage, dispose } = await kind.open())
    })
    afterEach(() => dispose())

    it('yields the same rows when the same file is applied twice', async () => {
      await applyBootstrap(storage, testBootstrap(), 'test', 1000)
      const first = await snapshot(storage)
      await applyBootstrap(storage, testBootstrap(), 'test', 2000)
      expect(await snapshot(storage)).toEqual(first)
      expect(first.accounts.length).toBe(3)
      expect(first.apiKeys.length).toBe(6)
    })

    it('stores API keys only as hashes', async () => {
      await applyBootstrap(storage, testBootstrap(), 'test')
      const dump = JSON.stringify(await storage.db.select().from(storage.tables.apiKeys))
      for (const key of testBootstrap().accounts.flatMap((account) => account.apiKeys ?? [])) {
        expect(dump).not.toContain(key.key)
        expect(dump).toContain(hashSecret(key.key))
      }
    })

    it('updates what the file changes and keeps what it no longer names', async () => {
      const { accounts, groups } = storage.tables
      await applyBootstrap(storage, testBootstrap(), 'test')
      const changed = testBootstrap()
      changed.accounts[0].plan = 'premium'
      changed.accounts[0].groups = [{ name: 'sales', description: 'Renamed team' }]
      await applyBootstrap(storage, changed, 'test')
      expect(await storage.db.select({ plan: accounts.plan }).from(accounts).where(eq(accounts.name, 'acme'))).toEqual([
        { plan: 'premium' },
      ])
      const rows = await storage.db
        .select({ name: groups.name, description: groups.description })
        .from(groups)
        .where(eq(groups.accountId, 1))
        .orderBy(asc(groups.name))
      expect(rows).toEqual([
        { name: 'marketing', description: null },
        { name: 'ops', description: null },
        { name: 'sales', description: 'Renamed team' },
      ])
    })

    it('changes nothing when a later entry fails inside the transaction', async () => {
      await applyBootstrap(storage, testBootstrap(), 'test')
      const before = await snapshot(storage)
      const broken = testBootstrap()
      broken.accounts[0].plan = 'starter'
      broken.accounts[2].deployments = [{ id: 1, name: 'Stolen deployment' }]
      await expect(applyBootstrap(storage, broken, 'test')).rejects.toThrow(
        'accounts[2].deployments[0].id: deployment 1 already belongs to another account',
      )
      expect(await snapshot(storage)).toEqual(before)
    })

    it("refuses a key whose secret is already another stored key's, and changes nothing", async () => {
      await applyBootstrap(storage, testBootstrap(), 'test')
      const before = await snapshot(storage)
      // The secret moves to a key of another name (another account here): valid as a file, but the stored key holds it.
      const moved = testBootstrap()
      const secret = moved.accounts[0].apiKeys![1].key
      moved.accounts[0].apiKeys!.splice(1, 1)
      moved.accounts[2].apiKeys!.push({ name: 'taken', key: secret })
      const failure = applyBootstrap(storage, moved, 'test')
      await expect(failure).rejects.toThrow(
        'accounts[2].apiKeys[1].key: already the secret of another stored key; give this key a new secret',
      )
      await failure.catch((error: Error) => expect(error.message).not.toContain(secret))
      expect(await snapshot(storage)).toEqual(before)
    })

    it('refuses to change the type of an existing attribute, naming it', async () => {
      await applyBootstrap(storage, testBootstrap(), 'test')
      const changed = testBootstrap()
      changed.accounts[0].userAttributes![0].type = 'number'
      await expect(applyBootstrap(storage, changed, 'test')).rejects.toThrow(
        'accounts[0].userAttributes[0].type: cannot change type of region',
      )
    })

    it("gives an account with a deployment on the demo model the demo policy's region attribute", async () => {
      const { userAttributeDefinitions } = storage.tables
      const file = {
        accounts: [
          { name: 'on-demo', plan: 'free' as const, deployments: [{ id: 41, name: 'Demo model' }] },
          {
            name: 'own-region',
            plan: 'free' as const,
            userAttributes: [{ name: 'region', type: 'string_array' as const }],
            deployments: [{ id: 42, name: 'Also demo', model: 'demo' }],
          },
          { name: 'no-demo', plan: 'free' as const, deployments: [{ id: 43, name: 'Own model', model: './models' }] },
        ],
      }
      await applyBootstrap(storage, file, 'test')
      await applyBootstrap(storage, file, 'test')
      const rows = await storage.db
        .select({
          accountId: userAttributeDefinitions.accountId,
          name: userAttributeDefinitions.name,
          type: userAttributeDefinitions.type,
        })
        .from(userAttributeDefinitions)
        .orderBy(asc(userAttributeDefinitions.accountId))
      expect(rows).toEqual([
        { accountId: 1, name: 'region', type: 'string' },
        { accountId: 2, name: 'region', type: 'string_array' },
      ])
    })

    it('lets several nodes apply the same file at once: the rows are those of applying it once', async () => {
      await Promise.all([1, 2, 3].map(() => applyBootstrap(storage, testBootstrap(), 'test', 1000)))
      const together = await snapshot(storage)
      expect(together.accounts.length).toBe(3)
      expect(together.apiKeys.length).toBe(6)
      await applyBootstrap(storage, testBootstrap(), 'test', 1000)
      expect(await snapshot(storage)).toEqual(together)
    })
  })
}
