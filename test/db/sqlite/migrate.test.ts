import { Database } from 'bun:sqlite'
import { describe, expect, it } from 'bun:test'
import { migrate, NewerDatabaseError } from '../../../db/sqlite/migrate'
import { migrations } from '../../../db/migrations'

describe('migrate', () => {
  it('applies each migration once, in order, and records it by tag', () => {
    const sqlite = new Database(':memory:')
    expect(migrate(sqlite)).toEqual(migrations.map((migration) => migration.tag))
    expect(migrate(sqlite)).toEqual([])
    const tags = sqlite
      .query<{ tag: string }, []>('SELECT tag FROM _migrations ORDER BY tag')
      .all()
      .map((row) => row.tag)
    expect(tags).toEqual(migrations.map((migration) => migration.tag))
    sqlite.close()
  })

  it('applies only the new migration to a database of an older build', () => {
    const sqlite = new Database(':memory:')
    migrate(sqlite, migrations.slice(0, 3))
    expect(migrate(sqlite)).toEqual(migrations.slice(3).map((migration) => migration.tag))
    sqlite.close()
  })

  it('leaves the database as it was when a migration fails', () => {
    const sqlite = new Database(':memory:')
    migrate(sqlite)
    const broken = [
      ...migrations,
      { tag: '9999_broken', sql: 'CREATE TABLE half (id INTEGER); SELECT * FROM no_such_table;' },
    ]
    expect(() => migrate(sqlite, broken)).toThrow('no_such_table')
    expect(sqlite.query("SELECT name FROM sqlite_master WHERE name = 'half'").get()).toBeNull()
    expect(sqlite.query("SELECT tag FROM _migrations WHERE tag = '9999_broken'").get()).toBeNull()
    sqlite.close()
  })

  it('refuses a database migrated by a newer build, naming its unknown migrations', () => {
    const sqlite = new Database(':memory:')
    migrate(sqlite, [...migrations, { tag: '9000_future', sql: 'CREATE TABLE future (id INTEGER)' }])
    expect(() => migrate(sqlite)).toThrow(NewerDatabaseError)
    expect(() => migrate(sqlite)).toThrow('(9000_future)')
    sqlite.close()
  })
})
