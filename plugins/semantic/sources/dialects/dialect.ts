import type { Granularity } from '../../query/query-ast'

/** A value bound to a placeholder: callers' values only ever travel this way, never inside the SQL text. */
export type Parameter = string | number | boolean | null

/**
 * What the query compiler asks of a SQL flavour. The compiler writes one query shape for every source and lets
 * the dialect spell the parts that differ, so it never branches on the source type.
 */
export interface Dialect {
  readonly name: 'sqlite' | 'postgres' | 'mysql' | 'duckdb'
  /** A possibly dotted identifier (`main.orders`), each part quoted. */
  quoteIdentifier(name: string): string
  /** The placeholder of the `index`-th (1-based) parameter in the order the final SQL text reads them. */
  placeholder(index: number): string
  /** `value` cut down to the start of its hour, day, week (Monday), month, quarter or year, in UTC. */
  truncate(granularity: Granularity, value: string): string
  /** A `LIKE` test: case-sensitive, or not for `ILIKE`; `pattern` is the placeholder of `likePattern(...)`'s value. */
  like(value: string, pattern: string, caseInsensitive: boolean): string
  /** The bound value for a LIKE pattern written with `%`, `_` and backslash escapes. */
  likePattern(pattern: string, caseInsensitive: boolean): string
  /** Case-insensitive "contains": `needle` is a placeholder. */
  contains(value: string, needle: string): string
  /** How a boolean literal is bound (true/false, or 1/0 where booleans are integers). */
  booleanValue(value: boolean): Parameter
  /** An ORDER BY item with the null placement spelled out (the databases' defaults differ). */
  orderBy(target: string, descending: boolean, nullsFirst: boolean): string
  /** A text sort key that orders by code point on every source (collations differ), or the value itself. */
  binaryText(value: string): string
  /**
   * A text dimension as queries compare, group and aggregate it: exactly, character for character, on every source.
   * MySQL's collations ignore case, accents or trailing spaces, so there it is the value's bytes; elsewhere the value.
   */
  exactText(value: string): string
  /**
   * Where times are text in whatever form their writer chose (SQLite): a time dimension as queries compare, group
   * and aggregate it, in the one form `normalizeTime` gives literals (`YYYY-MM-DD HH:MM:SS[.fff]`). A date kept as
   * `1998-01-01` sorted before `1998-01-01 00:00:00`, so "before 1998" took New Year's Day. The expression keeps the
   * value's first ten characters (its day) as they are, so the compiler may bound the raw column by its day for an
   * index to serve. Missing where times are typed (the other sources).
   */
  textTime?(value: string): string
  /**
   * Whether HAVING names a grouped column by its alias rather than by its expression. MariaDB refuses the grouped
   * expression itself in HAVING ("Unknown column 'customers.region' in 'HAVING'") when the condition also holds a
   * measure (so it cannot go to WHERE); MySQL accepts the alias too. The others take the expression.
   */
  readonly havingByAlias: boolean
  /** `LIMIT`/`OFFSET` clauses from placeholders (either may be missing). */
  limit(limit: string | undefined, offset: string | undefined): string
}

/** Double-quoted identifiers, the SQL standard's (SQLite, Postgres, DuckDB). */
export function doubleQuoted(name: string): string {
  return name
    .split('.')
    .map((part) => `"${part.replace(/"/g, '""')}"`)
    .join('.')
}

/** Standard null placement (SQLite 3.30+, Postgres, DuckDB). */
export function standardOrderBy(target: string, descending: boolean, nullsFirst: boolean): string {
  return `${target} ${descending ? 'DESC' : 'ASC'} NULLS ${nullsFirst ? 'FIRST' : 'LAST'}`
}
