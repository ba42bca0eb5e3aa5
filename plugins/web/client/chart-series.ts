import type { SqlResult } from '../../semantic/model'
import { columnTitle, isNumericType, timeLabels } from './format'

export type ChartKind = 'bar' | 'line'

/** What a chart draws: one label per point (the first text or time column) and one value series. */
export interface Series {
  kind: ChartKind
  labelName: string
  valueName: string
  labels: string[]
  values: number[]
}

/**
 * The first text or time column labels the points, the first numeric column gives their values. A time label
 * makes a line, anything else bars.
 */
export function seriesOf(result: SqlResult & { titles?: string[] }, kind?: ChartKind): Series | undefined {
  const valueIndex = result.schema.findIndex((column) => isNumericType(column.column_type))
  if (valueIndex < 0 || result.data.length === 0) return undefined
  const labelIndex = result.schema.findIndex(
    (column, index) => index !== valueIndex && !isNumericType(column.column_type),
  )
  const rawLabels = result.data.map((row, index) => (labelIndex >= 0 ? row[labelIndex] : String(index + 1)))
  const isTime = labelIndex >= 0 && result.schema[labelIndex].column_type === 'time'
  return {
    kind: kind ?? (isTime ? 'line' : 'bar'),
    labelName: labelIndex >= 0 ? columnTitle(result, labelIndex) : '#',
    valueName: columnTitle(result, valueIndex),
    labels: isTime ? timeLabels(rawLabels) : rawLabels.map((label) => label ?? '–'),
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
  if (series.kind === 'line') return series
  return series.values.length <= 12 ? series : undefined
}
