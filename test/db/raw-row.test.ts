import { Database } from 'bun:sqlite'
import { afterEach, describe, expect, it } from 'bun:test'
import { drizzle } from 'drizzle-orm/bun-sqlite'
import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import type { RawRow } from '../../db/raw-row'

const notes = sqliteTable('notes', {
  id: integer('id').primaryKey(),
  title: text('title').notNull(),
  tags: text('tags', { mode: 'json' }).$type<string[]>().notNull(),
  meta: text('meta', { mode: 'json' }).$type<{ pinned: boolean }>(),
})

let sqlite: Database | undefined
afterEach(() => sqlite?.close())

function notesDatabase() {
  sqlite = new Database(':memory:', { strict: true })
  sqlite.run('CREATE TABLE notes (id INTEGER PRIMARY KEY, title TEXT NOT NULL, tags TEXT NOT NULL, meta TEXT)')
  return { sqlite, db: drizzle(sqlite) }
}

describe('a raw row', () => {
  it('holds a JSON column as the text a raw statement reads, where drizzle gives the parsed value', () => {
    const { sqlite, db } = notesDatabase()
    db.insert(notes)
      .values([
        { id: 1, title: 'first', tags: ['a', 'b'], meta: { pinned: true } },
        { id: 2, title: 'second', tags: [], meta: null },
      ])
      .run()
    const raw = sqlite.query<RawRow<typeof notes>, []>('SELECT id, title, tags, meta FROM notes ORDER BY id').all()
    const parsed = db.select().from(notes).orderBy(notes.id).all()

    expect(raw.map((row) => [typeof row.tags, row.meta === null ? null : typeof row.meta])).toEqual([
      ['string', 'string'],
      ['string', null],
    ])
    expect(raw.map((row) => ({ ...row, tags: JSON.parse(row.tags), meta: row.meta && JSON.parse(row.meta) }))).toEqual(
      parsed,
    )
  })

  it('keeps the other columns as drizzle types them, nullability included', () => {
    const title: RawRow<typeof notes>['title'] = 'a title'
    const meta: RawRow<typeof notes>['meta'] = null
    // @ts-expect-error a JSON column is text in a raw row, not the parsed value
    const tags: RawRow<typeof notes>['tags'] = ['a']
    // @ts-expect-error a NOT NULL column stays non-nullable
    const id: RawRow<typeof notes>['id'] = null
    expect<unknown[]>([title, meta, tags, id]).toEqual(['a title', null, ['a'], null])
  })
})
