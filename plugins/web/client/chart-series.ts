import type { SqlResult } from '../../semantic/model'
import { columnDecimals, columnTitle, formatNumber, isNumericType, timeLabels } from './format'

export type ChartKind = 'bar' | 'line'

/** One drawn series: its name (the legend's and the tooltip's), its numbers and each number as the table shows it. */
export interface SeriesColumn {
  name: string
  values: Array<number | null>
  texts: string[]
}

/**
 * What a chart draws: one label per point (its text, time and key columns) and one or more value series side by
 * side (a comparison's periods). `details` is what the tooltip says of a point besides its label: every number of
 * its row, written as the table writes it, so the two never disagree.
 */
export interface Series {
  kind: ChartKind
  labelName: string
  labels: string[]
  columns: SeriesColumn[]
  details: Array<Array<[name: string, text: string]>>
}

/** A key column (`id`, `customers.id`, `customer_id`): a number that names a row, not one to draw. */
const isKey = (name: string) => /(^|[._])id$/i.test(name)

/**
 * The first numeric column that is not a key gives the values; every other text, time or key column labels the
 * points, joined (`Europe · completed`), so a result by two dimensions does not draw bars that read alike. A single
 * time label makes a line, anything else bars.
 */
export function seriesOf(result: SqlResult & { titles?: string[] }, kind?: ChartKind): Series | undefined {
  const { schema } = result
  const valueIndex = schema.findIndex((column) => isNumericType(column.column_type) && !isKey(column.name))
  if (valueIndex < 0 || result.data.length === 0) return undefined
  const labelIndexes = schema.flatMap((column, index) =>
    index !== valueIndex && (!isNumericType(column.column_type) || isKey(column.name)) ? [index] : [],
  )
  const columns = labelIndexes.map((index) => {
    const raw = result.data.map((row) => row[index])
    return schema[index].column_type === 'time' ? timeLabels(raw) : raw.map((label) => label ?? '–')
  })
  const isTime = labelIndexes.length === 1 && schema[labelIndexes[0]].column_type === 'time'
  const values = result.data
    .map((row) => Number(row[valueIndex] ?? 0))
    .map((value) => (Number.isFinite(value) ? value : 0))
  // The table's own format: one number of decimals for the whole column (391,744.90 beside 619,060.00).
  const decimals = columnDecimals(values)
  const valueName = columnTitle(result, valueIndex)
  const texts = values.map((value) => formatNumber(value, decimals))
  return {
    kind: kind ?? (isTime ? 'line' : 'bar'),
    labelName: labelIndexes.length ? labelIndexes.map((index) => columnTitle(result, index)).join(' · ') : '#',
    labels: result.data.map((_, row) =>
      columns.length ? columns.map((column) => column[row]).join(' · ') : String(row + 1),
    ),
    columns: [{ name: valueName, values, texts }],
    details: texts.map((text) => [[valueName, text]]),
  }
}

/**
 * Whether a series reads better as a chart: over time, or a few categories (a long list of names is a table's job).
 */
export function drawable(series: Series | undefined): Series | undefined {
  if (!series || series.labels.length < 2) return undefined
  if (series.kind === 'line') return series
  return series.labels.length <= 12 ? series : undefined
}

/**
 * Whether an answer's result reads better as a chart: a series over time, or a few categories (a long list of
 * names is a table's job).
 */
export function chartable(result: SqlResult): Series | undefined {
  const series = seriesOf(result)
  // Months of several regions are several lines, not one: a table reads them better than a line through them all.
  const times = result.schema.filter((column) => column.column_type === 'time').length
  if (series && times > 0 && series.kind !== 'line') return undefined
  return drawable(series)
}
