import { afterEach, describe, expect, it } from 'bun:test'
import { asc, count, eq } from 'drizzle-orm'
import { first, type Storage } from '../../db/client'
import { isUniqueViolation } from '../../db/unique-violation'

/** A fresh, migrated, empty storage, and how to throw it away. */
export type StorageFactory = () => Promise<{ storage: Storage; dispose(): Promise<void> }>

/**
 * What every Storage implementation does alike, run once per backend: transactions commit and roll back as a whole,
 * concurrent ones all land, unique violations are recognised the same way, values come back as they went in, the
 * migrations' triggers keep their counters, and close ends it.
 */
export function describeStorageContract(name: string, factory: StorageFactory): void {
  describe(`Storage on ${name}`, () => {
    const disposals: Array<() => Promise<void>> = []
    afterEach(async () => {
      for (const dispose of disposals.splice(0)) await dispose()
    })
    async function fresh(): Promise<Storage> {
      const { storage, dispose } = await factory()
      disposals.push(dispose)
      return storage
    }
    async function account(storage: Storage, name: string): Promise<number> {
      const { accounts } = storage.tables
      return storage.transaction(async (tx) => {
        const [row] = await tx.insert(accounts).values({ name, plan: 'free', createdAt: 1 }).returning()
        return row.id
      })
    }
    const names = async (storage: Storage) =>
      (await storage.db.select().from(storage.tables.accounts).orderBy(asc(storage.tables.accounts.name))).map(
        (row) => row.name,
      )

    it('commits everything the work wrote, across its awaits, and returns its result', async () => {
      const storage = await fresh()
      const { accounts } = storage.tables
      const result = await storage.transaction(async (tx) => {
        await tx.insert(accounts).values({ name: 'one', plan: 'free', createdAt: 1 })
        await new Promise((resolve) => setTimeout(resolve, 5))
        await tx.insert(accounts).values({ name: 'two', plan: 'free', createdAt: 1 })
        return 'done'
      })
      expect(result).toBe('done')
      expect(await names(storage)).toEqual(['one', 'two'])
    })

    it('rolls back everything when the work throws, and rethrows the error', async () => {
      const storage = await fresh()
      const { accounts } = storage.tables
      const failing = storage.transaction(async (tx) => {
        await tx.insert(accounts).values({ name: 'kept?', plan: 'free', createdAt: 1 })
        throw new Error('no')
      })
      await expect(failing).rejects.toThrow('no')
      expect(await names(storage)).toEqual([])
    })

    it('lands every one of many concurrent transactions, and a failing one rolls back alone', async () => {
      const storage = await fresh()
      const { accounts } = storage.tables
      const outcomes = await Promise.allSettled(
        Array.from({ length: 12 }, (_, index) =>
          storage.transaction(async (tx) => {
            await tx
              .insert(accounts)
              .values({ name: `account ${String(index).padStart(2, '0')}`, plan: 'free', createdAt: 1 })
            await new Promise((resolve) => setTimeout(resolve, index % 3))
            if (index === 5) throw new Error('this one fails')
            await tx
              .update(accounts)
              .set({ plan: 'starter' })
              .where(eq(accounts.name, `account ${String(index).padStart(2, '0')}`))
          }),
        ),
      )
      expect(outcomes.filter((outcome) => outcome.status === 'rejected')).toHaveLength(1)
      const rows = await storage.db.select().from(accounts).orderBy(asc(accounts.name))
      expect(rows.map((row) => row.name)).toEqual(
        Array.from({ length: 12 }, (_, index) => `account ${String(index).padStart(2, '0')}`).filter(
          (name) => name !== 'account 05',
        ),
      )
      expect(new Set(rows.map((row) => row.plan))).toEqual(new Set(['starter']))
    })

    it('recognises a duplicate unique value or primary key as a unique violation, and rolls its transaction back', async () => {
      const storage = await fresh()
      const { accounts, serverSecrets } = storage.tables
      await account(storage, 'taken')
      const duplicate = await storage
        .transaction(async (tx) => {
          await tx.insert(accounts).values({ name: 'written first', plan: 'free', createdAt: 1 })
          await tx.insert(accounts).values({ name: 'taken', plan: 'free', createdAt: 1 })
        })
        .catch((error: unknown) => error)
      expect(isUniqueViolation(duplicate)).toBe(true)
      expect(await names(storage)).toEqual(['taken'])

      await storage.transaction((tx) => tx.insert(serverSecrets).values({ name: 'key', value: 'a', createdAt: 1 }))
      const samePrimaryKey = await storage
        .transaction((tx) => tx.insert(serverSecrets).values({ name: 'key', value: 'b', createdAt: 1 }))
        .catch((error: unknown) => error)
      expect(isUniqueViolation(samePrimaryKey)).toBe(true)
    })

    it('does not take other failures for unique violations', async () => {
      const storage = await fresh()
      const { apiKeys } = storage.tables
      const missingAccount = await storage
        .transaction((tx) =>
          tx.insert(apiKeys).values({ accountId: 999, name: 'k', keyHash: 'h', keyPrefix: 'p', createdAt: 1 }),
        )
        .catch((error: unknown) => error)
      expect(missingAccount).toBeInstanceOf(Error)
      expect(isUniqueViolation(missingAccount)).toBe(false)
      expect(isUniqueViolation(new Error('UNIQUE constraint failed'))).toBe(false)
    })

    it('gives back values as they were written: flags, millisecond times, JSON with its key order and strings', async () => {
      const storage = await fresh()
      const { users, userAttributeDefinitions, userAttributeValues, apiKeys } = storage.tables
      const accountId = await account(storage, 'values')
      const at = Date.UTC(2026, 6, 20, 12, 0, 0, 123)
      await storage.transaction(async (tx) => {
        const [user] = await tx
          .insert(users)
          .values({
            accountId,
            kind: 'external',
            identity: 'u',
            securityContext: { zeta: 1, alpha: ['x', { nested: true }], 'with space': null },
            createdAt: at,
            updatedAt: at,
          })
          .returning()
        const [definition] = await tx
          .insert(userAttributeDefinitions)
          .values({ accountId, name: 'code', type: 'string', createdAt: at })
          .returning()
        // A string that reads as a number stays a string.
        await tx.insert(userAttributeValues).values({ userId: user.id, attributeId: definition.id, value: '123' })
        await tx.insert(apiKeys).values({
          accountId,
          name: 'k',
          keyHash: 'h',
          keyPrefix: 'p',
          admin: true,
          deploymentScope: [3, 1],
          createdAt: at,
        })
      })
      const user = await first(storage.db.select().from(users).where(eq(users.identity, 'u')))
      expect(user?.createdAt).toBe(at)
      expect(Object.keys(user?.securityContext ?? {})).toEqual(['zeta', 'alpha', 'with space'])
      expect(user?.securityContext).toEqual({ zeta: 1, alpha: ['x', { nested: true }], 'with space': null })
      expect((await first(storage.db.select().from(userAttributeValues)))?.value).toBe('123')
      const key = await first(storage.db.select().from(apiKeys))
      expect(key).toMatchObject({ admin: true, deploymentScope: [3, 1], revokedAt: null, createdAt: at })
      expect(await first(storage.db.select({ n: count() }).from(users))).toEqual({ n: 1 })
    })

    it('upserts with onConflictDoUpdate and skips with onConflictDoNothing', async () => {
      const storage = await fresh()
      const { accounts } = storage.tables
      await account(storage, 'upserted')
      await storage.transaction(async (tx) => {
        await tx
          .insert(accounts)
          .values({ name: 'upserted', plan: 'free', createdAt: 2 })
          .onConflictDoUpdate({ target: accounts.name, set: { plan: 'premium' } })
        await tx.insert(accounts).values({ name: 'upserted', plan: 'starter', createdAt: 3 }).onConflictDoNothing()
      })
      expect(await first(storage.db.select().from(accounts))).toMatchObject({
        name: 'upserted',
        plan: 'premium',
        createdAt: 1,
      })
    })

    it('keeps the external-user counter of an account as users come, change kind and go', async () => {
      const storage = await fresh()
      const { users, externalUserCounts } = storage.tables
      const accountId = await account(storage, 'counted')
      const counted = async () =>
        (await first(storage.db.select().from(externalUserCounts).where(eq(externalUserCounts.accountId, accountId))))
          ?.count
      const ids = await storage.transaction(async (tx) => {
        const rows = await tx
          .insert(users)
          .values(
            ['a', 'b', 'c'].map((identity) => ({
              accountId,
              kind: 'external' as const,
              identity,
              createdAt: 1,
              updatedAt: 1,
            })),
          )
          .returning({ id: users.id })
        await tx.insert(users).values({ accountId, kind: 'internal', identity: 'staff', createdAt: 1, updatedAt: 1 })
        return rows.map((row) => row.id)
      })
      expect(await counted()).toBe(3)
      await storage.transaction((tx) => tx.update(users).set({ kind: 'internal' }).where(eq(users.id, ids[0])))
      expect(await counted()).toBe(2)
      await storage.transaction((tx) => tx.delete(users).where(eq(users.id, ids[1])))
      expect(await counted()).toBe(1)
    })

    it('reads committed rows only, never the writes of a transaction still open (which here rolls back)', async () => {
      const storage = await fresh()
      const { accounts } = storage.tables
      await account(storage, 'committed')
      let release = () => {}
      let written = () => {}
      const open = new Promise<void>((resolve) => (written = resolve))
      const failing = storage.transaction(async (tx) => {
        await tx.insert(accounts).values({ name: 'uncommitted', plan: 'free', createdAt: 1 })
        written()
        await new Promise<void>((resolve) => (release = resolve))
        throw new Error('rolled back')
      })
      await open
      const read = storage.readCommitted((db) => db.select({ name: accounts.name }).from(accounts))
      release()
      await expect(failing).rejects.toThrow('rolled back')
      expect((await read).map((row) => row.name)).toEqual(['committed'])
    })

    it('searches text ignoring case beyond ASCII, with the wildcards of the search taken literally', async () => {
      const storage = await fresh()
      const { accounts } = storage.tables
      for (const name of ['Épsilon', 'epsilon 50%', 'epsilon 500', 'ÉPSILON_X', 'epsilonAX'])
        await account(storage, name)
      const found = async (search: string) =>
        (
          await storage.db
            .select({ name: accounts.name })
            .from(accounts)
            .where(storage.text.contains(accounts.name, search))
        )
          .map((row) => row.name)
          .sort()
      expect(await found('épsilon')).toEqual(['ÉPSILON_X', 'Épsilon'])
      expect(await found('EPSILON')).toEqual(['epsilon 50%', 'epsilon 500', 'epsilonAX'])
      expect(await found('50%')).toEqual(['epsilon 50%'])
      expect(await found('n_x')).toEqual(['ÉPSILON_X'])
    })

    it('orders text folded by its rules: case aside, accented capitals with their small letters', async () => {
      const storage = await fresh()
      const { accounts } = storage.tables
      for (const name of ['Éclat', 'delta', 'Beta', 'éclair', 'alpha']) await account(storage, name)
      const rows = await storage.db
        .select({ name: accounts.name })
        .from(accounts)
        .orderBy(storage.text.fold(accounts.name))
      // Unfolded, capitals come first ('Beta' before 'alpha', 'Éclat' before 'éclair').
      expect(rows.map((row) => row.name)).toEqual(['alpha', 'Beta', 'delta', 'éclair', 'Éclat'])
    })

    it('has no write-ahead log for the server to checkpoint when the database is not a SQLite file', async () => {
      expect((await fresh()).writeAheadLog).toBeUndefined()
    })

    it('closes: close settles, a second close too, and queries afterwards fail', async () => {
      const { storage, dispose } = await factory()
      disposals.push(dispose)
      await account(storage, 'before close')
      await storage.close()
      await storage.close()
      await expect(Promise.resolve().then(() => storage.db.select().from(storage.tables.accounts))).rejects.toThrow()
    })
  })
}
