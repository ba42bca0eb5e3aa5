import { useLayoutEffect, useRef } from 'preact/hooks'
import uPlot from 'uplot'
import 'uplot/dist/uPlot.min.css'
import type { ChartKind, Series } from './chart-series'
import { columnDecimals, formatCompact, formatNumber } from './format'

const css = (name: string) => getComputedStyle(document.documentElement).getPropertyValue(name).trim()
const truncate = (text: string, length: number) =>
  text.length > length ? `${text.slice(0, Math.max(1, length - 1))}…` : text

/** Evenly spaced label positions, about 80 pixels apart (bars: every bar when they fit), always the first. */
function labelSplits(count: number, plotWidth: number, kind: ChartKind): number[] {
  const slots = Math.max(2, Math.floor(plotWidth / (kind === 'bar' ? 56 : 80)))
  const step = Math.max(1, Math.ceil(count / slots))
  const splits: number[] = []
  for (let index = 0; index < count; index += step) splits.push(index)
  return splits
}

/** Shows the point under the cursor as "label: value" beside it. */
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
        tip.textContent = `${series.labels[index]}: ${formatNumber(series.values[index])}`
        const x = plot.valToPos(index, 'x')
        const y = plot.valToPos(series.values[index], 'y')
        const flip = x > plot.over.clientWidth / 2
        tip.style.transform = `translate(${flip ? 'calc(-100% - 10px)' : '10px'}, ${Math.max(0, y - 28)}px)`
        tip.style.left = `${x}px`
      },
    },
  }
}

function options(series: Series, width: number, height: number): uPlot.Options {
  const count = series.values.length
  const muted = css('--muted') || '#52606d'
  const line = css('--line') || '#d9e2ec'
  const accent = css('--accent') || '#1d4ed8'
  const plotWidth = width - 64
  const maxLabel = Math.max(3, Math.floor(plotWidth / Math.min(count, Math.max(2, Math.floor(plotWidth / 56))) / 7))
  const font = '12px system-ui, sans-serif'
  return {
    width,
    height,
    // The legend names the series; the tooltip gives the value under the cursor.
    legend: { show: true, live: false },
    cursor: { drag: { x: false, y: false }, points: { size: 8, fill: accent } },
    scales: {
      x: { time: false, range: series.kind === 'bar' ? [-0.6, count - 0.4] : [0, Math.max(1, count - 1)] },
      y: { range: (_plot, min, max) => [Math.min(0, min), max > 0 ? max * 1.08 : 1] },
    },
    axes: [
      {
        stroke: muted,
        font,
        grid: { show: false },
        ticks: { stroke: line },
        splits: () => labelSplits(count, plotWidth, series.kind),
        values: (_plot, splits) =>
          splits.map((index) => truncate(series.labels[index] ?? '', series.kind === 'bar' ? maxLabel : 12)),
      },
      {
        stroke: muted,
        font,
        size: 56,
        grid: { stroke: line, width: 1 },
        ticks: { show: false },
        values: (_plot, splits) => splits.map(formatCompact),
      },
    ],
    series: [
      {
        label: series.labelName,
        value: (_plot, index) => (index === null ? '–' : (series.labels[Math.round(index)] ?? '–')),
      },
      {
        label: series.valueName,
        stroke: accent,
        width: series.kind === 'line' ? 2.5 : 0,
        fill: series.kind === 'bar' ? accent : undefined,
        points: { show: series.kind === 'line' && count <= 40, size: 6, fill: accent },
        paths: series.kind === 'bar' ? uPlot.paths.bars!({ size: [0.7, 72], align: 0 }) : undefined,
        value: (_plot, value) => (value === null ? '–' : formatNumber(value)),
      },
    ],
    plugins: [tooltipPlugin(series)],
  }
}

/** A sentence that stands for the chart to a screen reader (the numbers themselves are in the hidden table). */
function describe(series: Series, title: string): string {
  const top = series.values.reduce((best, value, index) => (value > series.values[best] ? index : best), 0)
  const kind = series.kind === 'bar' ? 'Bar chart' : 'Line chart'
  const span =
    series.kind === 'line'
      ? `from ${series.labels[0]} to ${series.labels[series.labels.length - 1]}`
      : `${series.values.length} bars`
  return `${kind}: ${title} (${series.valueName} by ${series.labelName}), ${span}; highest ${series.labels[top]} at ${formatCompact(series.values[top])}.`
}

/**
 * A bar or line chart drawn by uPlot on a canvas, with a legend that shows the value under the cursor and a
 * tooltip. It follows its container's width. For screen readers the figure is one described image plus a hidden
 * table of its numbers.
 */
export function Chart({ series, title, height = 240 }: { series: Series; title: string; height?: number }) {
  const holder = useRef<HTMLDivElement>(null)
  // Callers rebuild the series on every render: the chart is redrawn only when what it shows changed (a redraw
  // empties and refills the figure, which would make a scrolling chat jump).
  const key = JSON.stringify([series.kind, series.labelName, series.valueName, series.labels, series.values, height])
  useLayoutEffect(() => {
    const element = holder.current
    if (!element) return
    const widthOf = () => Math.max(200, Math.floor(element.clientWidth))
    let plot = new uPlot(
      options(series, widthOf(), height),
      [series.values.map((_, index) => index), series.values],
      element,
    )
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
      plot = new uPlot(
        options(series, widthOf(), height),
        [series.values.map((_, index) => index), series.values],
        element,
      )
    }
    scheme.addEventListener('change', redraw)
    return () => {
      cancelAnimationFrame(frame)
      resize.disconnect()
      scheme.removeEventListener('change', redraw)
      plot.destroy()
    }
  }, [key])
  const decimals = columnDecimals(series.values)
  return (
    <figure class="chart" data-chart={series.kind}>
      <div class="chart-canvas" ref={holder} role="img" aria-label={describe(series, title)} />
      <div class="sr-only">
        <table>
          <caption>{title}</caption>
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
                <td>{formatNumber(series.values[index], decimals)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  )
}
