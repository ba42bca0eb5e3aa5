import { cell, escapeMarkdown, formatBucket, formatValue } from './format'
import type { Frame, Resolved } from './frame'
import type { MetaIndex, MetaMember } from './meta-index'
import { withKeys } from './question'

/** One value filter in words: `Region: Europe`, `Segment: not Corporate`, `Order amount > 1,000`. */
export function filterWords(filter: Frame['values'][number]): string {
  if (filter.op === 'none') return `${filter.member.title}: none`
  if (filter.op) return `${filter.member.title} ${filter.op} ${Number(filter.values[0]).toLocaleString('en-US')}`
  const values = filter.values.map(escapeMarkdown)
  return `${filter.member.title}: ${filter.negated ? `not ${values.join(' or ')}` : values.join(', ')}`
}

/** A filter in words: `Region: Europe`, `Segment: not Corporate`, `VIP: yes`. */
export function describeFilters(frame: Frame, conditions = true, which: 'all' | 'part' | 'whole' = 'all'): string[] {
  const parts: string[] = []
  const kept = (filter: { scope?: boolean }) =>
    which === 'all' || (which === 'whole' ? filter.scope === true : filter.scope !== true)
  if (conditions) {
    for (const filter of frame.values.filter(kept)) parts.push(filterWords(filter))
    for (const filter of frame.booleans.filter(kept))
      parts.push(`${filter.member.title}: ${filter.value ? 'yes' : 'no'}`)
  }
  return parts
}

const grainWord = { day: 'day', week: 'week', month: 'month', quarter: 'quarter', year: 'year' } as const

/** What was computed, in words a manager reads at a glance: `Revenue by Region, 2024 (Segment: Corporate)`. */
export function answerTitle(resolved: Resolved): string {
  const { frame, range, periods } = resolved
  const analysis = frame.analysis
  let what = frame.measure.title
  if (analysis.kind === 'ratio') what = `${frame.measure.title} per ${analysis.per.replace(/s$/, '')}`
  if (analysis.kind === 'share')
    what =
      frame.dimensions.length || !describeFilters(frame, true, 'part').length
        ? `Share of ${frame.measure.title.toLowerCase()}`
        : `Share of ${frame.measure.title.toLowerCase()} from ${describeFilters(frame, true, 'part').join(', ')}`
  if (analysis.kind === 'growth') what = `${frame.measure.title} growth`
  if (analysis.kind === 'record') {
    const thing = analysis.attribute.cube.replace(/_/g, ' ').replace(/s$/, '')
    const many = (frame.top?.n ?? 1) > 1
    what = `${analysis.direction === 'desc' ? 'Highest' : 'Lowest'} ${analysis.attribute.title.toLowerCase()}, ${many ? `${frame.top?.n} ${thing}s` : `single ${thing}`}`
  }
  if (analysis.kind === 'why') what = `${frame.measure.title} and what drives it`
  if (frame.averagePer) what = `Average ${frame.measure.title.toLowerCase()} per ${frame.averagePer}`
  const by = [
    ...frame.dimensions.map((dim) => dim.title),
    ...(frame.granularity && !periods && !frame.averagePer ? [grainWord[frame.granularity]] : []),
  ]
  const top =
    frame.top && analysis.kind !== 'record' && (by.length || frame.granularity)
      ? frame.top.n === 1
        ? `, ${frame.top.direction === 'desc' ? 'highest' : 'lowest'} first`
        : `, ${frame.top.direction === 'desc' ? 'top' : 'bottom'} ${frame.top.n}`
      : ''
  const when = periods
    ? periods.map((period) => period.row).join(analysis.kind === 'growth' ? ' to ' : ' vs ')
    : range
      ? range.label
      : 'all time'
  // A share's part is in its name; what it is a share of (the whole's own filters) follows, as other filters do.
  const filters =
    analysis.kind === 'share' && !frame.dimensions.length
      ? describeFilters(frame, true, 'whole')
      : describeFilters(frame)
  // "by Customer, City and Email": a list as it is said, not "Customer and City and Email".
  const byWords = by.length > 1 ? `${by.slice(0, -1).join(', ')} and ${by.at(-1)}` : (by[0] ?? '')
  return `${what}${by.length ? ` by ${byWords}` : ''}${top}, ${when}${filters.length ? ` (${filters.join('; ')})` : ''}`
}

export interface Column {
  header: string
  /** Numbers are right-aligned. */
  numeric: boolean
}

/** A markdown table. */
export function table(columns: Column[], rows: string[][]): string {
  return [
    `| ${columns.map((column) => cell(escapeMarkdown(column.header))).join(' | ')} |`,
    `|${columns.map((column) => (column.numeric ? '---:' : '---')).join('|')}|`,
    ...rows.map((row) => `| ${row.map(cell).join(' | ')} |`),
  ].join('\n')
}

/** The label columns of a query's rows: dimensions (keys beside names), then the time bucket. */
export function labelColumns(index: MetaIndex, frame: Frame, withGrain = true): Column[] {
  const columns = withKeys(index, frame.dimensions).map((dim) => ({ header: dim.title, numeric: false }))
  if (withGrain && frame.granularity && frame.timeDimension)
    columns.push({ header: `${frame.timeDimension.title} (${frame.granularity})`, numeric: false })
  return columns
}

/** Writes a label cell: booleans as yes/no, time buckets at their granularity, the rest as is (escaped). */
export function labelCells(
  row: Array<string | null>,
  count: number,
  frame: Frame,
  index: MetaIndex,
  withGrain = true,
): string[] {
  const dims = withKeys(index, frame.dimensions)
  return row.slice(0, count).map((value, position) => {
    const dim = dims[position]
    if (!dim && withGrain && frame.granularity) return formatBucket(value, frame.granularity)
    if (dim?.type === 'boolean')
      return value === 'true' || value === '1' ? 'Yes' : value === 'false' || value === '0' ? 'No' : (value ?? '–')
    // Values are the data's: a name with `_` or `*` in it is a name, not emphasis.
    return value === null ? '–' : escapeMarkdown(value)
  })
}

/** A number, formatted as its member says; money and averages with two decimals, counts whole. */
export const show = (raw: string | number | null | undefined, member: MetaMember) => formatValue(raw, member)

/** A signed change: `+2,180,000.00`, `-312`. */
export function signed(value: number, member: MetaMember): string {
  const text = formatValue(value, member)
  return value > 0 ? `+${text}` : text
}

/** A percentage with one decimal, signed when asked: `18.1%`, `+4.2%`. */
export function percent(value: number | undefined, sign = false): string {
  if (value === undefined || !Number.isFinite(value)) return '–'
  return `${sign && value > 0 ? '+' : ''}${value.toFixed(1)}%`
}
