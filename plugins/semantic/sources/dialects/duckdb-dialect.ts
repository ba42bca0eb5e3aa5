import type { Dialect } from './dialect'
import { postgresDialect } from './postgres-dialect'

/**
 * DuckDB speaks the Postgres flavour the compiler uses (`date_trunc` with Monday weeks, `ILIKE`, booleans, `$n`
 * placeholders); only its text already sorts by code point, so no collation is named.
 */
export const duckdbDialect: Dialect = { ...postgresDialect, name: 'duckdb', binaryText: (value) => value }
