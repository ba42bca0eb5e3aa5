import { Database } from 'bun:sqlite'
import { SQL } from 'bun'
import { afterAll, describe, expect, it } from 'bun:test'
import { drizzle as drizzlePostgres } from 'drizzle-orm/bun-sql'
import { drizzle as drizzleSqlite } from 'drizzle-orm/bun-sqlite'
import { integer as pgInteger, pgTable, text as pgText } from 'drizzle-orm/pg-core'
import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { someRecipientHas, type RecipientFields } from '../../../plugins/management/recipient-filter'
import { postgresAvailable, postgresServer, warnSkipped } from '../../helpers/database-servers'

/**
 * The recipient filter is the management query written once per database: both forms must pick the same rows
 * out of the same stored JSON text.
 */
const stored = [
  { id: 1, recipients: [{ kind: 'user', userId: 7, email: 'ann@example.com' }] },
  {
    id: 2,
    recipients: [
      { kind: 'user', email: 'bob@example.com' },
      { kind: 'user', userId: 70 },
    ],
  },
  { id: 3, recipients: [{ kind: 'embedUser', embedTenantName: 'acme', externalId: 'u-7' }] },
  { id: 4, recipients: [] },
]

const cases: Array<{ fields: RecipientFields; ids: number[] }> = [
  { fields: { kind: 'user', userId: 7 }, ids: [1] },
  { fields: { kind: 'user', userId: 70 }, ids: [2] },
  { fields: { kind: 'user', email: 'bob@example.com' }, ids: [2] },
  { fields: { kind: 'user', email: "x' OR '1'='1" }, ids: [] },
  { fields: { kind: 'embedUser', embedTenantName: 'acme', externalId: 'u-7' }, ids: [3] },
  { fields: { kind: 'embedUser', embedTenantName: 'acme', externalId: 'u-8' }, ids: [] },
  { fields: { kind: 'user', externalId: 'u-7' }, ids: [] },
]

describe('someRecipientHas on SQLite', () => {
  const sqlite = new Database(':memory:')
  afterAll(() => sqlite.close())
  const table = sqliteTable('probe', {
    id: integer('id').primaryKey(),
    recipients: text('recipients', { mode: 'json' }).$type<unknown[]>().notNull(),
  })
  const db = drizzleSqlite(sqlite)

  it('finds the rows with a recipient having every field given, and only those', async () => {
    sqlite.run('CREATE TABLE probe (id INTEGER PRIMARY KEY, recipients TEXT NOT NULL)')
    await db.insert(table).values(stored)
    for (const { fields, ids } of cases) {
      const rows = await db
        .select({ id: table.id })
        .from(table)
        .where(someRecipientHas('sqlite', table.recipients, fields))
      expect({ fields, ids: rows.map((row) => row.id).sort() }).toEqual({ fields, ids })
    }
  })
})

describe('someRecipientHas on Postgres', () => {
  if (!postgresAvailable) {
    warnSkipped('Postgres recipient filter test')
    return
  }
  let client: SQL | undefined
  afterAll(async () => {
    await client?.unsafe('DROP TABLE IF EXISTS management_recipient_probe')
    await client?.close()
  })
  const table = pgTable('management_recipient_probe', {
    id: pgInteger('id').primaryKey(),
    recipients: pgText('recipients').notNull(),
  })

  it('finds the same rows as on SQLite, from the same JSON text', async () => {
    client = new SQL((await postgresServer()).url)
    await client.unsafe('CREATE TABLE management_recipient_probe (id integer PRIMARY KEY, recipients text NOT NULL)')
    const db = drizzlePostgres({ client })
    await db.insert(table).values(stored.map((row) => ({ id: row.id, recipients: JSON.stringify(row.recipients) })))
    for (const { fields, ids } of cases) {
      const rows = await db
        .select({ id: table.id })
        .from(table)
        .where(someRecipientHas('postgres', table.recipients, fields))
      expect({ fields, ids: rows.map((row) => row.id).sort() }).toEqual({ fields, ids })
    }
    // Starting the throwaway Postgres cluster (once per run) outlasts bun's default 5 s on a busy machine.
  }, 120_000)
})
