import type { Cell } from '../../test/plugins/agent/questions/types'
import type { SourceKind } from '../samples'

export type { Cell }

/**
 * One question of an eval set: what a manager would type, and the truth as SQL on the source's own tables (the
 * dialect given, for the few things SQL writes differently), with how each column of its rows is written.
 */
export interface EvalQuestion {
  ask: string
  /** SQL on the sample's tables; omitted when the analyst must decline. */
  sql?: string | ((kind: SourceKind) => string)
  /** Default: labels, then one money column. */
  cells?: Cell[]
  /** The expected single row is the first row of the answer's table. */
  first?: boolean
}

/** `first last` as one text, as each dialect joins text. */
export function fullName(kind: SourceKind, first: string, last: string): string {
  return kind === 'mariadb' ? `CONCAT(${first}, ' ', ${last})` : `${first} || ' ' || ${last}`
}

/** The `YYYY-MM` of a date or time column. */
export function month(kind: SourceKind, column: string): string {
  if (kind === 'sqlite') return `strftime('%Y-%m', ${column})`
  if (kind === 'mariadb') return `DATE_FORMAT(${column}, '%Y-%m')`
  if (kind === 'duckdb') return `strftime(${column}, '%Y-%m')`
  return `to_char(${column}, 'YYYY-MM')`
}

/** The year of a date or time column, as text. */
export function year(kind: SourceKind, column: string): string {
  if (kind === 'sqlite') return `strftime('%Y', ${column})`
  if (kind === 'mariadb') return `DATE_FORMAT(${column}, '%Y')`
  if (kind === 'duckdb') return `strftime(${column}, '%Y')`
  return `to_char(${column}, 'YYYY')`
}
