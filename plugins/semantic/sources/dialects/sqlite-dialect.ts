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

/** SQLite: times are `YYYY-MM-DD HH:MM:SS` text, booleans 0/1, and LIKE ignores ASCII case (so GLOB tests case). */
export const sqliteDialect: Dialect = {
  name: 'sqlite',
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
  // SQLite needs a LIMIT before an OFFSET; -1 is "no limit".
  limit: (limit, offset) =>
    limit === undefined && offset === undefined
      ? ''
      : ` LIMIT ${limit ?? '-1'}${offset === undefined ? '' : ` OFFSET ${offset}`}`,
}
