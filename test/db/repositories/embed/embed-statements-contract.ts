import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { and, eq, inArray } from 'drizzle-orm'
import type { Db, Storage } from '../../../../db/client'
import type { NewSession } from '../../../../db/repositories/embed'
import type { StorageKind } from '../../../helpers/storages'

/** One account with a deployment, an embed tenant, a second account, and ids to build on. */
interface Seeded {
  accountId: number
  otherAccountId: number
  deploymentId: number
  tenantId: number
  otherTenantId: number
  userId: number
}

async function seed(storage: Storage): Promise<Seeded> {
  const { accounts, deployments, embedTenants, users } = storage.tables
  return storage.transaction(async (tx) => {
    const [account, other] = await tx
      .insert(accounts)
      .values([
        { name: 'acme', plan: 'enterprise', maxExternalUsers: 5, createdAt: 1 },
        { name: 'globex', plan: 'enterprise', createdAt: 1 },
      ])
      .returning()
    const [deployment] = await tx
      .insert(deployments)
      .values({ accountId: account.id, name: 'Shop', model: 'demo', createdAt: 1 })
      .returning()
    const [tenant, otherTenant] = await tx
      .insert(embedTenants)
      .values([
        { accountId: account.id, name: 'north', createdAt: 1 },
        { accountId: account.id, name: 'south', createdAt: 1 },
      ])
      .returning()
    const [user] = await tx
      .insert(users)
      .values({ accountId: account.id, kind: 'external', identity: 'ann', createdAt: 1, updatedAt: 1 })
      .returning()
    return {
      accountId: account.id,
      otherAccountId: other.id,
      deploymentId: deployment.id,
      tenantId: tenant.id,
      otherTenantId: otherTenant.id,
      userId: user.id,
    }
  })
}

/**
 * What every backend's embed statements do (`db/repositories/embed`): the same rows in, the same rows out, so the
 * provisioning and session rules built on them behave alike on SQLite and Postgres. Each case runs its statements in
 * a transaction of the storage, as the callers do.
 */
export function embedStatementsContract(kinds: StorageKind[]) {
  for (const kind of kinds)
    describe(`embed statements on ${kind.name}`, () => {
      let storage: Storage
      let dispose: () => Promise<void>
      let ids: Seeded
      let sequence = 0
      const unique = (prefix: string) => `${prefix}-${++sequence}`
      beforeAll(async () => {
        ;({ storage, dispose } = await kind.open())
        ids = await seed(storage)
      })
      afterAll(() => dispose?.())
      const inTransaction = <T>(work: (tx: Db) => Promise<T>) => storage.transaction(work)

      /** A group and an attribute named alike in the tenant-wide catalog, in the tenant's and in another tenant's. */
      async function catalog(name: string) {
        const { groups, userAttributeDefinitions } = storage.tables
        return inTransaction(async (tx) => {
          const scopes = [null, ids.tenantId, ids.otherTenantId]
          const made = await tx
            .insert(groups)
            .values(scopes.map((embedTenantId) => ({ accountId: ids.accountId, embedTenantId, name, createdAt: 1 })))
            .returning({ id: groups.id })
          const [tenantGroup] = await tx
            .insert(groups)
            .values({ accountId: ids.accountId, embedTenantId: null, namespace: 'tenant_group', name, createdAt: 1 })
            .returning({ id: groups.id })
          const attributes = await tx
            .insert(userAttributeDefinitions)
            .values(
              scopes.map((embedTenantId, index) => ({
                accountId: ids.accountId,
                embedTenantId,
                name,
                type: (['string', 'number', 'string_array'] as const)[index],
                createdAt: 1,
              })),
            )
            .returning({ id: userAttributeDefinitions.id })
          return {
            groups: made.map((row) => row.id),
            tenantGroup: tenantGroup.id,
            attributes: attributes.map((row) => row.id),
          }
        })
      }

      describe('sessions', () => {
        const session = (overrides: Partial<NewSession> = {}): NewSession => ({
          publicId: unique('public'),
          secretHash: unique('hash'),
          accountId: ids.accountId,
          deploymentId: ids.deploymentId,
          userId: ids.userId,
          embedTenantId: null,
          creatorMode: false,
          settings: {},
          securityContext: {},
          groups: [],
          userAttributes: {},
          createdAt: 1_000,
          expiresAt: 10_000,
          ...overrides,
        })
        const stored = (publicId: string) =>
          storage.db
            .select()
            .from(storage.tables.embedSessions)
            .where(eq(storage.tables.embedSessions.publicId, publicId))

        it('stores a minted session with its JSON values and flag as the query builder reads them back', async () => {
          const minted = session({
            embedTenantId: ids.tenantId,
            creatorMode: true,
            settings: { showDashboardChat: false },
            securityContext: { region: 'Ünïcode "north"', level: 3 },
            groups: ['sales', 'ops'],
            userAttributes: { tier: 2, labels: ['a', 'b'] },
          })
          const { insertSession } = storage.repositories.embedSessions()
          await inTransaction(async (tx) => insertSession(tx).execute(minted))
          const [row] = await stored(minted.publicId)
          expect(row).toMatchObject({ ...minted, exchangedAt: null, revokedAt: null })
        })

        it('prunes the sessions past their time, revoked or not, returning their ids and leaving the rest', async () => {
          const { insertSession, pruneExpired } = storage.repositories.embedSessions()
          const [late, onTime, due, revoked, revokedLate] = [
            session({ expiresAt: 50_000 }),
            session({ expiresAt: 60_001 }),
            session({ expiresAt: 60_000 }),
            session({ expiresAt: 90_000 }),
            session({ expiresAt: 40_000 }),
          ]
          await inTransaction(async (tx) => {
            for (const minted of [late, onTime, due, revoked, revokedLate]) await insertSession(tx).execute(minted)
          })
          const { embedSessions } = storage.tables
          await inTransaction(async (tx) =>
            tx
              .update(embedSessions)
              .set({ revokedAt: 2 })
              .where(inArray(embedSessions.publicId, [revoked.publicId, revokedLate.publicId])),
          )
          const idOf = async (minted: NewSession) => (await stored(minted.publicId))[0]?.id
          const expectedExpired = [await idOf(late), await idOf(due), await idOf(revokedLate)]

          const expired = await inTransaction(async (tx) => pruneExpired(tx).execute({ now: 60_000 }))
          expect(expired.map((row) => row.id)).toEqual(expect.arrayContaining(expectedExpired as number[]))
          for (const kept of [onTime, revoked]) expect(expired.map((row) => row.id)).not.toContain(await idOf(kept))
          // A revoked session stays until its time is up, so its tokens still say they were revoked.
          for (const kept of [onTime, revoked]) expect(await stored(kept.publicId)).toHaveLength(1)
          for (const gone of [late, due, revokedLate]) expect(await stored(gone.publicId)).toEqual([])
        })
      })

      describe('catalog', () => {
        it('finds a name in the tenant-wide catalog with tenant 0 and in a tenant’s own with its id, never mixing them', async () => {
          const name = unique('region')
          const made = await catalog(name)
          const { groupByName, attributeByName } = storage.repositories.embedCatalog()
          const group = (tenant: number, namespace: 'group' | 'tenant_group' = 'group') =>
            inTransaction(async (tx) => groupByName(tx).execute({ accountId: ids.accountId, tenant, namespace, name }))
          expect(await group(0)).toEqual([{ id: made.groups[0] }])
          expect(await group(ids.tenantId)).toEqual([{ id: made.groups[1] }])
          expect(await group(ids.otherTenantId)).toEqual([{ id: made.groups[2] }])
          expect(await group(0, 'tenant_group')).toEqual([{ id: made.tenantGroup }])
          expect(await group(ids.tenantId, 'tenant_group')).toEqual([])
          const attribute = (tenant: number, accountId = ids.accountId) =>
            inTransaction(async (tx) => attributeByName(tx).execute({ accountId, tenant, name }))
          expect(await attribute(0)).toEqual([{ id: made.attributes[0], type: 'string' }])
          expect(await attribute(ids.tenantId)).toEqual([{ id: made.attributes[1], type: 'number' }])
          expect(await attribute(0, ids.otherAccountId)).toEqual([])
          expect(
            await inTransaction(async (tx) =>
              groupByName(tx).execute({ accountId: ids.accountId, tenant: 0, namespace: 'group', name: 'nobody' }),
            ),
          ).toEqual([])
        })

        it('lists, adds (once) and removes a user’s memberships within one catalog and namespace', async () => {
          const made = await catalog(unique('team'))
          const { membershipsIn, insertMembership, deleteMembership } = storage.repositories.embedCatalog()
          const { users } = storage.tables
          const [user] = await inTransaction(async (tx) =>
            tx
              .insert(users)
              .values({
                accountId: ids.accountId,
                kind: 'external',
                identity: unique('member'),
                createdAt: 1,
                updatedAt: 1,
              })
              .returning({ id: users.id }),
          )
          await inTransaction(async (tx) => {
            for (const groupId of [...made.groups, made.tenantGroup, made.groups[1]])
              await insertMembership(tx).execute({ userId: user.id, groupId })
          })
          const memberships = (tenant: number, namespace: 'group' | 'tenant_group' = 'group') =>
            inTransaction(async (tx) =>
              membershipsIn(tx).execute({ userId: user.id, accountId: ids.accountId, tenant, namespace }),
            )
          expect(await memberships(0)).toEqual([{ groupId: made.groups[0] }])
          expect(await memberships(ids.tenantId)).toEqual([{ groupId: made.groups[1] }])
          expect(await memberships(0, 'tenant_group')).toEqual([{ groupId: made.tenantGroup }])
          expect(
            await inTransaction(async (tx) =>
              membershipsIn(tx).execute({
                userId: user.id,
                accountId: ids.otherAccountId,
                tenant: 0,
                namespace: 'group',
              }),
            ),
          ).toEqual([])
          await inTransaction(async (tx) => deleteMembership(tx).execute({ userId: user.id, groupId: made.groups[1] }))
          expect(await memberships(ids.tenantId)).toEqual([])
          expect(await memberships(0)).toEqual([{ groupId: made.groups[0] }])
        })
      })

      describe('users', () => {
        const profile = {
          email: 'ann@example.com',
          displayName: 'Ann',
          picture: null,
          securityContext: '{"region":"north"}',
        }

        it('inserts an external user once: a second insert of the same identity returns no row', async () => {
          const { insertUser, userByIdentity, securityContextOf } = storage.repositories.embedUsers()
          const identity = unique('external')
          const values = { ...profile, accountId: ids.accountId, identity, now: 5 }
          const [inserted] = await inTransaction(async (tx) => insertUser(tx).execute(values))
          expect(inserted.id).toBeGreaterThan(0)
          expect(await inTransaction(async (tx) => insertUser(tx).execute(values))).toEqual([])
          const found = await inTransaction(async (tx) =>
            userByIdentity(tx).execute({ accountId: ids.accountId, kind: 'external', identity }),
          )
          expect(found).toEqual([
            { id: inserted.id, ...profile, hasMemberships: 0, hasAttributeValues: 0, hasAttributeDefaults: 0 },
          ])
          expect(
            await inTransaction(async (tx) =>
              userByIdentity(tx).execute({ accountId: ids.otherAccountId, kind: 'external', identity }),
            ),
          ).toEqual([])
          expect(await inTransaction(async (tx) => securityContextOf(tx).execute({ userId: inserted.id }))).toEqual([
            { securityContext: profile.securityContext },
          ])
        })

        it('updates a profile, keeping the security context as the JSON text given', async () => {
          const { insertUser, updateUser, userByIdentity } = storage.repositories.embedUsers()
          const identity = unique('external')
          const [{ id }] = await inTransaction(async (tx) =>
            insertUser(tx).execute({ ...profile, accountId: ids.accountId, identity, now: 5 }),
          )
          const changed = {
            email: null,
            displayName: 'Ann Lee',
            picture: 'https://p/a.png',
            securityContext: '{"b":1,"a":[2]}',
          }
          await inTransaction(async (tx) => updateUser(tx).execute({ ...changed, userId: id, now: 6 }))
          const [found] = await inTransaction(async (tx) =>
            userByIdentity(tx).execute({ accountId: ids.accountId, kind: 'external', identity }),
          )
          expect(found).toEqual({ id, ...changed, hasMemberships: 0, hasAttributeValues: 0, hasAttributeDefaults: 0 })
          const { users } = storage.tables
          const [row] = await storage.db.select({ updatedAt: users.updatedAt }).from(users).where(eq(users.id, id))
          expect(row.updatedAt).toBe(6)
        })

        it('sets, replaces and deletes attribute values as JSON text, and reads them with their definitions', async () => {
          const name = unique('tier')
          const { attributes } = await catalog(name)
          const { insertUser, upsertValue, deleteValue, storedValues, attributeValues, userByIdentity } =
            storage.repositories.embedUsers()
          const identity = unique('external')
          const [{ id: userId }] = await inTransaction(async (tx) =>
            insertUser(tx).execute({ ...profile, accountId: ids.accountId, identity, now: 5 }),
          )
          await inTransaction(async (tx) => {
            await upsertValue(tx).execute({ userId, attributeId: attributes[0], value: '"gold"' })
            await upsertValue(tx).execute({ userId, attributeId: attributes[1], value: '1' })
            await upsertValue(tx).execute({ userId, attributeId: attributes[1], value: '2' })
          })
          const byAttribute = <T extends { attributeId?: number; tenant?: number | null }>(rows: T[]) =>
            [...rows].sort(
              (left, right) => (left.attributeId ?? left.tenant ?? 0) - (right.attributeId ?? right.tenant ?? 0),
            )
          expect(byAttribute(await inTransaction(async (tx) => storedValues(tx).execute({ userId })))).toEqual([
            { attributeId: attributes[0], value: '"gold"' },
            { attributeId: attributes[1], value: '2' },
          ])
          expect(byAttribute(await inTransaction(async (tx) => attributeValues(tx).execute({ userId })))).toEqual([
            { name, tenant: null, value: '"gold"' },
            { name, tenant: ids.tenantId, value: '2' },
          ])
          const [found] = await inTransaction(async (tx) =>
            userByIdentity(tx).execute({ accountId: ids.accountId, kind: 'external', identity }),
          )
          expect(found.hasAttributeValues).toBe(1)
          await inTransaction(async (tx) => deleteValue(tx).execute({ userId, attributeId: attributes[0] }))
          expect(await inTransaction(async (tx) => storedValues(tx).execute({ userId }))).toEqual([
            { attributeId: attributes[1], value: '2' },
          ])
        })

        it('reads the defaults of the user’s account, tenant-wide and in the tenant asked for, and tells there are some', async () => {
          // In the second account, so the first account's users keep having no defaults to read.
          const { embedTenants, userAttributeDefinitions } = storage.tables
          const { insertUser, userByIdentity, attributeDefaults } = storage.repositories.embedUsers()
          const identity = unique('external')
          const accountId = ids.otherAccountId
          const [{ id: userId }] = await inTransaction(async (tx) =>
            insertUser(tx).execute({ ...profile, accountId, identity, now: 5 }),
          )
          const hasDefaults = async () =>
            (
              await inTransaction(async (tx) => userByIdentity(tx).execute({ accountId, kind: 'external', identity }))
            )[0].hasAttributeDefaults
          expect(await hasDefaults()).toBe(0)
          const [tenant, other] = await inTransaction(async (tx) =>
            tx
              .insert(embedTenants)
              .values([
                { accountId, name: unique('east'), createdAt: 1 },
                { accountId, name: unique('west'), createdAt: 1 },
              ])
              .returning({ id: embedTenants.id }),
          )
          await inTransaction(async (tx) =>
            tx.insert(userAttributeDefinitions).values([
              { accountId, embedTenantId: null, name: 'region', type: 'string', defaultValue: 'Europe', createdAt: 1 },
              { accountId, embedTenantId: null, name: 'tier', type: 'number', createdAt: 1 },
              { accountId, embedTenantId: tenant.id, name: 'tier', type: 'number', defaultValue: '2', createdAt: 1 },
              { accountId, embedTenantId: other.id, name: 'tier', type: 'number', defaultValue: '3', createdAt: 1 },
              {
                accountId: ids.accountId,
                embedTenantId: null,
                name: 'x',
                type: 'string',
                defaultValue: 'y',
                createdAt: 1,
              },
            ]),
          )
          expect(await hasDefaults()).toBe(1)
          const defaults = async (tenant: number) =>
            (await inTransaction(async (tx) => attributeDefaults(tx).execute({ userId, tenant }))).sort(
              (left, right) => Number(left.tenant ?? 0) - Number(right.tenant ?? 0),
            )
          expect(await defaults(0)).toEqual([{ name: 'region', tenant: null, type: 'string', defaultValue: 'Europe' }])
          expect(await defaults(tenant.id)).toEqual([
            { name: 'region', tenant: null, type: 'string', defaultValue: 'Europe' },
            { name: 'tier', tenant: tenant.id, type: 'number', defaultValue: '2' },
          ])
          // Left as found: the other cases count the accounts' users and read the first account's defaults.
          await inTransaction(async (tx) => {
            await tx.delete(storage.tables.users).where(eq(storage.tables.users.id, userId))
            await tx.delete(userAttributeDefinitions).where(eq(userAttributeDefinitions.accountId, accountId))
            await tx
              .delete(userAttributeDefinitions)
              .where(and(eq(userAttributeDefinitions.accountId, ids.accountId), eq(userAttributeDefinitions.name, 'x')))
          })
        })

        it('names a user’s groups tenant-wide and in the tenant asked for, and no other tenant’s', async () => {
          const name = unique('crew')
          const made = await catalog(name)
          const { insertUser, membershipNames, userByIdentity } = storage.repositories.embedUsers()
          const { insertMembership } = storage.repositories.embedCatalog()
          const identity = unique('external')
          const [{ id: userId }] = await inTransaction(async (tx) =>
            insertUser(tx).execute({ ...profile, accountId: ids.accountId, identity, now: 5 }),
          )
          await inTransaction(async (tx) => {
            for (const groupId of [...made.groups, made.tenantGroup])
              await insertMembership(tx).execute({ userId, groupId })
          })
          const names = async (tenant: number) =>
            (await inTransaction(async (tx) => membershipNames(tx).execute({ userId, tenant })))
              .map((row) => row.name)
              .sort((left, right) => String(left).localeCompare(String(right)))
          // The tenant-wide group and the tenant's own; the other tenant's and the tenant group are null.
          expect(await names(ids.tenantId)).toEqual([name, name, null, null])
          expect(await names(0)).toEqual([name, null, null, null])
          const [found] = await inTransaction(async (tx) =>
            userByIdentity(tx).execute({ accountId: ids.accountId, kind: 'external', identity }),
          )
          expect(found.hasMemberships).toBe(1)
        })

        it('reads the account’s external user limit and how many external users it has', async () => {
          const { externalUserRoom } = storage.repositories.embedUsers()
          const { users } = storage.tables
          const [{ count }] = await inTransaction(async (tx) =>
            externalUserRoom(tx).execute({ accountId: ids.accountId }),
          )
          const external = await storage.db
            .select({ id: users.id })
            .from(users)
            .where(eq(users.accountId, ids.accountId))
          expect(count).toBe(external.length)
          expect(
            await inTransaction(async (tx) => externalUserRoom(tx).execute({ accountId: ids.otherAccountId })),
          ).toEqual([{ limit: 10_000, count: 0 }])
          expect(
            (await inTransaction(async (tx) => externalUserRoom(tx).execute({ accountId: ids.accountId })))[0].limit,
          ).toBe(5)
        })
      })
    })
}
