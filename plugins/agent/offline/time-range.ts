import { MONTHS } from './words'

export type Unit = 'day' | 'week' | 'month' | 'quarter' | 'year'

/**
 * A period asked for in a question: absolute (`2024`, `Q1 2025`, `March 2024`, `since 2023`), trailing (`the last 6
 * months`), the current one (`this quarter`, `year to date`) or the one before it (`last year`). Relative periods
 * count from the latest date in the data, not from today: the data may end long before today.
 */
export type RangeSpec =
  | { kind: 'absolute'; from?: string; to?: string; label: string; row: string }
  | { kind: 'trailing'; amount: number; unit: Unit; label: string }
  /** `yearsBack`: the same period that many years earlier ("the same month last year"). */
  | { kind: 'this' | 'previous'; unit: Unit; label: string; yearsBack?: number }
  /** A month or quarter without its year ("in April", "Q2"): a follow-up's year, else the latest one in the data. */
  | { kind: 'partOfYear'; unit: 'month' | 'quarter'; index: number; label: string }

/** A resolved half-open range `[from, to)` of ISO dates, with words for a heading and a short label for a row. */
export interface DateRange {
  from?: string
  to?: string
  label: string
  row: string
}

/** A period found in a question, where it was found, and the words it used. */
export interface Mention {
  spec: RangeSpec
  at: number
  used: string[]
}

const pad = (value: number) => String(value).padStart(2, '0')
const iso = (date: Date) => `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`
const UNIT = (word: string): Unit => word.replace(/s$/, '') as Unit
const NUMBER_WORDS: Record<string, number> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  eighteen: 18,
  twenty: 20,
  thirty: 30,
  sixty: 60,
  ninety: 90,
}
/** The quarter an ordinal names ("the last quarter of 2023" is its fourth). */
const ORDINALS: Record<string, number> = {
  first: 1,
  '1st': 1,
  second: 2,
  '2nd': 2,
  third: 3,
  '3rd': 3,
  fourth: 4,
  '4th': 4,
  last: 4,
  final: 4,
}
export const numberOf = (word: string): number => NUMBER_WORDS[word] ?? Number(word)
const AMOUNT = `(\\d{1,3}|${Object.keys(NUMBER_WORDS).join('|')})`
const YEAR = '((?:19|20)\\d\\d)'

export function yearSpec(year: number): RangeSpec {
  return { kind: 'absolute', from: `${year}-01-01`, to: `${year + 1}-01-01`, label: String(year), row: String(year) }
}
function quarterSpec(quarter: number, year: number): RangeSpec {
  const to = quarter === 4 ? `${year + 1}-01-01` : `${year}-${pad(quarter * 3 + 1)}-01`
  return {
    kind: 'absolute',
    from: `${year}-${pad((quarter - 1) * 3 + 1)}-01`,
    to,
    label: `Q${quarter} ${year}`,
    row: `${year} Q${quarter}`,
  }
}
function monthSpec(month: number, year: number): RangeSpec {
  const to = month === 12 ? `${year + 1}-01-01` : `${year}-${pad(month + 1)}-01`
  const name = MONTHS[month - 1].charAt(0).toUpperCase() + MONTHS[month - 1].slice(1)
  return {
    kind: 'absolute',
    from: `${year}-${pad(month)}-01`,
    to,
    label: `${name} ${year}`,
    row: `${year}-${pad(month)}`,
  }
}

function daySpec(year: number, month: number, day: number): RangeSpec | undefined {
  const start = new Date(Date.UTC(year, month - 1, day))
  // A day the month does not have is no date.
  if (start.getUTCMonth() !== month - 1) return undefined
  const from = iso(start)
  return { kind: 'absolute', from, to: iso(new Date(start.getTime() + 86_400_000)), label: from, row: from }
}

/** A month or quarter without its year, in `year`. */
export function inYear(spec: Extract<RangeSpec, { kind: 'partOfYear' }>, year: number): RangeSpec {
  return spec.unit === 'quarter' ? quarterSpec(spec.index, year) : monthSpec(spec.index, year)
}

/**
 * Every period a question mentions, in the order written. Each pattern blanks out the text it used, so `Q1 2024`
 * is one quarter and not a quarter and a year: open-ended ranges first, then periods of a named year, then periods
 * relative to the data's latest, then years and yearless quarters and months.
 */
export function findPeriods(question: string): Mention[] {
  const scan = periodScan(question)
  takeOpenEnded(scan)
  takePeriodsOfYears(scan)
  takeRelativePeriods(scan)
  takeYearsAndYearless(scan)
  return scan.found.sort((a, b) => a.at - b.at)
}

/** A question's text as periods are taken out of it, and the periods taken so far. */
interface PeriodScan {
  /** The text no pattern has used yet (used text is blanked out, so positions stay). */
  readonly text: string
  found: Mention[]
  /** Every match of `pattern` in the text left, as the period `make` reads from it, said by the words `used`. */
  take(
    pattern: RegExp,
    make: (match: RegExpExecArray) => RangeSpec | undefined,
    used: (match: RegExpExecArray) => string[],
  ): void
}

function periodScan(question: string): PeriodScan {
  let text = ` ${question.toLowerCase().replace(/[?!.,;]/g, ' ')} `
  const found: Mention[] = []
  return {
    get text() {
      return text
    },
    found,
    take(pattern, make, used) {
      for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
        const spec = make(match)
        if (spec)
          found.push({
            spec,
            at: match.index,
            used: match[0]
              .toLowerCase()
              .split(/[^a-z0-9]+/)
              .filter(Boolean),
          })
        text = text.slice(0, match.index) + ' '.repeat(match[0].length) + text.slice(match.index + match[0].length)
      }
    },
  }
}

/** "Since 2023", "after June 2025", "until June 2025", "before 2024": ranges open at one end. */
function takeOpenEnded(scan: PeriodScan): void {
  const months = MONTHS.join('|')
  scan.take(
    new RegExp(`\\b(?:since|after|from)\\s+${YEAR}\\s+(?:onwards?|on)\\b|\\b(since|after)\\s+${YEAR}\\b`),
    (m) => {
      const year = Number(m[1] ?? m[3]) + (m[2] === 'after' ? 1 : 0)
      return { kind: 'absolute', from: `${year}-01-01`, label: `since ${year}`, row: `since ${year}` }
    },
    (m) => [m[1] ?? m[3]],
  )
  // "since March 2025", "after June 2025" (from July), "until June 2025" (June included), "before June 2025".
  // Not the first end of a span ("from March 2025 to June 2025"), read below as two months.
  scan.take(
    new RegExp(
      // "from March 2025" alone is that month (as "customers from March 2025"); "from March 2025 on(wards)" is since.
      `\\b(since|after|until|till|through|before|from(?=\\s+(?:${months})\\s+(?:of\\s+)?\\d{4}\\s+(?:onwards?|on)\\b))\\s+(${months})\\s+(?:of\\s+)?${YEAR}(?:\\s+(?:onwards?|on))?\\b(?!\\s+(?:to|through|until|till|and|-)\\b)`,
    ),
    (m) => {
      const month = monthSpec(MONTHS.indexOf(m[2]) + 1, Number(m[3]))
      if (month.kind !== 'absolute') return undefined
      const name = `${m[2][0].toUpperCase()}${m[2].slice(1)} ${m[3]}`
      const [from, to] = [month.from!, month.to!]
      const spec = (label: string, range: { from?: string; to?: string }): RangeSpec => ({
        kind: 'absolute',
        ...range,
        label,
        row: label,
      })
      if (m[1] === 'since' || m[1] === 'from') return spec(`since ${name}`, { from })
      if (m[1] === 'after') return spec(`after ${name}`, { from: to })
      if (m[1] === 'before') return spec(`before ${name}`, { to: from })
      return spec(`until ${name}`, { to })
    },
    (m) => [m[1], m[2], m[3]],
  )
  scan.take(
    new RegExp(`\\bbefore\\s+${YEAR}\\b`),
    (m) => ({ kind: 'absolute', to: `${m[1]}-01-01`, label: `before ${m[1]}`, row: `before ${m[1]}` }),
    (m) => [m[1]],
  )
}

/** Quarters, halves, months and days of a named year ("Q1 and Q2 2025", "March 2024", "2024-03-01"). */
function takePeriodsOfYears(scan: PeriodScan): void {
  const months = MONTHS.join('|')
  // "Q1 and Q2 2025", "March or April 2024": the year written once serves both.
  scan.take(
    new RegExp(`\\bq([1-4])\\s+(?:and|vs\\.?|versus|to|or|through)\\s+(?=q[1-4]\\s*(?:of\\s+)?${YEAR}\\b)`),
    (m) => {
      const year = new RegExp(`q[1-4]\\s*(?:of\\s+)?${YEAR}`).exec(scan.text.slice(m.index + m[0].length))![1]
      return quarterSpec(Number(m[1]), Number(year))
    },
    (m) => [`q${m[1]}`],
  )
  scan.take(
    new RegExp(
      `\\b(${MONTHS.join('|')})\\s+(?:and|vs\\.?|versus|to|or|through)\\s+(?=(?:${MONTHS.join('|')})\\s+(?:of\\s+)?${YEAR}\\b)`,
    ),
    (m) => {
      const year = new RegExp(`(?:${MONTHS.join('|')})\\s+(?:of\\s+)?${YEAR}`).exec(
        scan.text.slice(m.index + m[0].length),
      )![1]
      return monthSpec(MONTHS.indexOf(m[1]) + 1, Number(year))
    },
    (m) => [m[1]],
  )
  scan.take(
    new RegExp(`\\bq([1-4])\\s*(?:of\\s+)?${YEAR}\\b`),
    (m) => quarterSpec(Number(m[1]), Number(m[2])),
    (m) => [`q${m[1]}`, m[2]],
  )
  scan.take(
    new RegExp(`\\b${YEAR}\\s*q([1-4])\\b`),
    (m) => quarterSpec(Number(m[2]), Number(m[1])),
    (m) => [m[1], `q${m[2]}`],
  )
  // "the last quarter of 2023" is its fourth, not the latest quarter of the data against 2023.
  scan.take(
    new RegExp(`\\b(first|second|third|fourth|1st|2nd|3rd|4th|last|final)\\s+quarter\\s+(?:of\\s+|in\\s+)?${YEAR}\\b`),
    (m) => quarterSpec(ORDINALS[m[1]], Number(m[2])),
    (m) => [m[1], 'quarter', m[2]],
  )
  scan.take(
    new RegExp(`\\b(first|last|final)\\s+month\\s+(?:of\\s+|in\\s+)?${YEAR}\\b`),
    (m) => monthSpec(m[1] === 'first' ? 1 : 12, Number(m[2])),
    (m) => [m[1], 'month', m[2]],
  )
  scan.take(
    new RegExp(
      `\\b(?:the\\s+)?(first|second|1st|2nd)\\s+half\\s+(?:of\\s+)?${YEAR}\\b|\\bh([12])\\s*(?:of\\s+)?${YEAR}\\b`,
    ),
    (m) => {
      const half = m[1] ? (['first', '1st'].includes(m[1]) ? 1 : 2) : Number(m[3])
      const year = Number(m[2] ?? m[4])
      const from = half === 1 ? `${year}-01-01` : `${year}-07-01`
      const to = half === 1 ? `${year}-07-01` : `${year + 1}-01-01`
      return { kind: 'absolute', from, to, label: `H${half} ${year}`, row: `${year} H${half}` }
    },
    () => [],
  )
  scan.take(
    new RegExp(`\\b(${months})\\s+(?:of\\s+)?${YEAR}\\b`),
    (m) => monthSpec(MONTHS.indexOf(m[1]) + 1, Number(m[2])),
    (m) => [m[1], m[2]],
  )
  scan.take(
    new RegExp(`\\b${YEAR}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])\\b`),
    (m) => daySpec(Number(m[1]), Number(m[2]), Number(m[3])),
    (m) => [m[1], m[2], m[3]],
  )
  scan.take(
    new RegExp(`\\b${YEAR}-(0[1-9]|1[0-2])\\b`),
    (m) => monthSpec(Number(m[2]), Number(m[1])),
    (m) => [m[1], m[2]],
  )
}

/** Periods counted back from the latest: "the same month last year", "year to date", "the last 3 months", "last quarter", "this year". */
function takeRelativePeriods(scan: PeriodScan): void {
  scan.take(
    /\b(?:the\s+)?same\s+(day|week|month|quarter)\s+(?:of\s+|in\s+)?(?:last|the\s+previous|previous|the\s+prior|prior)\s+year\b|\b(day|week|month|quarter)\s+a\s+year\s+(?:ago|earlier|before)\b/,
    (m) => {
      const unit = UNIT(m[1] ?? m[2])
      return { kind: 'this', unit, yearsBack: 1, label: `the same ${unit} last year` }
    },
    (m) => [m[1] ?? m[2], 'same', 'year'],
  )
  scan.take(
    /\b(?:year to date|ytd|so far this year)\b/,
    () => ({ kind: 'this', unit: 'year', label: 'year to date' }),
    () => ['ytd', 'year', 'date'],
  )
  scan.take(
    new RegExp(
      `\\b(?:in\\s+|over\\s+|during\\s+)?(?:the\\s+)?(?:last|past|previous|recent|trailing)\\s+${AMOUNT}\\s+(days?|weeks?|months?|quarters?|years?)\\b`,
    ),
    (m) => {
      const amount = Math.max(1, numberOf(m[1]))
      const unit = UNIT(m[2])
      return { kind: 'trailing', amount, unit, label: `the last ${amount} ${unit}s` }
    },
    (m) => [m[1], m[2]],
  )
  scan.take(
    /\b(?:in|over|during)\s+the\s+(?:last|past)\s+(day|week|month|quarter|year)\b|\bthe\s+past\s+(day|week|month|quarter|year)\b/,
    (m) => {
      const unit = UNIT(m[1] ?? m[2])
      return { kind: 'trailing', amount: 1, unit, label: `the last ${unit}` }
    },
    (m) => [m[1] ?? m[2]],
  )
  scan.take(
    /\b(?:last|previous|prior)\s+(day|week|month|quarter|year)\b|\bthe\s+(day|week|month|quarter|year)\s+before\b|\byesterday\b/,
    (m) => {
      const unit = UNIT(m[1] ?? m[2] ?? 'day')
      return { kind: 'previous', unit, label: m[0] === 'yesterday' ? 'yesterday' : `last ${unit}` }
    },
    (m) => [m[1] ?? m[2] ?? 'yesterday'],
  )
  scan.take(
    /\b(?:this|current|the\s+latest|latest)\s+(day|week|month|quarter|year)\b|\btoday\b/,
    (m) => {
      const unit = UNIT(m[1] ?? 'day')
      return { kind: 'this', unit, label: m[0] === 'today' ? 'today' : `this ${unit}` }
    },
    (m) => [m[1] ?? 'today'],
  )
}

/** Years, then quarters and months without a year (read last, so "Q2 2025" and "April 2024" are taken whole before). */
function takeYearsAndYearless(scan: PeriodScan): void {
  scan.take(
    new RegExp(`\\b${YEAR}\\b`),
    (m) => yearSpec(Number(m[1])),
    (m) => [m[1]],
  )
  // Without a year (read last, so "Q2 2025" and "April 2024" are taken whole above).
  scan.take(
    /\bq([1-4])\b|\b(first|second|third|fourth)\s+quarter\b/,
    (m) => {
      const index = m[1] ? Number(m[1]) : ['first', 'second', 'third', 'fourth'].indexOf(m[2]) + 1
      return { kind: 'partOfYear', unit: 'quarter', index, label: `Q${index}` }
    },
    (m) => (m[1] ? [`q${m[1]}`] : [m[2], 'quarter']),
  )
  scan.take(
    // "may" only where it names the month ("in May", "and May"), not as the verb.
    new RegExp(
      `\\b(${MONTHS.filter((month) => month !== 'may').join('|')})\\b|\\b(?<=(?:in|for|during|of|and|or|since|vs|to)\\s+)(may)\\b`,
    ),
    (m) => {
      const month = MONTHS.indexOf(m[1] ?? m[2]) + 1
      const name = MONTHS[month - 1].charAt(0).toUpperCase() + MONTHS[month - 1].slice(1)
      return { kind: 'partOfYear', unit: 'month', index: month, label: name }
    },
    (m) => [m[1] ?? m[2]],
  )
}

/** One range covering several absolute ones (`from 2022 to 2023`). */
export function spanOf(specs: RangeSpec[]): RangeSpec | undefined {
  if (!specs.every((spec) => spec.kind === 'absolute' && spec.from && spec.to)) return undefined
  const absolute = specs as Array<Extract<RangeSpec, { kind: 'absolute' }>>
  const from = absolute.map((spec) => spec.from!).sort()[0]
  const to = absolute
    .map((spec) => spec.to!)
    .sort()
    .at(-1)!
  const label = `${absolute[0].label} to ${absolute.at(-1)!.label}`
  return { kind: 'absolute', from, to, label, row: label }
}

function startOf(date: Date, unit: Unit): Date {
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
      return new Date(day.getTime() - ((day.getUTCDay() + 6) % 7) * 86_400_000)
    }
    case 'day':
      return new Date(Date.UTC(year, month, date.getUTCDate()))
  }
}

function shift(date: Date, unit: Unit, amount: number): Date {
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

/** A short label for a whole calendar unit: `2024`, `2024 Q3`, `2024-03`, the day, or the week's Monday. */
function unitRow(start: Date, unit: Unit): string {
  const day = iso(start)
  if (unit === 'year') return day.slice(0, 4)
  if (unit === 'quarter') return `${day.slice(0, 4)} Q${Math.floor(start.getUTCMonth() / 3) + 1}`
  if (unit === 'month') return day.slice(0, 7)
  return unit === 'week' ? `week of ${day}` : day
}

/** The same absolute period a year earlier ("March 2025" → "March 2024"), for "the same month last year". */
export function yearEarlier(spec: RangeSpec): RangeSpec | undefined {
  if (spec.kind !== 'absolute' || !spec.from || !spec.to) return undefined
  const back = (date: string) => `${Number(date.slice(0, 4)) - 1}${date.slice(4)}`
  const year = spec.from.slice(0, 4)
  const earlier = String(Number(year) - 1)
  return {
    kind: 'absolute',
    from: back(spec.from),
    to: back(spec.to),
    label: spec.label.replaceAll(year, earlier),
    row: spec.row.replaceAll(year, earlier),
  }
}

/**
 * Resolves a period against the latest date in the data: "this year" is the year of the latest date, "last year"
 * the one before it, "the last 6 months" the six calendar months ending with the latest one (days and weeks: ending
 * with the latest day). The label says which dates that was, so nobody has to guess.
 */
export function resolveRange(spec: RangeSpec, latest: string | undefined): DateRange | undefined {
  if (spec.kind === 'absolute') return { from: spec.from, to: spec.to, label: spec.label, row: spec.row }
  if (!latest) return undefined
  const anchor = new Date(`${latest.slice(0, 10)}T00:00:00Z`)
  if (Number.isNaN(anchor.getTime())) return undefined
  if (spec.kind === 'partOfYear') {
    // The latest one that has begun by the latest date in the data.
    const year = anchor.getUTCFullYear()
    const begun = inYear(spec, year) as Extract<RangeSpec, { kind: 'absolute' }>
    return resolveRange(begun.from! <= iso(anchor) ? begun : inYear(spec, year - 1), latest)
  }
  const unit = spec.unit
  let from: Date
  let to: Date
  if (spec.kind === 'trailing') {
    const grain: Unit = unit === 'week' ? 'day' : unit
    const days = unit === 'week' ? spec.amount * 7 : unit === 'day' ? spec.amount : 0
    to = shift(startOf(anchor, grain === 'day' ? 'day' : grain), grain === 'day' ? 'day' : grain, 1)
    from = days ? shift(to, 'day', -days) : shift(startOf(anchor, unit), unit, -(spec.amount - 1))
  } else {
    from = shift(startOf(anchor, unit), unit, spec.kind === 'previous' ? -1 : 0)
    // A week a year back is the week 52 weeks earlier (the same weekdays); the rest keep their calendar dates.
    if (spec.yearsBack)
      from =
        unit === 'week'
          ? shift(from, 'week', -52 * spec.yearsBack)
          : new Date(Date.UTC(from.getUTCFullYear() - spec.yearsBack, from.getUTCMonth(), from.getUTCDate()))
    to = shift(from, unit, 1)
    if (spec.label === 'year to date') to = shift(startOf(anchor, 'day'), 'day', 1)
  }
  const last = iso(new Date(to.getTime() - 86_400_000))
  const whole = spec.kind !== 'trailing' && spec.label !== 'year to date'
  const row = whole ? unitRow(from, unit) : `${iso(from)} to ${last}`
  return {
    from: iso(from),
    to: iso(to),
    label: whole ? `${spec.label} (${row})` : `${spec.label} (${iso(from)} to ${last})`,
    row,
  }
}
