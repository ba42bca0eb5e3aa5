import { useState } from 'preact/hooks'
import type { EmbedWidget, WidgetChange, WidgetChart } from '../model'

/** A change to a widget as the editor asks for it: the checksum is added when it is saved. */
export type Change = Omit<WidgetChange, 'checksum'>

const CHARTS: ReadonlyArray<[WidgetChart, string]> = [
  ['line', 'Line chart'],
  ['bar', 'Bar chart'],
  ['table', 'Table'],
  ['kpi', 'KPI'],
]

/** A widget's title edited in place: saved on Enter when changed, left on Escape. */
function RenameForm(props: { widget: EmbedWidget; onSave: (title: string) => void; onCancel: () => void }) {
  const [title, setTitle] = useState(props.widget.title)
  const inputId = `rename-${props.widget.id}`
  return (
    <form
      class="widget-rename"
      onSubmit={(event) => {
        event.preventDefault()
        const next = title.trim()
        if (next && next !== props.widget.title) props.onSave(next)
        else props.onCancel()
      }}
      onKeyDown={(event) => {
        if (event.key === 'Escape') props.onCancel()
      }}
    >
      <label for={inputId} class="sr-only">
        New title of {props.widget.title}
      </label>
      <input
        id={inputId}
        value={title}
        maxLength={200}
        ref={(element) => element?.focus()}
        onInput={(event) => setTitle(event.currentTarget.value)}
      />
      <button type="submit" class="button-quiet">
        Save
      </button>
      <button type="button" class="button-quiet" onClick={props.onCancel}>
        Cancel
      </button>
    </form>
  )
}

/** A widget's edit tools: rename, chart, wide or narrow, move earlier or later, remove. */
export function WidgetTools(props: {
  widget: EmbedWidget
  /** How many widgets the dashboard has. */
  count: number
  busy: boolean
  renaming: boolean
  onRenaming: (open: boolean) => void
  change: (body: Change, label: string) => void
  move: (position: number) => void
  remove: () => void
}) {
  const { widget } = props
  return (
    <div class="widget-tools" role="group" aria-label={`Edit ${widget.title}`}>
      {props.renaming ? (
        <RenameForm
          widget={widget}
          onCancel={() => props.onRenaming(false)}
          onSave={(title) => {
            props.onRenaming(false)
            props.change({ title }, `Renamed “${widget.title}” to “${title}”`)
          }}
        />
      ) : (
        <button type="button" class="button-quiet" disabled={props.busy} onClick={() => props.onRenaming(true)}>
          Rename
        </button>
      )}
      <label class="sr-only" for={`chart-${widget.id}`}>
        Chart of {widget.title}
      </label>
      <select
        id={`chart-${widget.id}`}
        class="widget-chart"
        value={widget.chart}
        disabled={props.busy}
        onChange={(event) => {
          const chart = event.currentTarget.value as WidgetChart
          const name = CHARTS.find(([value]) => value === chart)?.[1] ?? chart
          props.change({ chart }, `Showed “${widget.title}” as ${name.toLowerCase()}`)
        }}
      >
        {CHARTS.map(([value, name]) => (
          <option value={value}>{name}</option>
        ))}
      </select>
      <button
        type="button"
        class="button-quiet"
        disabled={props.busy}
        aria-pressed={widget.size === 'wide'}
        onClick={() => {
          const size = widget.size === 'wide' ? 'narrow' : 'wide'
          props.change({ size }, `Made “${widget.title}” ${size}`)
        }}
      >
        Wide
      </button>
      <button
        type="button"
        class="button-quiet"
        disabled={props.busy || widget.position === 0}
        aria-label={`Move ${widget.title} earlier`}
        onClick={() => props.move(widget.position - 1)}
      >
        ←
      </button>
      <button
        type="button"
        class="button-quiet"
        disabled={props.busy || widget.position === props.count - 1}
        aria-label={`Move ${widget.title} later`}
        onClick={() => props.move(widget.position + 1)}
      >
        →
      </button>
      <button
        type="button"
        class="button-quiet widget-remove"
        disabled={props.busy}
        aria-label={`Remove ${widget.title}`}
        onClick={props.remove}
      >
        Remove
      </button>
    </div>
  )
}
