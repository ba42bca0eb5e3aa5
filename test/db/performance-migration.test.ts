import { afterEach, describe, expect, it } from 'bun:test'
import { AppError } from '../../lib/errors'
import { createTestApp, type TestApp } from '../helpers/app'
import { testBootstrap } from '../helpers/fixtures'

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

const countOf = (app: TestApp) =>
  app.storage.sqlite
    .query<{ count: number }, [number]>('SELECT count FROM external_user_counts WHERE account_id = ?')
    .get(ACME)?.count ?? 0

describe('migration 0005: external_user_counts', () => {
  it('counts external users as they are created and deleted, also by plain SQL, and the limit follows it', async () => {
    test = createTestApp({ bootstrap: bootstrapWithLimit(2) })
    const { users } = test.deps
    expect(await statusOf(() => users.fromSessionSettings(ACME, { externalId: 'first' }))).toBe('ok')
    expect(await statusOf(() => users.fromSessionSettings(ACME, { externalId: 'second' }))).toBe('ok')
    expect(countOf(test)).toBe(2)
    expect(await statusOf(() => users.fromSessionSettings(ACME, { externalId: 'third' }))).toBe(403)
    // Internal users never count.
    expect(await statusOf(() => users.fromSessionSettings(ACME, { internalId: 'bob' }))).toBe('ok')
    expect(countOf(test)).toBe(2)

    test.storage.sqlite.run("DELETE FROM users WHERE kind = 'external' AND identity = 'first'")
    expect(countOf(test)).toBe(1)
    expect(await statusOf(() => users.fromSessionSettings(ACME, { externalId: 'third' }))).toBe('ok')
    expect(await statusOf(() => users.fromExternalId(ACME, 'fourth'))).toBe(403)
    expect(countOf(test)).toBe(2)
  })
})

describe('migration 0005: indexes', () => {
  it('finds a user message by id, and prunes revoked sessions, through an index rather than a scan', () => {
    test = createTestApp()
    const plan = (sql: string) =>
      test.storage.sqlite
        .query<{ detail: string }, []>(`EXPLAIN QUERY PLAN ${sql}`)
        .all()
        .map((row) => row.detail)
        .join('; ')
    expect(plan("SELECT thread_id FROM chat_messages WHERE id = '1700000000000-message' AND role = 'user'")).toContain(
      'chat_messages_id',
    )
    expect(plan('DELETE FROM embed_sessions WHERE revoked_at IS NOT NULL')).toContain('embed_sessions_revoked')
  })
})
