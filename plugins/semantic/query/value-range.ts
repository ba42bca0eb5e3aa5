import type { ColumnType } from './query-plan'

/**
 * What every source can compare a number with, bound as a parameter: a whole number DuckDB binds as a 64-bit integer
 * and refused past its range, and past 2^53 a double no longer holds every whole number, so two sources rounded
 * `9007199254740993` differently. A number with a fraction is a double everywhere.
 */
export function numberInRange(value: number): boolean {
  return Number.isFinite(value) && (!Number.isInteger(value) || Math.abs(value) <= Number.MAX_SAFE_INTEGER)
}

export const NUMBER_RANGE = `whole numbers run from -${Number.MAX_SAFE_INTEGER} to ${Number.MAX_SAFE_INTEGER}`

/** The dates every source holds: Postgres has no year 0 (1 BC), which SQLite, DuckDB and MySQL compared as text. */
export const DATE_RANGE = 'dates run from 0001-01-01 to 9999-12-31'

const KIND_WORDS: Record<ColumnType, string> = {
  string: 'text',
  number: 'a number',
  time: 'a date',
  boolean: 'true or false',
}

/**
 * A row-level security value (a policy's literal, or one from the caller's user attributes or security context) as
 * the member's type takes it, or a problem told in our words. Each database answered a mismatch its own way: Postgres
 * and DuckDB refused `text = integer` with their own message, SQLite and MariaDB matched no row.
 */
export function ruleValueFor(
  type: ColumnType,
  value: string | number | boolean,
  normalizeTime: (value: string) => string | undefined,
): { value: string | number | boolean } | { problem: string } {
  const described = typeof value === 'string' ? JSON.stringify(value) : String(value)
  const wrong = { problem: `${described} is not ${KIND_WORDS[type]}` }
  switch (type) {
    case 'string':
      return typeof value === 'string' ? { value } : wrong
    case 'number': {
      const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value
      if (typeof number !== 'number' || Number.isNaN(number)) return wrong
      return numberInRange(number) ? { value: number } : { problem: `${described} is out of range: ${NUMBER_RANGE}` }
    }
    case 'time': {
      const time = typeof value === 'string' ? normalizeTime(value) : undefined
      return time === undefined ? { problem: `${described} is not a date (${DATE_RANGE})` } : { value: time }
    }
    case 'boolean':
      if (typeof value === 'boolean') return { value }
      if (value === 'true' || value === 'false') return { value: value === 'true' }
      if (value === 0 || value === 1) return { value: value === 1 }
      return wrong
  }
}
