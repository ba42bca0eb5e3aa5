import { afterEach, describe, expect, it } from 'bun:test'
import { SQL } from 'bun'
import { and, eq } from 'drizzle-orm'
import { first, type Storage } from '../../db/client'
import { isSqliteStorage } from '../../db/sqlite/sqlite-storage'
import { AppError } from '../../lib/errors'
import { createTestApp, type TestApp } from '../helpers/app'
import { testBootstrap } from '../helpers/fixtures'

// SQLite's migration 0005; on Postgres the same counter and indexes come with 0000_foundation and
// 0001_external_user_counts, and the same tests run there with TEST_STORAGE=postgres.
let test: TestApp
afterEach(() => test?.close())

const ACME = 1

function bootstrapWithLimit(limit: number) {
  const file = testBootstrap()
  file.accounts[0].maxExternalUsers = limit
  return file
}

async function statusOf(run: () => Promise<unknown>): Promise<number | 'ok'> {
  try {
    await run()
    return 'ok'
  } catch (error) {
    if (error instanceof AppError) return error.status
    throw error
  }
}

async function countOf(app: TestApp): Promise<number> {
  const { externalUserCounts } = app.storage.tables
  const row = await first(
    app.storage.db
      .select({ count: externalUserCounts.count })
      .from(externalUserCounts)
      .where(eq(externalUserCounts.accountId, ACME)),
  )
  return row?.count ?? 0
}

/**
 * The plan of `statement` as the database describes it. On Postgres the planner prefers a scan of the few rows a test
 * holds, so scans are turned off (for this statement only): the plan then names an index wherever one applies.
 */
async function planOf(storage: Storage, statement: string): Promise<string> {
  if (isSqliteStorage(storage))
    return storage.sqlite
      .query<{ detail: string }, []>(`EXPLAIN QUERY PLAN ${statement}`)
      .all()
      .map((row) => row.detail)
      .join('; ')
  // The test database has no password (its URL is the storage's path as is).
  const client = new SQL(storage.path, { max: 1 })
  try {
    const rows: Array<{ 'QUERY PLAN': string }> = await client.begin(async (tx) => {
      await tx.unsafe('SET LOCAL enable_seqscan = off')
      return tx.unsafe(`EXPLAIN ${statement}`)
    })
    return rows.map((row) => row['QUERY PLAN']).join('; ')
  } finally {
    await client.close()
  }
}

describe('migration 0005: external_user_counts', () => {
  it('counts external users as they are created and deleted, also by plain SQL, and the limit follows it', async () => {
    test = createTestApp({ bootstrap: bootstrapWithLimit(2) })
    const { users } = test.deps
    expect(await statusOf(() => users.fromSessionSettings(ACME, { externalId: 'first' }))).toBe('ok')
    expect(await statusOf(() => users.fromSessionSettings(ACME, { externalId: 'second' }))).toBe('ok')
    expect(await countOf(test)).toBe(2)
    expect(await statusOf(() => users.fromSessionSettings(ACME, { externalId: 'third' }))).toBe(403)
    // Internal users never count.
    expect(await statusOf(() => users.fromSessionSettings(ACME, { internalId: 'bob' }))).toBe('ok')
    expect(await countOf(test)).toBe(2)

    // A plain DELETE, past the users repository: the database itself keeps the count.
    const { users: usersTable } = test.storage.tables
    await test.storage.transaction((tx) =>
      tx.delete(usersTable).where(and(eq(usersTable.kind, 'external'), eq(usersTable.identity, 'first'))),
    )
    expect(await countOf(test)).toBe(1)
    expect(await statusOf(() => users.fromSessionSettings(ACME, { externalId: 'third' }))).toBe('ok')
    expect(await statusOf(() => users.fromExternalId(ACME, 'fourth'))).toBe(403)
    expect(await countOf(test)).toBe(2)
  })
})

describe('migration 0005: indexes', () => {
  it('finds a user message by id, and prunes revoked sessions, through an index rather than a scan', async () => {
    test = createTestApp()
    const plan = (statement: string) => planOf(test.storage, statement)
    expect(
      await plan("SELECT thread_id FROM chat_messages WHERE id = '1700000000000-message' AND role = 'user'"),
    ).toContain('chat_messages_id')
    expect(await plan('DELETE FROM embed_sessions WHERE revoked_at IS NOT NULL')).toContain('embed_sessions_revoked')
  })
})
