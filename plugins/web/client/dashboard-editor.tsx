import type { HTMLAttributes } from 'preact'
import { useEffect, useRef, useState } from 'preact/hooks'
import type { EmbedDashboard, EmbedWidget, SavedEmbedWidget } from '../model'
import { describeError, PlatformApiError } from './api'
import { dashboardApi } from './dashboard-api'
import type { EmbedSession } from './embed-session'
import { WidgetCard } from './widget-card'
import { WidgetTools, type Change } from './widget-tools'

/** The last change, and how to take it back. */
type Undo =
  | { kind: 'change'; label: string; widgetId: string; before: Change }
  | { kind: 'remove'; label: string; widget: EmbedWidget }

/** The widgets with one saved in its new place, every position renumbered. */
function placed(widgets: EmbedWidget[], saved: SavedEmbedWidget): EmbedWidget[] {
  const { checksum: _checksum, ...widget } = saved
  const rest = widgets.filter((candidate) => candidate.id !== widget.id)
  rest.splice(widget.position, 0, widget)
  return rest.map((candidate, position) => ({ ...candidate, position }))
}

/** What a change would undo: the widget's values of the fields the change sets. */
function before(widget: EmbedWidget, change: Change): Change {
  const values: Change = {
    title: widget.title,
    chart: widget.chart,
    size: widget.size ?? 'narrow',
    position: widget.position,
  }
  return Object.fromEntries(Object.keys(change).map((key) => [key, values[key as keyof Change]])) as Change
}

/**
 * The dashboard's widgets as saved, and the saves that change them: each carries the checksum last read, is refused
 * while another is under way, can be undone once, and says what it did (or why not) in the notice.
 */
function useWidgetEdits(props: { dashboard: EmbedDashboard; publicId: string; token: string; session: EmbedSession }) {
  const { publicId, token, session } = props
  const [widgets, setWidgets] = useState(props.dashboard.widgets)
  const checksum = useRef(props.dashboard.checksum)
  const [undo, setUndo] = useState<Undo>()
  const [notice, setNotice] = useState<{ text: string; problem: boolean }>()
  const [busy, setBusy] = useState(false)
  const [focusId, setFocusId] = useState<string>()

  // The dashboard read again (an answer pinned from the chat panel) replaces what is shown.
  useEffect(() => {
    setWidgets(props.dashboard.widgets)
    checksum.current = props.dashboard.checksum
  }, [props.dashboard])

  // A moved widget keeps the focus once saved, so the arrow keys go on moving it (and only then: a later change
  // elsewhere must not take the focus back to it).
  useEffect(() => {
    if (!focusId || busy) return
    document.querySelector<HTMLElement>(`[data-widget="${CSS.escape(focusId)}"]`)?.focus()
    setFocusId(undefined)
  }, [focusId, widgets, busy])

  const reload = async () => {
    const fresh = await dashboardApi.read(token, publicId)
    checksum.current = fresh.checksum
    setWidgets(fresh.widgets)
  }

  async function save(label: string, work: () => Promise<Undo | undefined>): Promise<void> {
    if (busy) return
    setBusy(true)
    try {
      const done = await work()
      setUndo(done)
      setNotice({ text: `${label}.`, problem: false })
    } catch (error) {
      if (session.report(error)) return
      if (error instanceof PlatformApiError && error.status === 409) {
        await reload().catch(() => undefined)
        setUndo(undefined)
        setNotice({
          text: `Someone else changed this dashboard meanwhile, so this change was not saved (${label.toLowerCase()}). It now shows the newer version; make the change again if you still want it.`,
          problem: true,
        })
      } else setNotice({ text: `Not saved (${label.toLowerCase()}): ${describeError(error)}`, problem: true })
    } finally {
      setBusy(false)
    }
  }

  const change = (widget: EmbedWidget, body: Change, label: string) =>
    save(label, async () => {
      const saved = await dashboardApi.change(token, publicId, widget.id, { ...body, checksum: checksum.current })
      checksum.current = saved.checksum
      setWidgets((current) => placed(current, saved))
      return { kind: 'change', label, widgetId: widget.id, before: before(widget, body) }
    })

  const move = (widget: EmbedWidget, position: number) => {
    if (position < 0 || position >= widgets.length || position === widget.position) return
    setFocusId(widget.id)
    void change(widget, { position }, `Moved “${widget.title}” to place ${position + 1} of ${widgets.length}`)
  }

  const remove = (widget: EmbedWidget) =>
    save(`Removed “${widget.title}”`, async () => {
      await dashboardApi.remove(token, publicId, widget.id, checksum.current)
      setWidgets((current) => current.filter((candidate) => candidate.id !== widget.id))
      // A removal answers with no body: the dashboard is read back, widgets and checksum together, so a change saved
      // by someone else between the removal and this read is shown, not taken in unseen under its checksum.
      await reload()
      return widget.source ? { kind: 'remove', label: `Removed “${widget.title}”`, widget } : undefined
    })

  const undoLast = () => {
    const last = undo
    if (!last) return
    void save(`Undid: ${last.label}`, async () => {
      if (last.kind === 'change') {
        const saved = await dashboardApi.change(token, publicId, last.widgetId, {
          ...last.before,
          checksum: checksum.current,
        })
        checksum.current = saved.checksum
        setWidgets((current) => placed(current, saved))
        return undefined
      }
      // A removed widget comes back from its answer, with its title, chart, size and place.
      const { widget } = last
      const pinned = await dashboardApi.pin(token, publicId, {
        ...widget.source!,
        title: widget.title,
        chart: widget.chart,
      })
      const saved = await dashboardApi.change(token, publicId, pinned.id, {
        checksum: pinned.checksum,
        position: Math.min(widget.position, widgets.length),
        size: widget.size ?? 'narrow',
      })
      checksum.current = saved.checksum
      setWidgets((current) => placed(current, saved))
      return undefined
    })
  }

  return { widgets, busy, undo, notice, change, move, remove, undoLast }
}

/**
 * A creator's dashboard: each widget can be renamed, shown as another chart, made wide or narrow, moved (buttons,
 * dragging, or the arrow keys on a focused widget) and removed, and the last change undone. Every save carries the
 * checksum the page last read; when someone else saved meanwhile (409) the page shows their version and says so.
 */
export function DashboardEditor(props: {
  dashboard: EmbedDashboard
  publicId: string
  token: string
  session: EmbedSession
  controls: string
}) {
  const { publicId, token, session } = props
  const { widgets, busy, undo, notice, change, move, remove, undoLast } = useWidgetEdits(props)
  const [renaming, setRenaming] = useState<string>()
  const dragged = useRef<string | undefined>(undefined)

  /** A widget's handlers for moving it: the arrow keys while it has the focus, or dragging it onto another. */
  const movable = (widget: EmbedWidget): HTMLAttributes<HTMLElement> => ({
    tabIndex: 0,
    draggable: renaming !== widget.id,
    'aria-roledescription': 'movable widget',
    'aria-description': `Place ${widget.position + 1} of ${widgets.length}. Arrow keys move it.`,
    onKeyDown: (event) => {
      if (event.target !== event.currentTarget || busy) return
      const step = { ArrowLeft: -1, ArrowUp: -1, ArrowRight: 1, ArrowDown: 1 }[event.key]
      if (step === undefined) return
      event.preventDefault()
      move(widget, widget.position + step)
    },
    onDragStart: (event) => {
      dragged.current = widget.id
      event.dataTransfer?.setData('text/plain', widget.id)
      if (event.dataTransfer) event.dataTransfer.effectAllowed = 'move'
    },
    onDragOver: (event) => {
      if (dragged.current && dragged.current !== widget.id) event.preventDefault()
    },
    onDrop: (event) => {
      event.preventDefault()
      const moving = widgets.find((candidate) => candidate.id === dragged.current)
      dragged.current = undefined
      if (moving) move(moving, widget.position)
    },
    onDragEnd: () => {
      dragged.current = undefined
    },
  })

  return (
    <>
      <div class="dashboard-edit-bar">
        <p class="edit-hint">
          You can edit this dashboard. Focus a widget and use the arrow keys to move it, or drag it.
        </p>
        <button type="button" class="button-quiet" onClick={undoLast} disabled={!undo || busy}>
          {undo ? `Undo: ${undo.label}` : 'Undo'}
        </button>
      </div>
      <p
        class={notice?.problem ? 'edit-notice edit-problem' : 'edit-notice'}
        role={notice?.problem ? 'alert' : 'status'}
      >
        {notice?.text ?? ''}
      </p>
      <main class="widget-grid widget-grid-editing">
        {widgets.length === 0 && (
          <p class="widget-empty">
            This dashboard has no widgets yet. Ask a question in the chat and choose “Add to dashboard” under the
            answer.
          </p>
        )}
        {widgets.map((widget) => (
          <WidgetCard
            key={widget.id}
            widget={widget}
            publicId={publicId}
            token={token}
            session={session}
            allowDownload={!props.dashboard.restrictDataDownload}
            controls={props.controls}
            editing={movable(widget)}
            tools={
              <WidgetTools
                widget={widget}
                count={widgets.length}
                busy={busy}
                renaming={renaming === widget.id}
                onRenaming={(open) => setRenaming(open ? widget.id : undefined)}
                change={(body, label) => void change(widget, body, label)}
                move={(position) => move(widget, position)}
                remove={() => void remove(widget)}
              />
            }
          />
        ))}
      </main>
    </>
  )
}
