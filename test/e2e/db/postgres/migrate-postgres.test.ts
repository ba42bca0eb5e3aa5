import { afterEach, beforeAll, describe, expect, it } from 'bun:test'
import { SQL } from 'bun'
import { NewerDatabaseError } from '../../../../db/sqlite/migrate'
import { migratePostgres } from '../../../../db/postgres/migrate-postgres'
import { postgresMigrations } from '../../../../db/migrations-pg'
import { postgresAvailable, warnSkipped } from '../../../helpers/database-servers'
import {
  POSTGRES_START_MS,
  postgresStarted,
  throwawayPostgresDatabase,
  type ThrowawayDatabase,
} from '../../../helpers/postgres-databases'

if (!postgresAvailable) warnSkipped('the Postgres migration tests')

describe.skipIf(!postgresAvailable)('migratePostgres', () => {
  beforeAll(postgresStarted, POSTGRES_START_MS)
  const opened: SQL[] = []
  let database: ThrowawayDatabase | undefined
  afterEach(async () => {
    for (const client of opened.splice(0)) await client.close()
    await database?.drop()
    database = undefined
  })
  async function pool(): Promise<SQL> {
    database ??= await throwawayPostgresDatabase()
    const client = new SQL(database.url, { max: 2 })
    opened.push(client)
    return client
  }

  it('applies every migration once, and nothing on the next start', async () => {
    const client = await pool()
    expect(await migratePostgres(client)).toEqual(postgresMigrations.map((migration) => migration.tag))
    expect(await migratePostgres(client)).toEqual([])
    const rows: Array<{ tag: string }> = await client.unsafe('SELECT tag FROM _migrations ORDER BY tag')
    expect(rows.map((row) => row.tag)).toEqual(postgresMigrations.map((migration) => migration.tag))
  })

  it('lets several nodes start together: one migrates, the others wait for it and find the work done', async () => {
    const nodes = [await pool()]
    for (let node = 1; node < 4; node++) nodes.push(await pool())
    // A slow first migration widens the window in which the others would otherwise start on the same tables.
    const slowed = [{ tag: '0000_wait', sql: 'SELECT pg_sleep(0.2)' }, ...postgresMigrations]
    const applied = await Promise.all(nodes.map((node) => migratePostgres(node, slowed)))
    expect(applied.filter((tags) => tags.length > 0)).toEqual([slowed.map((migration) => migration.tag)])
    const locks: Array<{ held: number }> = await nodes[0].unsafe(
      "SELECT count(*)::int AS held FROM pg_locks WHERE locktype = 'advisory'",
    )
    expect(locks[0].held).toBe(0)
  })

  it('rolls back a failing migration whole and records nothing of it', async () => {
    const client = await pool()
    const failing = [
      ...postgresMigrations,
      {
        tag: '9999_broken',
        sql: 'CREATE TABLE half_done (id integer);\n--> statement-breakpoint\nSELECT no_such_function()',
      },
    ]
    await expect(migratePostgres(client, failing)).rejects.toThrow()
    const tables: Array<{ name: string | null }> = await client.unsafe("SELECT to_regclass('half_done')::text AS name")
    expect(tables[0].name).toBeNull()
    expect(await migratePostgres(client)).toEqual([])
  })

  it('refuses a database migrated by a newer build', async () => {
    const client = await pool()
    await migratePostgres(client, [...postgresMigrations, { tag: '9999_future', sql: 'SELECT 1' }])
    const refused = await migratePostgres(client).catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(NewerDatabaseError)
    expect((refused as NewerDatabaseError).unknownTags).toEqual(['9999_future'])
  })
})
