import type { SqlResult } from '../semantic/model'

/** A time bucket as the pages show it: `2021` for a year, `2021-Q1`, `2021-01` for a month, a day's date. */
export function bucketText(value: string, granularity: string): string {
  const day = value.slice(0, 10)
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return value
  switch (granularity) {
    case 'year':
      return day.slice(0, 4)
    case 'quarter':
      return `${day.slice(0, 4)}-Q${Math.floor((Number(day.slice(5, 7)) - 1) / 3) + 1}`
    case 'month':
      return day.slice(0, 7)
    default:
      return day
  }
}

/**
 * A result for people to read outside the page (a CSV download): the columns named by the model's titles
 * (`Order date (month)`, not `orders.created_at.month`) and time buckets written at their grain (`2021-01`, not
 * `2021-01-01 00:00:00`), as the widget shows them.
 */
export function readableColumns(result: SqlResult, columns: Array<{ title: string; granularity?: string }>): SqlResult {
  const grains = result.schema.map((_, index) => columns[index]?.granularity)
  return {
    ...result,
    schema: result.schema.map((column, index) => ({ ...column, name: columns[index]?.title || column.name })),
    data: result.data.map((row) =>
      row.map((value, index) => (value !== null && grains[index] ? bucketText(value, grains[index]) : value)),
    ),
  }
}
