import { drawable, type Series } from './chart-series'
import { firstTable, type MarkdownTable } from './markdown-table'

/** A cell as plain text: bold marks and backslash escapes gone (`**Europe**` → `Europe`, `A\_B` → `A_B`). */
export function plainCell(cell: string): string {
  return cell.replace(/\*\*/g, '').replace(/\\([!-/:-@[-`{-~])/g, '$1')
}

/**
 * A number as an answer writes it (`4,413,169.28`, `+18.7%`, `-312`, a change with its percent after it:
 * `+2,181,226.41 (+18.1%)`), or null for a dash or anything else.
 */
export function cellNumber(cell: string): number | null {
  const text = plainCell(cell)
    .trim()
    .replace(/\u2212/g, '-')
    .replace(/\s*\([+-]?[\d.,]+%\)$/, '')
  if (!/^[+-]?(\d{1,3}(,\d{3})+|\d+)?(\.\d+)?%?$/.test(text) || !/\d/.test(text)) return null
  return Number(text.replace(/[,%+]/g, ''))
}

const isDash = (cell: string) => /^\s*(–|-|—)?\s*$/.test(plainCell(cell))
const isPercent = (cells: string[]) =>
  cells.some((cell) => /%\s*$/.test(cell)) && cells.every((cell) => isDash(cell) || /%\s*$/.test(cell))
const isChange = (header: string) => /^change\b/i.test(plainCell(header))
/** Time buckets as answers write them: `2024`, `2024-03`, `2024-03-04`, `2024 Q1`, `week of 2024-03-04`. */
const isTime = (cell: string) => /^(week of )?\d{4}(-\d{2}(-\d{2})?| Q[1-4]| H[12])?$/.test(plainCell(cell).trim())
/** A key column (`Customer id`, `ID`): it tells namesakes apart, the name beside it says who. */
const isKeyHeader = (header: string) => /(^|\s)id$/i.test(plainCell(header).trim())
/** Rows an answer adds under its own (`Average`, `Total`): a summary, not a point of the series. */
const isSummaryRow = (row: string[]) => /^(average|total)$/i.test(plainCell(row[0] ?? '').trim())

/**
 * Which columns of an answer's table hold numbers: those it right-aligns when it aligns any, else those whose every
 * cell is a number or a dash (the first column always labels the rows).
 */
function valueColumns(table: MarkdownTable): boolean[] {
  if (table.align.some((align) => align !== undefined)) return table.align.map((align) => align === 'right')
  return table.headers.map(
    (_, column) =>
      column > 0 &&
      table.rows.some((row) => cellNumber(row[column]) !== null) &&
      table.rows.every((row) => cellNumber(row[column]) !== null || isDash(row[column])),
  )
}

/** Whether the rows are in the order of these numbers (three or more, not all alike): what an answer ranks by. */
function isRanked(values: Array<number | null>): boolean {
  const numbers = values.filter((value): value is number => value !== null)
  if (numbers.length < 3 || numbers.length < values.length || new Set(numbers).size < 2) return false
  const steps = numbers.slice(1).map((value, index) => value - numbers[index])
  return steps.every((step) => step <= 0) || steps.every((step) => step >= 0)
}

/**
 * Which of the numbers are drawn, so the chart shows what the text says: a share or percentage (the only column of
 * percentages that is not a change) alone; a comparison (several numbers and their change) every one of its periods
 * and the change; a ratio (`Revenue per customer`) the ratio; else the first number.
 */
function drawnColumns(table: MarkdownTable, values: number[], comparison: boolean): number[] {
  const cells = (column: number) => table.rows.map((row) => row[column])
  const main = values.filter((column) => !isChange(table.headers[column]))
  const percents = main.filter((column) => isPercent(cells(column)))
  if (percents.length) return [percents[percents.length - 1]]
  const change = values.find((column) => isChange(table.headers[column]) && !isPercent(cells(column)))
  const changePercent = values.find((column) => isChange(table.headers[column]) && isPercent(cells(column)))
  // Ranked by growth in percent ("which category grew fastest"): the percent is what the text calls most, so it is
  // the bar drawn; the amounts stay in the tooltip and the table.
  const ranked = (column: number | undefined) =>
    column !== undefined && isRanked(table.rows.map((row) => cellNumber(row[column])))
  if (!comparison && main.length >= 2 && changePercent !== undefined && ranked(changePercent) && !ranked(change))
    return [changePercent]
  if (main.length >= 2 && change !== undefined) return [...main, change]
  const ratio = main.find((column) => /\bper\b/i.test(table.headers[column]))
  if (ratio !== undefined) return [ratio]
  return main.length ? [main[0]] : []
}

/**
 * The chart of an answer, drawn from the table the answer itself writes (the numbers its text speaks of), so the
 * chart, its table and the text agree: every period compared, shares where it speaks of shares. Labels are the
 * table's text columns; a single column of time buckets makes a line, anything else bars (up to 12).
 */
export function answerFigure(text: string): { series: Series; table: MarkdownTable } | undefined {
  const table = firstTable(text)
  if (!table || table.rows.length < 2) return undefined
  const rows = table.rows.filter((row) => !isSummaryRow(row))
  const numeric = valueColumns(table)
  const values = numeric.flatMap((isValue, column) => (isValue ? [column] : []))
  const labelColumns = numeric.flatMap((isValue, column) => (isValue ? [] : [column]))
  // "2023 vs 2024" in the answer's title: periods side by side, whatever order the rows are in.
  const comparison = / vs /.test(/^\s*\*\*(.+?)\*\*/.exec(text)?.[1] ?? '')
  const drawn = drawnColumns(table, values, comparison)
  if (drawn.length === 0 || labelColumns.length === 0) return undefined
  // A row's name comes first and its key after it (`Ada Rossi (1867)`): a shortened label still says who it is.
  const keys = labelColumns.filter((column) => isKeyHeader(table.headers[column]))
  const names = labelColumns.filter((column) => !isKeyHeader(table.headers[column]))
  // Periods compared are bars side by side; a series over time is a line.
  const line = !comparison && labelColumns.length === 1 && rows.every((row) => isTime(row[labelColumns[0]]))
  const series = drawable({
    kind: line ? 'line' : 'bar',
    labelName: names.map((column) => plainCell(table.headers[column])).join(' · '),
    labels: rows.map((row) => {
      const name = names.map((column) => plainCell(row[column])).join(' · ')
      const key = keys.map((column) => plainCell(row[column])).join(' · ')
      return key && name ? `${name} (${key})` : name || key
    }),
    columns: drawn.map((column) => ({
      name: plainCell(table.headers[column]),
      values: rows.map((row) => cellNumber(row[column])),
      texts: rows.map((row) => plainCell(row[column])),
    })),
    details: rows.map((row) => values.map((column) => [plainCell(table.headers[column]), plainCell(row[column])])),
  })
  return series && { series, table }
}
