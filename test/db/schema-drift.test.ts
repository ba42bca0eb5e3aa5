import { afterEach, describe, expect, it } from 'bun:test'
import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { openStorage, type SqliteStorage } from '../../db/sqlite/sqlite-storage'
import * as schema from '../../db/schema'
import { databaseShapes, schemaShapes, shapeDifferences } from '../helpers/schema-drift'

let storage: SqliteStorage | undefined
afterEach(() => storage?.close())

/** A database migrated the way the service migrates its own at start. */
function freshlyMigrated(): SqliteStorage {
  storage = openStorage(':memory:')
  return storage
}

describe('the drizzle schema and the migrations', () => {
  it('describe the same tables, columns, primary keys, defaults, foreign keys and indexes', () => {
    const { sqlite } = freshlyMigrated()
    expect(shapeDifferences(databaseShapes(sqlite), schemaShapes(schema))).toEqual([])
  })

  it('are reported apart when a migration adds a column the schema lacks', () => {
    const { sqlite } = freshlyMigrated()
    sqlite.run('ALTER TABLE server_secrets ADD COLUMN rotated_at INTEGER')
    expect(shapeDifferences(databaseShapes(sqlite), schemaShapes(schema))).toEqual([
      'server_secrets column rotated_at: in the migrated database only',
    ])
  })

  it('are reported apart when the schema declares a column no migration creates', () => {
    const { sqlite } = freshlyMigrated()
    const serverSecrets = sqliteTable('server_secrets', {
      name: text('name').primaryKey(),
      value: text('value').notNull(),
      createdAt: integer('created_at').notNull(),
      rotatedAt: integer('rotated_at'),
    })
    expect(shapeDifferences(databaseShapes(sqlite), schemaShapes({ ...schema, serverSecrets }))).toEqual([
      'server_secrets column rotated_at: in the drizzle schema only',
    ])
  })

  it('are reported apart when a column differs in type or nullability', () => {
    const { sqlite } = freshlyMigrated()
    const serverSecrets = sqliteTable('server_secrets', {
      name: text('name').primaryKey(),
      value: text('value'),
      createdAt: text('created_at').notNull(),
    })
    const differences = shapeDifferences(databaseShapes(sqlite), schemaShapes({ ...schema, serverSecrets }))
    expect(differences).toHaveLength(2)
    expect(differences[0]).toStartWith('server_secrets column value: database {"type":"text","notNull":true')
    expect(differences[1]).toStartWith('server_secrets column created_at: database {"type":"integer"')
  })

  it('are reported apart when an index or a table exists on one side only', () => {
    const { sqlite } = freshlyMigrated()
    sqlite.run('CREATE INDEX server_secrets_created ON server_secrets (created_at)')
    sqlite.run('CREATE TABLE leftovers (id INTEGER PRIMARY KEY)')
    const { serverSecrets: _, ...withoutSecrets } = schema
    expect(shapeDifferences(databaseShapes(sqlite), schemaShapes(schema))).toEqual([
      'leftovers: in the migrated database only',
      'server_secrets index server_secrets_created: in the migrated database only',
    ])
    expect(shapeDifferences(databaseShapes(sqlite), schemaShapes(withoutSecrets))).toContain(
      'server_secrets: in the migrated database only',
    )
  })

  it('are reported apart when an index loses its uniqueness or its condition', () => {
    const { sqlite } = freshlyMigrated()
    sqlite.run('DROP INDEX chat_runs_running')
    sqlite.run('CREATE INDEX chat_runs_running ON chat_runs (status)')
    sqlite.run('DROP INDEX workbooks_deployment_slug')
    sqlite.run('CREATE INDEX workbooks_deployment_slug ON workbooks (deployment_id, slug)')
    expect(shapeDifferences(databaseShapes(sqlite), schemaShapes(schema))).toEqual([
      'chat_runs index chat_runs_running: database "(status)", schema "(status) where …"',
      'workbooks index workbooks_deployment_slug: database "(deployment_id, slug)", schema "unique (deployment_id, slug)"',
    ])
  })
})
