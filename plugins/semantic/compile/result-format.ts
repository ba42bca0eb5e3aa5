import type { ColumnType } from '../query/query-plan'

/**
 * Numbers as text without binary floating-point noise: 15 significant digits, the most a double always holds,
 * so a sum of cents reads `1493691.64`, not `1493691.6400000001`.
 */
export function formatNumber(value: number): string {
  if (Number.isInteger(value) || !Number.isFinite(value)) return String(value)
  return String(Number(value.toPrecision(15)))
}

/** One result value as the wire's string (or null), by the column's type. */
export function formatValue(value: unknown, type: ColumnType): string | null {
  if (value === null || value === undefined) return null
  if (type === 'boolean' && (value === 0 || value === 1 || typeof value === 'boolean')) return value === 1 || value === true ? 'true' : 'false'
  if (typeof value === 'number') return formatNumber(value)
  if (typeof value === 'bigint') return value.toString()
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64')
  return String(value)
}
