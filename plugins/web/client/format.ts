/** Number and label formatting shared by the widgets and the chat's result tables. */

const plain = new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 })
const compact = new Intl.NumberFormat(undefined, { notation: 'compact', maximumFractionDigits: 1 })

export function isNumericType(columnType: string): boolean {
  return columnType === 'number'
}

const fixed = [0, 1, 2].map(
  (digits) => new Intl.NumberFormat(undefined, { minimumFractionDigits: digits, maximumFractionDigits: digits }),
)

/** A number with up to two decimals; with `decimals`, exactly that many (a column's, see `columnDecimals`). */
export function formatNumber(value: number, decimals?: number): string {
  return decimals === undefined ? plain.format(value) : fixed[Math.min(Math.max(decimals, 0), 2)].format(value)
}

/**
 * The decimals a column of numbers is shown with, the same for each of its values: none when every value is whole
 * (to two decimals), else two. `3,443,148.90` and `619,060.00`, not `3,443,148.9` beside `619,060`.
 */
export function columnDecimals(values: Iterable<string | number | null | undefined>): number {
  for (const value of values) {
    if (value === null || value === undefined || value === '') continue
    const number = Number(value)
    if (Number.isFinite(number) && Math.round(number * 100) % 100 !== 0) return 2
  }
  return 0
}

/** Axis ticks: short (`1.2M`). */
export function formatCompact(value: number): string {
  return compact.format(value)
}

/** A cell as text: numbers formatted (with their column's `decimals`), times shortened, null as an en dash. */
export function formatCell(value: string | null, columnType: string, decimals?: number): string {
  if (value === null) return '–'
  if (isNumericType(columnType)) {
    const number = Number(value)
    return Number.isFinite(number) ? formatNumber(number, decimals) : value
  }
  if (columnType === 'time') return formatTime(value)
  return value
}

/** `2024-03-01 00:00:00` → `2024-03-01`; the time of day only when there is one. */
export function formatTime(value: string): string {
  const [day, time] = value.split(/[ T]/)
  return time && !/^00:00(:00(\.0+)?)?Z?$/.test(time) ? `${day} ${time.slice(0, 5)}` : day
}

/** Month buckets read better as `2024-03`: used when every value of a column is the first of a month. */
export function timeLabels(values: Array<string | null>): string[] {
  const days = values.map((value) => (value === null ? '–' : formatTime(value)))
  return days.every((day) => /^\d{4}-\d{2}-01$/.test(day)) ? days.map((day) => day.slice(0, 7)) : days
}

/** `orders.total_amount` → `Total amount`; an alias such as `revenue` → `Revenue`. */
export function columnLabel(name: string): string {
  const last = name.includes('.') ? name.slice(name.lastIndexOf('.') + 1) : name
  const words = last.replace(/_/g, ' ').trim()
  return words ? words[0].toUpperCase() + words.slice(1) : name
}

/**
 * A column's heading: the title the server resolved from the model (`titles`, sent with dashboard widget data)
 * when there is one, else the column's name made readable.
 */
export function columnTitle(result: { schema: Array<{ name: string }>; titles?: string[] }, index: number): string {
  return result.titles?.[index] || columnLabel(result.schema[index]?.name ?? '')
}

/** A KPI: short enough for its card (`59.8M`) from ten thousand up; the full value goes in its `title`. */
export function formatKpi(value: number): string {
  return Math.abs(value) >= 10_000 ? formatCompact(value) : formatNumber(value)
}

/**
 * Up to two initials from a display name: `Eva Europa` → `EE`, `anna` → `A`, `"Ann" (Sales)` → `AS`; each the first
 * letter or digit of a word, so quotes, brackets and markup a name may hold are not shown as initials; `?` when the
 * name has no letter or digit.
 */
export function initials(displayName: string | null | undefined): string {
  const words = (displayName ?? '')
    .split(/\s+/)
    .map((word) => /[\p{L}\p{N}]/u.exec(word)?.[0])
    .filter((letter) => letter !== undefined)
  if (words.length === 0) return '?'
  const letters = words.length === 1 ? [words[0]] : [words[0], words[words.length - 1]]
  return letters.map((letter) => letter.toUpperCase()).join('')
}
