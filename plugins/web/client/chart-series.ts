import type { SqlResult } from '../../semantic/model'
import { columnTitle, isNumericType, timeLabels } from './format'

export type ChartKind = 'bar' | 'line'

/** What a chart draws: one label per point (its text, time and key columns) and one value series. */
export interface Series {
  kind: ChartKind
  labelName: string
  valueName: string
  labels: string[]
  values: number[]
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
  return {
    kind: kind ?? (isTime ? 'line' : 'bar'),
    labelName: labelIndexes.length ? labelIndexes.map((index) => columnTitle(result, index)).join(' · ') : '#',
    valueName: columnTitle(result, valueIndex),
    labels: result.data.map((_, row) =>
      columns.length ? columns.map((column) => column[row]).join(' · ') : String(row + 1),
    ),
    values: result.data.map((row) => Number(row[valueIndex] ?? 0)).map((value) => (Number.isFinite(value) ? value : 0)),
  }
}

/**
 * Whether an answer's result reads better as a chart: a series over time, or a few categories (a long list of
 * names is a table's job).
 */
export function chartable(result: SqlResult): Series | undefined {
  const series = seriesOf(result)
  if (!series || series.values.length < 2) return undefined
  // Months of several regions are several lines, not one: a table reads them better than a line through them all.
  const times = result.schema.filter((column) => column.column_type === 'time').length
  if (times > 0 && series.kind !== 'line') return undefined
  if (series.kind === 'line') return series
  return series.values.length <= 12 ? series : undefined
}
