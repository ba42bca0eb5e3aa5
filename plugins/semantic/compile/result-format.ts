import type { ColumnType } from '../query/query-plan'

/**
 * Numbers as text without binary floating-point noise: 15 significant digits, the most a double always holds,
 * so a sum of cents reads `1493691.64`, not `1493691.6400000001`.
 */
export function formatNumber(value: number): string {
  if (Number.isInteger(value) || !Number.isFinite(value)) return String(value)
  return String(Number(value.toPrecision(15)))
}

/** `YYYY-MM-DD HH:MM:SS` in UTC, as times are stored and shown on every source. */
export function formatTime(value: Date): string {
  return value.toISOString().slice(0, 19).replace('T', ' ')
}

const DECIMAL = /^-?\d+\.\d+$/

/**
 * One result value as the wire's string (or null), by the column's type. Every source answers the same text:
 * decimals that arrive as strings (Postgres `numeric`, MySQL `DECIMAL`) get the rounding of doubles, driver
 * dates read in UTC, booleans whether they are 0/1 or true/false.
 */
export function formatValue(value: unknown, type: ColumnType): string | null {
  if (value === null || value === undefined) return null
  if (type === 'boolean') {
    if (value === 0 || value === 1 || value === 0n || value === 1n || typeof value === 'boolean')
      return value === 1 || value === 1n || value === true ? 'true' : 'false'
    if (value === '0' || value === '1') return value === '1' ? 'true' : 'false'
  }
  if (typeof value === 'number') return formatNumber(value)
  if (typeof value === 'bigint') return value.toString()
  if (value instanceof Date) return formatTime(value)
  if (typeof value === 'string' && type === 'number' && DECIMAL.test(value)) return formatNumber(Number(value))
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64')
  return String(value)
}
