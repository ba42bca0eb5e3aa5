import type { Granularity } from '../../query/query-ast'
import { UNICODE_LOWER } from '../../../../lib/unicode-lower'
import { doubleQuoted, standardOrderBy, type Dialect } from './dialect'

const TRUNCATE: Record<Granularity, (value: string) => string> = {
  hour: (value) => `strftime('%Y-%m-%d %H:00:00', ${value})`,
  day: (value) => `strftime('%Y-%m-%d 00:00:00', ${value})`,
  // SQLite's 'weekday 0' moves forward to Sunday; six days back is that week's Monday (ISO weeks, as Postgres).
  week: (value) => `strftime('%Y-%m-%d 00:00:00', ${value}, 'weekday 0', '-6 days')`,
  month: (value) => `strftime('%Y-%m-01 00:00:00', ${value})`,
  quarter: (value) =>
    `printf('%s-%02d-01 00:00:00', strftime('%Y', ${value}), ((CAST(strftime('%m', ${value}) AS INTEGER) - 1) / 3) * 3 + 1)`,
  year: (value) => `strftime('%Y-01-01 00:00:00', ${value})`,
}

/**
 * A time kept as text (`YYYY-MM-DD`, `YYYY-MM-DD HH:MM[:SS[.fff]]`, with `T` for the space, with `Z` or the
 * `+00:00` of Python's `isoformat()`) as `YYYY-MM-DD HH:MM:SS` with the fraction of a second it has (trailing zeros
 * dropped), as `normalizeTime` writes literals. Text functions only: SQLite's own date functions keep milliseconds
 * and would cut `.123456` short, and may move a time to another day, where the compiler's day bounds need its first
 * ten characters kept. Other offsets are not converted. A value already in the canonical form (the common case) is
 * passed through after one length and one character test.
 */
function canonicalTime(value: string): string {
  const spaced = `replace(replace(rtrim(${value}, 'Z'), '+00:00', ''), 'T', ' ')`
  const whole = `CASE length(${spaced}) WHEN 10 THEN ${spaced} || ' 00:00:00' WHEN 16 THEN ${spaced} || ':00' ELSE ${spaced} END`
  return (
    `(CASE WHEN length(${value}) = 19 AND substr(${value}, 11, 1) = ' ' THEN ${value}` +
    ` WHEN instr(${value}, '.') > 0 THEN rtrim(rtrim(${whole}, '0'), '.') ELSE ${whole} END)`
  )
}

/** A LIKE pattern (`%`, `_`, backslash escapes) as a case-sensitive GLOB pattern, as Postgres LIKE is. */
export function likeToGlob(pattern: string): string {
  let out = ''
  for (let index = 0; index < pattern.length; index++) {
    const char = pattern[index]
    if (char === '\\' && index + 1 < pattern.length) {
      const next = pattern[++index]
      out += next === '*' || next === '?' || next === '[' ? `[${next}]` : next
    } else if (char === '%') out += '*'
    else if (char === '_') out += '?'
    else if (char === '*' || char === '?' || char === '[') out += `[${char}]`
    else out += char
  }
  return out
}

/** SQLite: times are text (compared as `YYYY-MM-DD HH:MM:SS`, see `canonicalTime`), booleans 0/1, and LIKE ignores ASCII case (so GLOB tests case). */
export const sqliteDialect: Dialect = {
  name: 'sqlite',
  havingByAlias: false,
  quoteIdentifier: doubleQuoted,
  placeholder: (index) => `?${index}`,
  truncate: (granularity, value) => TRUNCATE[granularity](value),
  like: (value, pattern, caseInsensitive) =>
    caseInsensitive
      ? `${UNICODE_LOWER}(${value}) LIKE ${UNICODE_LOWER}(${pattern}) ESCAPE '\\'`
      : `${value} GLOB ${pattern}`,
  likePattern: (pattern, caseInsensitive) => (caseInsensitive ? pattern : likeToGlob(pattern)),
  contains: (value, needle) => `instr(${UNICODE_LOWER}(${value}), ${UNICODE_LOWER}(${needle})) > 0`,
  booleanValue: (value) => (value ? 1 : 0),
  orderBy: standardOrderBy,
  binaryText: (value) => value,
  exactText: (value) => value,
  textTime: canonicalTime,
  // SQLite needs a LIMIT before an OFFSET; -1 is "no limit".
  limit: (limit, offset) =>
    limit === undefined && offset === undefined
      ? ''
      : ` LIMIT ${limit ?? '-1'}${offset === undefined ? '' : ` OFFSET ${offset}`}`,
}
