import { doubleQuoted, standardOrderBy, type Dialect } from './dialect'

/**
 * Postgres: `date_trunc` (weeks start on Monday), `ILIKE`, real booleans. Sessions run in UTC, so timestamps
 * read the same as on every other source. Text sorts by code point (`COLLATE "C"`), whatever the database's
 * collation.
 */
export const postgresDialect: Dialect = {
  name: 'postgres',
  havingByAlias: false,
  quoteIdentifier: doubleQuoted,
  placeholder: (index) => `$${index}`,
  truncate: (granularity, value) => `date_trunc('${granularity}', ${value})`,
  like: (value, pattern, caseInsensitive) => `${value} ${caseInsensitive ? 'ILIKE' : 'LIKE'} ${pattern} ESCAPE '\\'`,
  likePattern: (pattern) => pattern,
  contains: (value, needle) => `strpos(lower(${value}), lower(${needle})) > 0`,
  booleanValue: (value) => value,
  orderBy: standardOrderBy,
  binaryText: (value) => `${value} COLLATE "C"`,
  exactText: (value) => value,
  limit: (limit, offset) =>
    `${limit === undefined ? '' : ` LIMIT ${limit}`}${offset === undefined ? '' : ` OFFSET ${offset}`}`,
}
