import type { ComponentChildren, HTMLAttributes } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import type { EmbedWidget } from '../model'
import { describeError, NetworkError, request, requestIdOf, requestJson } from './api'
import { ChartWidget, DataTable, NumberWidget, type TitledResult } from './charts'
import type { EmbedSession } from './embed-session'

type WidgetState =
  | { status: 'loading' }
  | { status: 'ready'; result: TitledResult }
  | { status: 'failed'; requestId: string | undefined; offline: boolean }

const KIND_LABELS: Record<EmbedWidget['kind'], string> = {
  number: 'Number',
  bar: 'Bar chart',
  line: 'Line chart',
  table: 'Table',
}

function WidgetBody({ widget, result }: { widget: EmbedWidget; result: TitledResult }) {
  switch (widget.kind) {
    case 'number':
      return <NumberWidget result={result} title={widget.title} />
    case 'bar':
    case 'line':
      return <ChartWidget result={result} title={widget.title} kind={widget.kind} />
    case 'table':
      return <DataTable result={result} caption={widget.title} />
  }
}

/** Saves the CSV the service sends (with the token, so a plain link cannot do it) under the name it gives. */
async function download(path: string, token: string): Promise<void> {
  const response = await request(path, token)
  const disposition = response.headers.get('content-disposition') ?? ''
  const filename = /filename="([^"]+)"/.exec(disposition)?.[1] ?? 'data.csv'
  const url = URL.createObjectURL(await response.blob())
  const link = document.createElement('a')
  link.href = url
  link.download = filename
  document.body.append(link)
  link.click()
  link.remove()
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
}

/**
 * One widget: its data fetched with the viewer's token (so row-level security applies), drawn by kind. The CSV
 * download button exists only when the dashboard allows downloads; the service refuses it otherwise anyway.
 */
export function WidgetCard(props: {
  widget: EmbedWidget
  publicId: string
  token: string
  session: EmbedSession
  allowDownload: boolean
  controls: string
  /** A creator's controls for the widget (rename, chart, size, move, remove), under its header. */
  tools?: ComponentChildren
  /** What makes the widget movable: focus, arrow keys, dragging. */
  editing?: HTMLAttributes<HTMLElement>
}) {
  const { widget, publicId, token, session, allowDownload, controls } = props
  const [state, setState] = useState<WidgetState>({ status: 'loading' })
  const [downloadError, setDownloadError] = useState<string>()
  const basePath = `/api/v1/embed/dashboards/${encodeURIComponent(publicId)}/widgets/${encodeURIComponent(widget.id)}/data`
  // The viewer's filter values and time grains (JSON), for the view and the download alike.
  const dataPath = controls ? `${basePath}?controls=${encodeURIComponent(controls)}` : basePath
  const headingId = `widget-${widget.id}-title`

  useEffect(() => {
    let live = true
    setState({ status: 'loading' })
    requestJson<TitledResult>(dataPath, token).then(
      (result) => live && setState({ status: 'ready', result }),
      (error: unknown) => {
        if (!live || session.report(error)) return
        // The reason stays in the service's log under this request id: a viewer gets a plain sentence, never the
        // wording of a query error meant for the people who build the dashboard.
        setState({ status: 'failed', requestId: requestIdOf(error), offline: error instanceof NetworkError })
      },
    )
    return () => {
      live = false
    }
  }, [dataPath, token])

  const onDownload = () => {
    setDownloadError(undefined)
    download(`${dataPath}${controls ? '&' : '?'}format=csv`, token).catch((error: unknown) => {
      if (!session.report(error)) setDownloadError(describeError(error))
    })
  }

  return (
    <section
      {...props.editing}
      class={`widget widget-${widget.kind}${widget.size ? ` widget-size-${widget.size}` : ''}`}
      aria-labelledby={headingId}
      aria-busy={state.status === 'loading'}
      data-widget={widget.id}
      data-kind={widget.kind}
    >
      <header class="widget-header">
        <h2 id={headingId}>{widget.title}</h2>
        <span class="sr-only">{KIND_LABELS[widget.kind]}</span>
        {allowDownload && state.status === 'ready' && (
          <button
            type="button"
            class="button-quiet"
            onClick={onDownload}
            aria-label={`Download ${widget.title} as CSV`}
          >
            Download CSV
          </button>
        )}
      </header>
      {widget.period && state.status === 'ready' && state.result.period && (
        <p class="widget-period">
          {state.result.period.from} to {state.result.period.to}
        </p>
      )}
      {props.tools}
      {state.status === 'loading' && <p class="widget-loading">Loading…</p>}
      {state.status === 'failed' && (
        <div class="widget-error" role="alert">
          <p>This chart could not be loaded.</p>
          {state.offline && <p>The service cannot be reached. Check your connection, then reload the page.</p>}
          {state.requestId && (
            <p class="request-id">
              Request id: <code>{state.requestId}</code>
            </p>
          )}
        </div>
      )}
      {state.status === 'ready' && <WidgetBody widget={widget} result={state.result} />}
      {downloadError && (
        <p class="widget-error" role="alert">
          Download failed: {downloadError}
        </p>
      )}
    </section>
  )
}
