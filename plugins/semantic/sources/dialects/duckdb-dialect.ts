import { doubleQuoted, standardOrderBy, type Dialect } from './dialect'

/** DuckDB: Postgres-like (`date_trunc` with Monday weeks, `ILIKE`, booleans); LIKE needs its escape named. */
export const duckdbDialect: Dialect = {
  name: 'duckdb',
  quoteIdentifier: doubleQuoted,
  placeholder: (index) => `$${index}`,
  truncate: (granularity, value) => `date_trunc('${granularity}', ${value})`,
  like: (value, pattern, caseInsensitive) => `${value} ${caseInsensitive ? 'ILIKE' : 'LIKE'} ${pattern} ESCAPE '\\'`,
  likePattern: (pattern) => pattern,
  contains: (value, needle) => `strpos(lower(${value}), lower(${needle})) > 0`,
  booleanValue: (value) => value,
  orderBy: standardOrderBy,
  binaryText: (value) => value,
  limit: (limit, offset) =>
    `${limit === undefined ? '' : ` LIMIT ${limit}`}${offset === undefined ? '' : ` OFFSET ${offset}`}`,
}
