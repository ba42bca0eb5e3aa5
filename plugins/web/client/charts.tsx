import type { SqlResult } from '../../semantic/model'
import { Chart } from './chart'
import { seriesOf, type ChartKind } from './chart-series'
import { columnDecimals, columnTitle, formatCell, formatKpi, formatNumber, isNumericType } from './format'

/** Widget data: a query result, with column titles from the model when the server resolved them. */
export type TitledResult = SqlResult & { titles?: string[]; period?: { label: string; from: string; to: string } }

function NoData() {
  return <p class="widget-empty">No data to show.</p>
}

/**
 * The first row's numbers, large and short (`59.8M`), the exact value on hover and for screen readers. A number's
 * label is left out where the card's title already says it (a "Revenue" card does not say "Revenue" twice).
 */
export function NumberWidget({ result, title }: { result: TitledResult; title?: string }) {
  const row = result.data[0]
  const columns = result.schema
    .map((column, index) => ({ column, index }))
    .filter(({ column }) => isNumericType(column.column_type))
  if (!row || columns.length === 0) return <NoData />
  return (
    <div class="kpi">
      {columns.map(({ index }) => {
        const raw = row[index]
        const number = raw === null ? Number.NaN : Number(raw)
        const full = Number.isFinite(number) ? formatNumber(number) : '–'
        const label = columnTitle(result, index)
        return (
          <p class="kpi-item">
            {/* Read as "Revenue: 59,758,728.89": a plain span may not carry a label, so the full text is its own. */}
            <span class="sr-only">{`${label}: ${full}`}</span>
            <span class="kpi-value" data-value={raw ?? ''} title={full} aria-hidden="true">
              {Number.isFinite(number) ? formatKpi(number) : '–'}
            </span>
            {label.trim().toLowerCase() !== title?.trim().toLowerCase() && (
              <span class="kpi-label" aria-hidden="true">
                {label}
              </span>
            )}
          </p>
        )
      })}
    </div>
  )
}

/** A bar or line widget; a result with no number to draw says so. */
export function ChartWidget({ result, title, kind }: { result: TitledResult; title: string; kind: ChartKind }) {
  const series = seriesOf(result, kind)
  if (!series) return <NoData />
  return <Chart series={series} title={title} />
}

/** Every column, numbers right-aligned; says so when the result has more rows than it shows. */
export function DataTable({ result, caption, maxRows }: { result: TitledResult; caption?: string; maxRows?: number }) {
  if (result.schema.length === 0) return <NoData />
  const rows = maxRows === undefined ? result.data : result.data.slice(0, maxRows)
  const numeric = result.schema.map((column) => isNumericType(column.column_type))
  // One number of decimals a column: 619,060.00 under 3,443,148.90, not 619,060.
  const decimals = numeric.map((isNumber, index) => (isNumber ? columnDecimals(rows.map((row) => row[index])) : 0))
  return (
    <div class="table-scroll">
      <table class="data-table">
        {caption && <caption class="sr-only">{caption}</caption>}
        <thead>
          <tr>
            {result.schema.map((column, index) => (
              <th scope="col" class={numeric[index] ? 'align-right' : undefined} title={column.name}>
                {columnTitle(result, index)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr>
              {row.map((value, index) => (
                <td class={numeric[index] ? 'align-right' : undefined}>
                  {formatCell(value, result.schema[index]?.column_type ?? 'string', decimals[index])}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      {result.totalRows > rows.length && (
        <p class="table-note">
          Showing {rows.length} of {formatNumber(result.totalRows)} rows.
        </p>
      )}
    </div>
  )
}
