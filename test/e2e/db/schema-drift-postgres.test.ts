import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { SQL } from 'bun'
import { integer, pgTable, text } from 'drizzle-orm/pg-core'
import { migratePostgres } from '../../../db/postgres/migrate-postgres'
import * as schema from '../../../db/schema-pg'
import { postgresAvailable, warnSkipped } from '../../helpers/database-servers'
import { POSTGRES_START_MS, throwawayPostgresDatabase, type ThrowawayDatabase } from '../../helpers/postgres-databases'
import { shapeDifferences } from '../../helpers/schema-drift'
import { postgresDatabaseShapes, postgresSchemaShapes } from '../../helpers/schema-drift-postgres'
import { ms } from '../../../db/schema-pg/columns'

if (!postgresAvailable) warnSkipped('the Postgres schema drift tests')

describe.skipIf(!postgresAvailable)('the drizzle Postgres schema and the Postgres migrations', () => {
  let database: ThrowawayDatabase
  let client: SQL
  beforeAll(async () => {
    database = await throwawayPostgresDatabase()
    client = new SQL(database.url, { max: 2 })
    await migratePostgres(client)
  }, POSTGRES_START_MS)
  afterAll(async () => {
    await client?.close()
    await database?.drop()
  })

  it('describe the same tables, columns, primary keys, defaults, foreign keys, indexes and checks', async () => {
    expect(shapeDifferences(await postgresDatabaseShapes(client), postgresSchemaShapes(schema))).toEqual([])
  })

  it('are reported apart when the schema declares a column no migration creates, or differs in type', async () => {
    const serverSecrets = pgTable('server_secrets', {
      name: text('name').primaryKey(),
      value: text('value').notNull(),
      createdAt: integer('created_at').notNull(),
      rotatedAt: ms('rotated_at'),
    })
    expect(
      shapeDifferences(await postgresDatabaseShapes(client), postgresSchemaShapes({ ...schema, serverSecrets })),
    ).toEqual([
      'server_secrets column created_at: database {"type":"bigint","notNull":true,"primaryKey":0,"default":null}, schema {"type":"integer","notNull":true,"primaryKey":0,"default":null}',
      'server_secrets column rotated_at: in the drizzle schema only',
    ])
  })

  it('are reported apart when an index loses its condition or a table exists in the database only', async () => {
    await client
      .begin(async (transaction) => {
        await transaction.unsafe('DROP INDEX chat_runs_running')
        await transaction.unsafe('CREATE INDEX chat_runs_running ON chat_runs (status)')
        await transaction.unsafe('CREATE TABLE leftovers (id integer PRIMARY KEY)')
        expect(shapeDifferences(await postgresDatabaseShapes(transaction), postgresSchemaShapes(schema))).toEqual([
          'chat_runs index chat_runs_running: database "(status)", schema "(status) where …"',
          'leftovers: in the migrated database only',
        ])
        // Nothing of this stays for the other tests.
        throw new Rollback()
      })
      .catch((error) => {
        if (!(error instanceof Rollback)) throw error
      })
  })
})

class Rollback extends Error {}
