import { afterEach, describe, expect, it } from 'bun:test'
import type { Storage } from '../../../db/client'
import { openStorage } from '../../../db/sqlite/sqlite-storage'
import { createTestApp, testAppStorage, type TestApp } from '../../helpers/app'
import { testStorage } from '../../helpers/bootstrapped-postgres'
import { attributeCatalog, generate, groupCatalog, tenantRow, userRow } from './helpers'

let test: TestApp
afterEach(() => test?.close())

const ACME = 1

/**
 * On Postgres the transactions of concurrent requests overlap: two requests may both find no user, tenant or
 * definition yet and both create it. With TEST_STORAGE=postgres this is the run's Postgres storage, where they do.
 * On SQLite it lets them overlap too: a transaction runs its statements as they come, each committed on its own, so
 * concurrent calls interleave at every await. It cannot roll back, so these tests look only at answers and at rows
 * no rollback would have removed.
 */
function overlappingStorage(): Storage {
  if (testStorage === 'postgres') return testAppStorage()
  const storage = openStorage(':memory:')
  return { ...storage, transaction: (work) => work(storage.db) }
}

const together = <T>(count: number, run: (index: number) => Promise<T>) =>
  Promise.all(Array.from({ length: count }, (_, index) => run(index)))

describe('provisioning when transactions overlap', () => {
  it('creates one user when the first requests of a service-token user arrive together', async () => {
    test = createTestApp({ storage: overlappingStorage() })
    await test.ready
    const resolved = await together(4, () => test.deps.users.fromExternalId(ACME, 'dave'))
    expect(new Set(resolved.map((user) => user.userId))).toEqual(new Set([(await userRow(test, 'dave'))!.id]))
  })

  it('creates one user and applies each request when first chat requests of a user arrive together', async () => {
    test = createTestApp({ storage: overlappingStorage() })
    await test.ready
    const resolved = await together(3, () =>
      test.deps.users.fromSessionSettings(ACME, { externalId: 'erin', email: 'erin@acme.com', groups: ['sales'] }),
    )
    const stored = (await userRow(test, 'erin'))!
    expect(resolved.map((user) => user.userId)).toEqual([stored.id, stored.id, stored.id])
    expect(stored.email).toBe('erin@acme.com')
    expect(resolved.map((user) => user.access.groups)).toEqual([['sales'], ['sales'], ['sales']])
  })
})

describe('POST /api/v1/embed/generate-session when transactions overlap', () => {
  it('answers 200 to every session of a new user naming a new embed tenant, creating each once', async () => {
    test = createTestApp({ storage: overlappingStorage() })
    const responses = await together(4, () =>
      generate(test, { deploymentId: 1, externalId: 'frank', embedTenantName: 'tenant-new' }),
    )
    expect(responses.map((response) => response.status)).toEqual([200, 200, 200, 200])
    expect(await tenantRow(test, 'tenant-new')).toBeDefined()
    expect(await userRow(test, 'frank')).toBeDefined()
  })

  it('answers 200 to every creator-mode session defining the same new group and attribute', async () => {
    test = createTestApp({ storage: overlappingStorage() })
    const responses = await together(4, (index) =>
      generate(test, {
        deploymentId: 1,
        externalId: `u${index}`,
        creatorMode: true,
        embedTenantName: 'tenant-one',
        groupDefinitions: [{ name: 'analysts', description: 'Analysts' }],
        userAttributeDefinitions: [{ name: 'tier', type: 'number' }],
        groups: ['analysts'],
        userAttributes: [{ name: 'tier', value: index }],
      }),
    )
    expect(responses.map((response) => response.status)).toEqual([200, 200, 200, 200])
    expect((await groupCatalog(test)).filter((group) => group.startsWith('tenant-one/'))).toEqual([
      'tenant-one/analysts:Analysts',
    ])
    expect((await attributeCatalog(test)).filter((attribute) => attribute.startsWith('tenant-one/'))).toEqual([
      'tenant-one/tier:number',
    ])
  })

  it('returns 400 to a session defining an attribute with another type than a concurrent one just stored', async () => {
    test = createTestApp({ storage: overlappingStorage() })
    const responses = await together(2, (index) =>
      generate(test, {
        deploymentId: 1,
        externalId: `u${index}`,
        creatorMode: true,
        embedTenantName: 'tenant-one',
        userAttributeDefinitions: [{ name: 'tier', type: index === 0 ? 'number' : 'string' }],
      }),
    )
    // Whichever stores its type first wins (on SQLite here the first; on Postgres either), the other is refused.
    const winner = responses.findIndex((response) => response.status === 200)
    expect(winner).toBeOneOf([0, 1])
    const [kept, refused] = winner === 0 ? ['number', 'string'] : ['string', 'number']
    expect(responses[winner]).toEqual({ status: 200, body: { sessionId: expect.any(String) } })
    expect(responses[1 - winner]).toEqual({
      status: 400,
      body: {
        error: `User attribute "tier": cannot change type from ${kept} to ${refused}; delete the attribute and recreate it`,
        code: 'CANNOT_CHANGE_TYPE',
      },
    })
    expect((await attributeCatalog(test)).filter((attribute) => attribute.startsWith('tenant-one/'))).toEqual([
      `tenant-one/tier:${kept}`,
    ])
  })
})
