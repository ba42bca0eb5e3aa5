import type { Granularity } from '../../query/query-ast'
import type { Dialect } from './dialect'

const TRUNCATE: Record<Granularity, (value: string) => string> = {
  hour: (value) => `DATE_FORMAT(${value}, '%Y-%m-%d %H:00:00')`,
  day: (value) => `DATE_FORMAT(${value}, '%Y-%m-%d 00:00:00')`,
  // WEEKDAY() is 0 on Monday: step back that many days to the week's Monday.
  week: (value) => `DATE_FORMAT(DATE_SUB(${value}, INTERVAL WEEKDAY(${value}) DAY), '%Y-%m-%d 00:00:00')`,
  month: (value) => `DATE_FORMAT(${value}, '%Y-%m-01 00:00:00')`,
  quarter: (value) => `CONCAT(YEAR(${value}), '-', LPAD((QUARTER(${value}) - 1) * 3 + 1, 2, '0'), '-01 00:00:00')`,
  year: (value) => `DATE_FORMAT(${value}, '%Y-01-01 00:00:00')`,
}

/** Text in lower case, compared by its characters (case and accents count; the lowering already ignored case). */
const lowerExact = (text: string) => `LOWER(CONVERT(${text} USING utf8mb4)) COLLATE utf8mb4_bin`

/**
 * MySQL 8 and MariaDB 10.11: backquoted identifiers, positional `?` placeholders, no DATE_TRUNC (truncated times
 * are formatted as the `YYYY-MM-DD HH:MM:SS` every source answers), no NULLS FIRST/LAST, and text comparisons
 * that ignore case under the default collations, so a case-sensitive LIKE compares bytes.
 */
export const mysqlDialect: Dialect = {
  name: 'mysql',
  havingByAlias: true,
  quoteIdentifier: (name) =>
    name
      .split('.')
      .map((part) => `\`${part.replace(/`/g, '``')}\``)
      .join('.'),
  placeholder: () => '?',
  truncate: (granularity, value) => TRUNCATE[granularity](value),
  // A text dimension arrives as its bytes (`exactText`): LOWER() does nothing to bytes, so ILIKE and contains read it
  // as text again, lower it, then compare it by its characters (the default collation also ignored accents:
  // 'Bogotá' ILIKE 'bogota' matched).
  like: (value, pattern, caseInsensitive) =>
    caseInsensitive
      ? `${lowerExact(value)} LIKE ${lowerExact(pattern)} ESCAPE '\\\\'`
      : // Per character, case and accents counting: `_` is one character of a multi-byte text, not one byte.
        `CONVERT(${value} USING utf8mb4) COLLATE utf8mb4_bin LIKE CONVERT(${pattern} USING utf8mb4) COLLATE utf8mb4_bin ESCAPE '\\\\'`,
  likePattern: (pattern) => pattern,
  contains: (value, needle) => `INSTR(${lowerExact(value)}, ${lowerExact(needle)}) > 0`,
  booleanValue: (value) => (value ? 1 : 0),
  // MySQL sorts nulls first ascending and last descending; the other placements sort on `x IS NULL` first (which
  // MariaDB refuses for an alias of an aggregate, so only when needed).
  orderBy: (target, descending, nullsFirst) =>
    nullsFirst === !descending
      ? `${target} ${descending ? 'DESC' : 'ASC'}`
      : `(${target} IS NULL) ${nullsFirst ? 'DESC' : 'ASC'}, ${target} ${descending ? 'DESC' : 'ASC'}`,
  binaryText: (value) => `CAST(${value} AS BINARY)`,
  // Converted first: the bytes of a latin1 column would be neither the UTF-8 of a bound value nor UTF-8 to read back.
  exactText: (value) => `CAST(CONVERT(${value} USING utf8mb4) AS BINARY)`,
  // MySQL has no OFFSET without LIMIT; the largest unsigned BIGINT is its documented "no limit".
  limit: (limit, offset) =>
    limit === undefined && offset === undefined
      ? ''
      : ` LIMIT ${limit ?? '18446744073709551615'}${offset === undefined ? '' : ` OFFSET ${offset}`}`,
}
