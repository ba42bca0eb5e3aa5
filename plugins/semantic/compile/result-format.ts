import type { ColumnType } from '../query/query-plan'

/**
 * Numbers as text without binary floating-point noise: 15 significant digits, the most a double always holds,
 * so a sum of cents reads `1493691.64`, not `1493691.6400000001`.
 */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value)
  return decimalText(String(Number.isInteger(value) ? value : Number(value.toPrecision(15))))
}

/** A number's text without an exponent (`1e-7` is `0.0000001`, `1e+21` is `1000000000000000000000`). */
function decimalText(text: string): string {
  const match = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(text)
  if (!match) return text
  const [, sign, lead, fraction = '', exponent] = match
  const digits = lead + fraction
  const point = 1 + Number(exponent)
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}`
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`
}

/** `YYYY-MM-DD HH:MM:SS` in UTC, as times are stored and shown on every source. */
export function formatTime(value: Date): string {
  return value.toISOString().slice(0, 19).replace('T', ' ')
}

const DECIMAL = /^-?\d+\.\d+$/
const UTF8 = new TextDecoder('utf-8', { fatal: true })
const TIME_TEXT = /^(\d{4}-\d{2}-\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?(?:\.\d+)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i

/**
 * A time the driver gave as text, as `YYYY-MM-DD HH:MM:SS` in UTC: a date alone is its midnight (a `DATE` column
 * reads as text on SQLite and DuckDB), and a time with an offset (DuckDB's `timestamptz`) is moved to UTC.
 */
export function timeText(value: string): string | undefined {
  const match = TIME_TEXT.exec(value.trim())
  if (!match) return undefined
  const [, date, hour = '00', minute = '00', second = '00', zone] = match
  const local = `${date} ${hour}:${minute}:${second}`
  if (zone === undefined || /^(Z|[+-]00(:?00)?)$/i.test(zone)) return local
  const offset = /^[+-]\d{2}$/.test(zone)
    ? `${zone}:00`
    : zone.length === 5
      ? `${zone.slice(0, 3)}:${zone.slice(3)}`
      : zone
  const moment = new Date(`${date}T${hour}:${minute}:${second}${offset}`)
  return Number.isNaN(moment.getTime()) ? undefined : formatTime(moment)
}

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
  if (typeof value === 'string' && type === 'time') return timeText(value) ?? value
  if (typeof value === 'string' && type === 'number' && DECIMAL.test(value)) return formatNumber(Number(value))
  if (value instanceof Uint8Array) {
    // A text dimension MySQL compared as its bytes (see `Dialect.exactText`) is text again; other bytes are base64.
    if (type === 'string')
      try {
        return UTF8.decode(value)
      } catch {
        // Not UTF-8: binary data after all.
      }
    return Buffer.from(value).toString('base64')
  }
  return String(value)
}

const DECIMAL_TEXT = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/i
const SIGNIFICANT = 15

/**
 * An average as the exact quotient of its sum and count, rounded once to 15 significant digits (half away from
 * zero, as `toPrecision`), and written as `formatNumber` writes numbers. The sum is taken as the decimal it reads
 * as (`formatValue`'s text, the same on every source), so a double's last bit (SQLite and DuckDB average in binary
 * floating point) cannot tip the 15th digit: 2811445.13 / 5647 is 497.865261200638 everywhere.
 */
export function formatAverage(sum: unknown, count: unknown): string | null {
  const total = formatValue(sum, 'number')
  const rows = formatValue(count, 'number')
  if (total === null || rows === null || !/^\d+$/.test(rows) || BigInt(rows) === 0n) return null
  const parts = DECIMAL_TEXT.exec(total)
  // Not a finite decimal (Infinity, NaN): the double quotient is all there is.
  if (!parts) return formatNumber(Number(total) / Number(rows))
  const [, sign, whole, fraction = '', exponent = '0'] = parts
  const numerator = BigInt(whole + fraction)
  if (numerator === 0n) return '0'
  const divisor = BigInt(rows)
  // value = numerator * 10^(power - shift) / divisor, with a quotient of more than 15 digits to round from.
  const power = Number(exponent) - fraction.length
  const shift = Math.max(0, SIGNIFICANT + 2 + divisor.toString().length - numerator.toString().length)
  const scaled = numerator * 10n ** BigInt(shift)
  const quotient = scaled / divisor
  const drop = quotient.toString().length - SIGNIFICANT
  const unit = 10n ** BigInt(drop)
  let digits = quotient / unit
  const rest = quotient % unit
  // Half the dropped unit or more rounds up (a remainder of the division only adds to what is dropped).
  if (2n * rest >= unit) digits += 1n
  return formatNumber(Number(`${sign}${digits}e${drop + power - shift}`))
}
