import { useLayoutEffect, useRef } from 'preact/hooks'
import uPlot from 'uplot'
import 'uplot/dist/uPlot.min.css'
import type { ChartKind, Series } from './chart-series'
import { formatCompact } from './format'

const css = (name: string) => getComputedStyle(document.documentElement).getPropertyValue(name).trim()
const truncate = (text: string, length: number) =>
  text.length > length ? `${text.slice(0, Math.max(1, length - 1))}…` : text

/** Label positions: every bar (shortened to fit, the full label on hover or focus); points of a line about 80 px apart. */
function labelSplits(count: number, plotWidth: number, kind: ChartKind): number[] {
  const step = kind === 'bar' ? 1 : Math.max(1, Math.ceil(count / Math.max(2, Math.floor(plotWidth / 80))))
  const splits: number[] = []
  for (let index = 0; index < count; index += step) splits.push(index)
  return splits
}

/** The colours of the series side by side: the accent first, then two that stay apart from it in light and dark. */
const palette = () => [css('--accent') || '#1d4ed8', css('--series-2') || '#c2410c', css('--series-3') || '#047857']

/** The tooltip's text of a point: its label, then every number of its row as the table writes it. */
export function pointText(series: Series, index: number): string {
  const details = series.details[index] ?? []
  if (details.length === 1) return `${series.labels[index]}: ${details[0][1]}`
  return [series.labels[index], ...details.map(([name, text]) => `${name}: ${text}`)].join('\n')
}

/** Shows the point under the cursor (or chosen with the arrow keys) beside it, with its full label. */
function tooltipPlugin(series: Series): uPlot.Plugin {
  let tip: HTMLDivElement
  return {
    hooks: {
      init: (plot) => {
        tip = document.createElement('div')
        tip.className = 'chart-tooltip'
        tip.hidden = true
        plot.over.append(tip)
      },
      setCursor: (plot) => {
        const index = plot.cursor.idx
        if (index === null || index === undefined || plot.cursor.left === undefined || plot.cursor.left < 0) {
          tip.hidden = true
          return
        }
        tip.hidden = false
        tip.textContent = pointText(series, index)
        const x = plot.valToPos(index, 'x')
        const top = Math.max(...series.columns.map((column) => column.values[index] ?? 0))
        const y = plot.valToPos(top, 'y')
        // Beside the point, on the side with room for it; never past the figure's edges (a phone's narrow card).
        const width = tip.offsetWidth
        const room = plot.over.clientWidth
        const right = x + 10
        const left = right + width <= room || x < room / 2 ? Math.min(right, room - width) : x - 10 - width
        tip.style.transform = `translate(0, ${Math.max(0, y - 28)}px)`
        tip.style.left = `${Math.max(-plot.over.offsetLeft, left)}px`
      },
    },
  }
}

/** Bars of several series side by side within each label's slot (one series fills it). */
function barPaths(seriesIndex: number, count: number): uPlot.Series.PathBuilder {
  const width = 0.7 / count
  return uPlot.paths.bars!({
    size: [0.7, 72],
    align: 0,
    disp:
      count > 1
        ? {
            x0: {
              unit: 1,
              values: (plot) => (plot.data[0] as number[]).map((x) => x - 0.35 + seriesIndex * width),
            },
            size: { unit: 1, values: (plot) => (plot.data[0] as number[]).map(() => width) },
          }
        : undefined,
  })
}

function options(series: Series, width: number, height: number): uPlot.Options {
  const count = series.labels.length
  const muted = css('--muted') || '#52606d'
  const line = css('--line') || '#d9e2ec'
  const colours = palette()
  const plotWidth = width - 64
  // Characters a bar's label may take: its slot's width at about 7 pixels a character.
  const maxLabel = Math.max(3, Math.floor(plotWidth / Math.max(1, count) / 7))
  const font = '12px system-ui, sans-serif'
  const bars = series.kind === 'bar'
  // Shares and changes in percent: the axis says so (20%, not 20).
  const percent = series.columns.every((column) => column.texts.every((text) => /%$|^[–-]?$/.test(text)))
  return {
    width,
    height,
    // The legend names the series; the tooltip gives the values under the cursor.
    legend: { show: true, live: false },
    cursor: { drag: { x: false, y: false }, points: { size: 8, fill: colours[0] } },
    scales: {
      x: { time: false, range: bars ? [-0.6, count - 0.4] : [0, Math.max(1, count - 1)] },
      y: { range: (_plot, min, max) => [Math.min(0, min), max > 0 ? max * 1.08 : 1] },
    },
    axes: [
      {
        stroke: muted,
        font,
        grid: { show: false },
        ticks: { stroke: line },
        splits: () => labelSplits(count, plotWidth, series.kind),
        values: (_plot, splits) => splits.map((index) => truncate(series.labels[index] ?? '', bars ? maxLabel : 12)),
      },
      {
        stroke: muted,
        font,
        size: 56,
        grid: { stroke: line, width: 1 },
        ticks: { show: false },
        values: (_plot, splits) => splits.map((value) => `${formatCompact(value)}${percent ? '%' : ''}`),
      },
    ],
    series: [
      {
        label: series.labelName,
        value: (_plot, index) => (index === null ? '–' : (series.labels[Math.round(index)] ?? '–')),
      },
      ...series.columns.map((column, position) => {
        const colour = colours[position % colours.length]
        return {
          label: column.name,
          stroke: colour,
          width: bars ? 0 : 2.5,
          fill: bars ? colour : undefined,
          points: { show: !bars && count <= 40, size: 6, fill: colour },
          paths: bars ? barPaths(position, series.columns.length) : undefined,
          value: (_plot: uPlot, _value: number | null, _series: number, index: number | null) =>
            index === null ? '–' : (column.texts[index] ?? '–'),
        }
      }),
    ],
    plugins: [tooltipPlugin(series)],
  }
}

/** A sentence that stands for the chart to a screen reader (the numbers themselves are in the hidden table). */
function describe(series: Series, title: string): string {
  const kind = series.kind === 'bar' ? 'Bar chart' : 'Line chart'
  const span =
    series.kind === 'line'
      ? `from ${series.labels[0]} to ${series.labels[series.labels.length - 1]}`
      : `${series.labels.length} ${series.columns.length > 1 ? 'groups of bars' : 'bars'}`
  const highest = series.columns.map((column) => {
    const top = column.values.reduce<number>(
      (best, value, index) => ((value ?? -Infinity) > (column.values[best] ?? -Infinity) ? index : best),
      0,
    )
    return `${series.columns.length > 1 ? `${column.name} ` : ''}highest ${series.labels[top]} at ${column.texts[top]}`
  })
  const names = series.columns.map((column) => column.name).join(', ')
  return `${kind}: ${title} (${names} by ${series.labelName}), ${span}; ${highest.join('; ')}.`
}

/** Arrow keys, Home and End move the cursor from point to point, so the keyboard reaches every full label. */
function onKey(plot: uPlot, series: Series, event: KeyboardEvent) {
  const last = series.labels.length - 1
  const now = plot.cursor.idx ?? -1
  const next =
    event.key === 'ArrowRight' || event.key === 'ArrowDown'
      ? Math.min(last, now + 1)
      : event.key === 'ArrowLeft' || event.key === 'ArrowUp'
        ? Math.max(0, now - 1)
        : event.key === 'Home'
          ? 0
          : event.key === 'End'
            ? last
            : undefined
  if (next === undefined) return
  event.preventDefault()
  showPoint(plot, series, next)
}

function showPoint(plot: uPlot, series: Series, index: number) {
  const top = Math.max(...series.columns.map((column) => column.values[index] ?? 0))
  plot.setCursor({ left: plot.valToPos(index, 'x'), top: plot.valToPos(top, 'y') })
}

/**
 * A bar or line chart drawn by uPlot on a canvas, with a legend naming its series and a tooltip of the point under
 * the cursor (or focused with the keyboard). It follows its container's width. For screen readers the figure is
 * one described image plus a hidden table of its numbers.
 */
export function Chart({ series, title, height = 240 }: { series: Series; title: string; height?: number }) {
  const holder = useRef<HTMLDivElement>(null)
  // Callers rebuild the series on every render: the chart is redrawn only when what it shows changed (a redraw
  // empties and refills the figure, which would make a scrolling chat jump).
  const key = JSON.stringify([series, height])
  useLayoutEffect(() => {
    const element = holder.current
    if (!element) return
    const widthOf = () => Math.max(200, Math.floor(element.clientWidth))
    const data = (): uPlot.AlignedData => [
      series.labels.map((_, index) => index),
      ...series.columns.map((column) => column.values),
    ]
    let plot = new uPlot(options(series, widthOf(), height), data(), element)
    let frame = 0
    const resize = new ResizeObserver(() => {
      cancelAnimationFrame(frame)
      frame = requestAnimationFrame(() => plot.setSize({ width: widthOf(), height }))
    })
    resize.observe(element)
    // A change of the system's light or dark setting redraws with the new colours.
    const scheme = window.matchMedia('(prefers-color-scheme: dark)')
    const redraw = () => {
      plot.destroy()
      plot = new uPlot(options(series, widthOf(), height), data(), element)
    }
    scheme.addEventListener('change', redraw)
    const keydown = (event: KeyboardEvent) => onKey(plot, series, event)
    const focus = () => showPoint(plot, series, Math.max(0, plot.cursor.idx ?? 0))
    const blur = () => plot.setCursor({ left: -10, top: -10 })
    element.addEventListener('keydown', keydown)
    element.addEventListener('focus', focus)
    element.addEventListener('blur', blur)
    return () => {
      cancelAnimationFrame(frame)
      resize.disconnect()
      scheme.removeEventListener('change', redraw)
      element.removeEventListener('keydown', keydown)
      element.removeEventListener('focus', focus)
      element.removeEventListener('blur', blur)
      plot.destroy()
    }
  }, [key])
  return (
    <figure class="chart" data-chart={series.kind} data-series={series.columns.map((column) => column.name).join('|')}>
      <div class="chart-canvas" ref={holder} role="img" tabIndex={0} aria-label={describe(series, title)} />
      <div class="sr-only">
        <table>
          <caption>{title}</caption>
          <thead>
            <tr>
              <th scope="col">{series.labelName}</th>
              {series.columns.map((column) => (
                <th scope="col">{column.name}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {series.labels.map((label, index) => (
              <tr>
                <th scope="row">{label}</th>
                {series.columns.map((column) => (
                  <td>{column.texts[index]}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  )
}
