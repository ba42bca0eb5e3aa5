/** One line of the results table. */
export interface Row {
  scenario: string
  figure: string
  value: number
  unit: string
  /** The same figure for the baseline of the same run, when there is one. */
  baseline?: number
  /** value / baseline. */
  ratio?: number
  /** The issue's target, as text, and whether the figure meets it. */
  target?: string
  met?: boolean
  note?: string
}

function format(value: number | undefined, unit = ''): string {
  if (value === undefined) return ''
  if (!Number.isFinite(value)) return 'n/a'
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2
  return `${value.toFixed(digits)}${unit ? ` ${unit}` : ''}`
}

/** The table as printed: scenario, figure, baseline, ratio, target, met?. */
export function renderTable(rows: Row[]): string {
  const header = ['scenario', 'figure', 'value', 'baseline', 'ratio', 'target', 'met?']
  const cells = rows.map((row) => [
    row.scenario,
    row.figure,
    format(row.value, row.unit),
    format(row.baseline, row.unit),
    row.ratio === undefined ? '' : `${(row.ratio * 100).toFixed(0)}%`,
    row.target ?? '',
    row.met === undefined ? '' : row.met ? 'yes' : 'NO',
  ])
  const widths = header.map((title, column) => Math.max(title.length, ...cells.map((line) => line[column].length)))
  const line = (values: string[]) => `| ${values.map((value, column) => value.padEnd(widths[column])).join(' | ')} |`
  return [line(header), `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`, ...cells.map(line)].join('\n')
}

/** Targets that are not met, named for the closing summary. */
export function unmet(rows: Row[]): Row[] {
  return rows.filter((row) => row.met === false)
}
