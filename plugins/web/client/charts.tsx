import { useLayoutEffect, useRef, useState } from 'preact/hooks'
import type { SqlResult } from '../../semantic/model'
import { columnLabel, formatCell, formatCompact, formatNumber, isNumericType, timeLabels } from './format'

/**
 * The widget kinds, drawn by hand: a number (KPI), SVG bar and line charts, and a table. Charts are pictures for
 * sighted users; each carries its numbers as a visually hidden table for screen readers.
 */

interface Series {
  labelName: string
  valueName: string
  labels: string[]
  values: number[]
}

/** The first text or time column labels the points; the first numeric column gives their values. */
function seriesOf(result: SqlResult): Series | undefined {
  const valueIndex = result.schema.findIndex((column) => isNumericType(column.column_type))
  if (valueIndex < 0) return undefined
  const labelIndex = result.schema.findIndex((column, index) => index !== valueIndex && !isNumericType(column.column_type))
  const rawLabels = result.data.map((row, index) => (labelIndex >= 0 ? row[labelIndex] : String(index + 1)))
  const labels = labelIndex >= 0 && result.schema[labelIndex].column_type === 'time' ? timeLabels(rawLabels) : rawLabels.map((label) => label ?? '–')
  return {
    labelName: labelIndex >= 0 ? columnLabel(result.schema[labelIndex].name) : '#',
    valueName: columnLabel(result.schema[valueIndex].name),
    labels,
    values: result.data.map((row) => Number(row[valueIndex] ?? 0)).map((value) => (Number.isFinite(value) ? value : 0)),
  }
}

function NoData() {
  return <p class="widget-empty">No data to show.</p>
}

function HiddenTable({ series, caption }: { series: Series; caption: string }) {
  // The wrapper hides it: a table's own height never shrinks below its rows.
  return (
    <div class="sr-only">
      <table>
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">{series.labelName}</th>
            <th scope="col">{series.valueName}</th>
          </tr>
        </thead>
        <tbody>
          {series.labels.map((label, index) => (
            <tr>
              <th scope="row">{label}</th>
              <td>{formatNumber(series.values[index])}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

/**
 * The figure's width in CSS pixels, followed as it changes: charts draw in real pixels, so their text keeps its size
 * on any widget width instead of scaling with the picture. Updates wait for the next frame, so a redraw never
 * resizes what is being observed within one frame.
 */
function useWidth(fallback: number) {
  const ref = useRef<HTMLElement>(null)
  const [width, setWidth] = useState(fallback)
  useLayoutEffect(() => {
    const element = ref.current
    if (!element) return
    const update = () => setWidth(Math.max(240, Math.round(element.clientWidth)))
    update()
    let frame = 0
    const observer = new ResizeObserver(() => {
      cancelAnimationFrame(frame)
      frame = requestAnimationFrame(update)
    })
    observer.observe(element)
    return () => {
      cancelAnimationFrame(frame)
      observer.disconnect()
    }
  }, [])
  return [ref, width] as const
}

const truncate = (text: string, length: number) => (text.length > length ? `${text.slice(0, length - 1)}…` : text)

/** The first row's numbers, large. */
export function NumberWidget({ result }: { result: SqlResult }) {
  const row = result.data[0]
  const columns = result.schema.map((column, index) => ({ column, index })).filter(({ column }) => isNumericType(column.column_type))
  if (!row || columns.length === 0) return <NoData />
  return (
    <div class="kpi">
      {columns.map(({ column, index }) => (
        <p class="kpi-item">
          <span class="kpi-value" data-value={row[index] ?? ''}>
            {formatCell(row[index], column.column_type)}
          </span>
          <span class="kpi-label">{columnLabel(column.name)}</span>
        </p>
      ))}
    </div>
  )
}

/** Horizontal bars, one per row, with a zero baseline (negative values go left of it). */
export function BarChart({ result, title }: { result: SqlResult; title: string }) {
  const [figure, width] = useWidth(480)
  const series = seriesOf(result)
  if (!series || series.values.length === 0) return <NoData />
  const labelWidth = Math.min(160, Math.round(width * 0.3))
  const valueWidth = 64
  const rowHeight = 28
  const height = series.values.length * rowHeight + 4
  const low = Math.min(0, ...series.values)
  const high = Math.max(0, ...series.values)
  const span = high - low || 1
  const plot = width - labelWidth - valueWidth
  const x = (value: number) => labelWidth + ((value - low) / span) * plot
  return (
    <figure class="chart" ref={figure}>
      <svg viewBox={`0 0 ${width} ${height}`} width={width} height={height} class="chart-svg" aria-hidden="true" focusable="false">
        {series.values.map((value, index) => {
          const y = index * rowHeight + 4
          const start = Math.min(x(0), x(value))
          return (
            <g class="bar-row">
              <title>{`${series.labels[index]}: ${formatNumber(value)}`}</title>
              <text x={labelWidth - 8} y={y + 14} class="chart-label" text-anchor="end">
                {truncate(series.labels[index], Math.floor(labelWidth / 7.5))}
              </text>
              <rect x={start} y={y} width={Math.max(1, Math.abs(x(value) - x(0)))} height={rowHeight - 10} rx="3" class="bar" />
              <text x={Math.max(x(0), x(value)) + 6} y={y + 14} class="chart-value">
                {formatCompact(value)}
              </text>
            </g>
          )
        })}
        <line x1={x(0)} x2={x(0)} y1="0" y2={height} class="chart-axis" />
      </svg>
      <HiddenTable series={series} caption={title} />
    </figure>
  )
}

/** Rounds up to 1, 2, 2.5 or 5 times a power of ten, so the axis ends on a readable number. */
function niceCeiling(value: number): number {
  if (value <= 0) return 0
  const power = 10 ** Math.floor(Math.log10(value))
  for (const step of [1, 2, 2.5, 5, 10]) if (step * power >= value) return step * power
  return 10 * power
}

/** A line through the rows in order, with four value gridlines and evenly spaced labels. */
export function LineChart({ result, title }: { result: SqlResult; title: string }) {
  const [figure, width] = useWidth(480)
  const series = seriesOf(result)
  if (!series || series.values.length === 0) return <NoData />
  const height = 240
  const left = 52
  const right = 14
  const top = 12
  const bottom = 30
  const low = Math.min(0, ...series.values)
  const high = niceCeiling(Math.max(...series.values)) || 1
  const count = series.values.length
  const x = (index: number) => left + (count === 1 ? (width - left - right) / 2 : (index / (count - 1)) * (width - left - right))
  const y = (value: number) => top + (1 - (value - low) / (high - low || 1)) * (height - top - bottom)
  const ticks = [0, 1, 2, 3, 4].map((step) => low + ((high - low) * step) / 4)
  // As many evenly spaced labels as fit, about 80 pixels apart, always the first and the last.
  const slots = Math.max(2, Math.min(count, Math.floor((width - left - right) / 80)))
  const labelled = [...new Set(Array.from({ length: slots }, (_, slot) => Math.round((slot * (count - 1)) / (slots - 1))))]
  const path = series.values.map((value, index) => `${index === 0 ? 'M' : 'L'}${x(index).toFixed(1)},${y(value).toFixed(1)}`).join(' ')
  return (
    <figure class="chart" ref={figure}>
      <svg viewBox={`0 0 ${width} ${height}`} width={width} height={height} class="chart-svg" aria-hidden="true" focusable="false">
        {ticks.map((tick) => (
          <g>
            <line x1={left} x2={width - right} y1={y(tick)} y2={y(tick)} class="chart-grid" />
            <text x={left - 6} y={y(tick) + 4} class="chart-label" text-anchor="end">
              {formatCompact(tick)}
            </text>
          </g>
        ))}
        <path d={path} class="line" fill="none" />
        {series.values.map((value, index) => (
          <circle cx={x(index)} cy={y(value)} r={count > 40 ? 1.5 : 3} class="point">
            <title>{`${series.labels[index]}: ${formatNumber(value)}`}</title>
          </circle>
        ))}
        {labelled.map((index) => (
          <text x={x(index)} y={height - 8} class="chart-label" text-anchor={index === 0 && count > 1 ? 'start' : index === count - 1 && count > 1 ? 'end' : 'middle'}>
            {series.labels[index]}
          </text>
        ))}
      </svg>
      <HiddenTable series={series} caption={title} />
    </figure>
  )
}

/** Every column, numbers right-aligned; says so when the result has more rows than it shows. */
export function DataTable({ result, caption, maxRows }: { result: SqlResult; caption?: string; maxRows?: number }) {
  if (result.schema.length === 0) return <NoData />
  const rows = maxRows === undefined ? result.data : result.data.slice(0, maxRows)
  const numeric = result.schema.map((column) => isNumericType(column.column_type))
  return (
    <div class="table-scroll">
      <table class="data-table">
        {caption && <caption class="sr-only">{caption}</caption>}
        <thead>
          <tr>
            {result.schema.map((column, index) => (
              <th scope="col" class={numeric[index] ? 'align-right' : undefined} title={column.name}>
                {columnLabel(column.name)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr>
              {row.map((value, index) => (
                <td class={numeric[index] ? 'align-right' : undefined}>{formatCell(value, result.schema[index]?.column_type ?? 'string')}</td>
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
