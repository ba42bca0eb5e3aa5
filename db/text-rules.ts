import { sql, type SQL, type SQLWrapper } from 'drizzle-orm'
import { UNICODE_LOWER } from '../lib/unicode-lower'

/**
 * How the storage compares text ignoring case, for searches and sorts by name. A lowering function rather than a
 * collation (`NOCASE` is SQLite's own); values are cast so Postgres takes a bound parameter as text.
 */
export interface TextRules {
  /** `value` as comparisons and orders ignoring case see it. */
  fold(value: SQLWrapper | string | number): SQL
  /**
   * `column` contains `search`, ignoring case, with the search's wildcards (`%`, `_`, `\`) taken literally. Both sides
   * are folded: `LIKE` ignores case on SQLite but not on Postgres.
   */
  contains(column: SQLWrapper, search: string): SQL
}

/** Text rules that fold with the SQL function `lower`. */
function textRules(lower: string): TextRules {
  const name = sql.raw(lower)
  return {
    fold: (value) => sql`${name}(cast(${value} as text))`,
    contains(column, search) {
      const pattern = `%${search.replace(/[\\%_]/g, (character) => `\\${character}`)}%`
      return sql`${name}(cast(${column} as text)) LIKE ${name}(${pattern}) ESCAPE '\\'`
    },
  }
}

/**
 * On SQLite the connection's `unicode_lower`: SQLite's own `lower()` knows only ASCII letters ('Éb' sorted after 'ed',
 * and 'épsilon' did not find 'Épsilon').
 */
export const SQLITE_TEXT = textRules(UNICODE_LOWER)

/** Postgres's `lower()` folds every letter of the database's encoding. */
export const POSTGRES_TEXT = textRules('lower')
