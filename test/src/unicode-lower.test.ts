import { Database } from 'bun:sqlite'
import { describe, expect, it } from 'bun:test'
import { UNICODE_LOWER, UNICODE_LOWER_OPTIONS, unicodeLower } from '../../lib/unicode-lower'

describe('unicode_lower', () => {
  it('lowers every letter, and reads numbers, blobs and NULL as SQLite lower() does', () => {
    const database = new Database(':memory:')
    try {
      database.function(UNICODE_LOWER, UNICODE_LOWER_OPTIONS, unicodeLower)
      const row = database
        .query(
          `SELECT unicode_lower('ÉMILE Ærø ZÜRICH') AS text, unicode_lower(9007199254740993) AS big,
             unicode_lower(NULL) AS none, unicode_lower(-12) AS small, lower(9007199254740993) AS native`,
        )
        .get() as Record<string, unknown>
      expect(row).toEqual({
        text: 'émile ærø zürich',
        // Whole: as a JavaScript number it was 9007199254740992, and LIKE '%993' missed it.
        big: '9007199254740993',
        none: null,
        small: '-12',
        native: '9007199254740993',
      })
      expect(database.query("SELECT unicode_lower(x'00ff') = x'00ff' AS same").get()).toEqual({ same: 1 })
    } finally {
      database.close()
    }
  })
})
