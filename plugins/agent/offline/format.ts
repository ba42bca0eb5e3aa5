import type { MetaMember } from './meta-index'
import type { Granularity } from './frame'

// Formatters are costly to build and cheap to reuse.
const TWO_DECIMALS = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })
const WHOLE = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 })

/**
 * How the analyst writes numbers: counts as integers with thousands separators, money and averages with two
 * decimals, rates as percentages. Tests format the numbers they compute the same way.
 */
export function formatValue(raw: string | number | null | undefined, member: MetaMember): string {
  if (raw === null || raw === undefined || raw === '') return '–'
  const value = typeof raw === 'number' ? raw : Number(raw)
  // A number computed from a missing value (a change from a period without data) is no number to show.
  if (!Number.isFinite(value)) return typeof raw === 'number' ? '–' : String(raw)
  if (member.format === 'percent') return `${(value * 100).toFixed(1)}%`
  const decimals = member.format === 'currency' || member.type === 'avg' || !Number.isInteger(value) ? 2 : 0
  return (decimals === 2 ? TWO_DECIMALS : WHOLE).format(value)
}

/** A time bucket for people: `2024-03` for a month, `2024 Q1`, `2024`, `2024-03-04` for a day or week. */
export function formatBucket(raw: string | null | undefined, granularity: Granularity | undefined): string {
  if (!raw) return '–'
  const day = String(raw).slice(0, 10)
  const [year, month] = day.split('-')
  switch (granularity) {
    case 'year':
      return year
    case 'quarter':
      return `${year} Q${Math.floor((Number(month) - 1) / 3) + 1}`
    case 'month':
      return `${year}-${month}`
    case 'week':
      return `week of ${day}`
    default:
      return day
  }
}

/**
 * Text from the data or the model (a product called `Deluxe_Kit *new*`, a title) as Markdown that reads as that
 * text: the characters that would make emphasis, code, links or markup are escaped with a backslash.
 */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_[\]<>~]/g, '\\$&')
}

/** Escapes a table cell (a pipe would end it, a line break the row). */
export function cell(text: string): string {
  return text.replace(/(?<!\\)\|/g, '\\|').replace(/\n/g, ' ')
}
