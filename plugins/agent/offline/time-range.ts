import { MONTHS } from './words'

/** A date range asked for in a question: absolute, or relative to the latest date in the data. */
export type RangeSpec =
  | { kind: 'absolute'; from?: string; to?: string; label: string }
  | { kind: 'relative'; amount: number; unit: 'day' | 'week' | 'month' | 'quarter' | 'year'; label: string }
  | { kind: 'this'; unit: 'month' | 'quarter' | 'year'; label: string }

/** A resolved half-open range `[from, to)` of ISO dates. */
export interface DateRange {
  from?: string
  to?: string
  label: string
}

const pad = (value: number) => String(value).padStart(2, '0')
const iso = (date: Date) => `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`
const UNITS: Record<string, 'day' | 'week' | 'month' | 'quarter' | 'year'> = {
  day: 'day',
  days: 'day',
  week: 'week',
  weeks: 'week',
  month: 'month',
  months: 'month',
  quarter: 'quarter',
  quarters: 'quarter',
  year: 'year',
  years: 'year',
}
const NUMBER_WORDS: Record<string, number> = { one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, twelve: 12 }

function yearRange(from: number, to = from): RangeSpec {
  return { kind: 'absolute', from: `${from}-01-01`, to: `${to + 1}-01-01`, label: from === to ? `in ${from}` : `from ${from} to ${to}` }
}

/**
 * Finds the date range of a question (`in 2024`, `from 2022 to 2023`, `since 2023`, `in March 2024`, `Q1 2024`,
 * `last 3 months`, `past year`, `this year`). Returns the range and the words it used.
 */
export function parseRange(question: string): { range: RangeSpec; used: string[] } | undefined {
  const text = question.toLowerCase()
  let match: RegExpExecArray | null
  if ((match = /\b(?:between|from)\s+(20\d\d|19\d\d)\s+(?:and|to|through|until|-)\s+(20\d\d|19\d\d)\b/.exec(text))) {
    const [from, to] = [Number(match[1]), Number(match[2])].sort((a, b) => a - b)
    return { range: yearRange(from, to), used: [match[1], match[2]] }
  }
  if ((match = /\b(?:since|after)\s+(20\d\d|19\d\d)\b/.exec(text))) {
    const year = Number(match[1]) + (match[0].startsWith('after') ? 1 : 0)
    return { range: { kind: 'absolute', from: `${year}-01-01`, label: `since ${year}` }, used: [match[1]] }
  }
  if ((match = /\bbefore\s+(20\d\d|19\d\d)\b/.exec(text)))
    return { range: { kind: 'absolute', to: `${match[1]}-01-01`, label: `before ${match[1]}` }, used: [match[1]] }
  if ((match = /\bq([1-4])\s*(?:of\s+)?(20\d\d|19\d\d)\b/.exec(text))) {
    const quarter = Number(match[1])
    const year = Number(match[2])
    const from = `${year}-${pad((quarter - 1) * 3 + 1)}-01`
    const to = quarter === 4 ? `${year + 1}-01-01` : `${year}-${pad(quarter * 3 + 1)}-01`
    return { range: { kind: 'absolute', from, to, label: `in Q${quarter} ${year}` }, used: [`q${quarter}`, match[2]] }
  }
  const monthPattern = new RegExp(`\\b(${MONTHS.join('|')})\\s+(?:of\\s+)?(20\\d\\d|19\\d\\d)\\b`)
  if ((match = monthPattern.exec(text))) {
    const month = MONTHS.indexOf(match[1]) + 1
    const year = Number(match[2])
    const to = month === 12 ? `${year + 1}-01-01` : `${year}-${pad(month + 1)}-01`
    const name = match[1].charAt(0).toUpperCase() + match[1].slice(1)
    return { range: { kind: 'absolute', from: `${year}-${pad(month)}-01`, to, label: `in ${name} ${year}` }, used: [match[1], match[2]] }
  }
  if ((match = /\b(?:last|past|previous|recent)\s+(\d{1,3}|one|two|three|four|five|six|seven|eight|nine|ten|twelve)?\s*(days?|weeks?|months?|quarters?|years?)\b/.exec(text))) {
    const amount = match[1] ? (NUMBER_WORDS[match[1]] ?? Number(match[1])) : 1
    const unit = UNITS[match[2]]
    const label = amount === 1 ? `in the last ${unit} of data` : `in the last ${amount} ${unit}s of data`
    return { range: { kind: 'relative', amount: Math.max(1, amount), unit, label }, used: [match[1] ?? '', match[2]].filter(Boolean) }
  }
  if ((match = /\b(?:this|current)\s+(month|quarter|year)\b/.exec(text)))
    return { range: { kind: 'this', unit: match[1] as 'month' | 'quarter' | 'year', label: `in the latest ${match[1]} of data` }, used: [match[1]] }
  if ((match = /\b(?:in|during|for|of|throughout)\s+(?:the\s+year\s+)?(20\d\d|19\d\d)\b/.exec(text)) || (match = /\b(20\d\d|19\d\d)\b/.exec(text)))
    return { range: yearRange(Number(match[1])), used: [match[1]] }
  return undefined
}

function startOf(date: Date, unit: 'day' | 'week' | 'month' | 'quarter' | 'year'): Date {
  const year = date.getUTCFullYear()
  const month = date.getUTCMonth()
  switch (unit) {
    case 'year':
      return new Date(Date.UTC(year, 0, 1))
    case 'quarter':
      return new Date(Date.UTC(year, month - (month % 3), 1))
    case 'month':
      return new Date(Date.UTC(year, month, 1))
    case 'week': {
      const day = new Date(Date.UTC(year, month, date.getUTCDate()))
      const weekday = (day.getUTCDay() + 6) % 7
      return new Date(day.getTime() - weekday * 86_400_000)
    }
    case 'day':
      return new Date(Date.UTC(year, month, date.getUTCDate()))
  }
}

function shift(date: Date, unit: 'day' | 'week' | 'month' | 'quarter' | 'year', amount: number): Date {
  switch (unit) {
    case 'day':
      return new Date(date.getTime() + amount * 86_400_000)
    case 'week':
      return new Date(date.getTime() + amount * 7 * 86_400_000)
    case 'month':
      return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + amount, 1))
    case 'quarter':
      return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 3 * amount, 1))
    case 'year':
      return new Date(Date.UTC(date.getUTCFullYear() + amount, date.getUTCMonth(), 1))
  }
}

/**
 * Resolves a range against the latest date in the data: "the last N months" are the N calendar months ending with
 * the latest month that has data (that month included), "this year" is the latest year that has data.
 */
export function resolveRange(spec: RangeSpec, latest: string | undefined): DateRange | undefined {
  if (spec.kind === 'absolute') return { from: spec.from, to: spec.to, label: spec.label }
  if (!latest) return undefined
  // Only the day matters: the latest date's day anchors every relative range.
  const anchor = new Date(`${latest.slice(0, 10)}T00:00:00Z`)
  if (Number.isNaN(anchor.getTime())) return undefined
  const unit = spec.unit
  const end = shift(startOf(anchor, unit), unit, 1)
  const from = spec.kind === 'this' ? startOf(anchor, unit) : shift(startOf(anchor, unit), unit, -(spec.amount - 1))
  return { from: iso(from), to: iso(end), label: `${spec.label} (${iso(from)} to ${iso(new Date(end.getTime() - 86_400_000))})` }
}
