import { useEffect, useState } from 'preact/hooks'
import type { EmbedDashboard } from '../model'
import { describeError, PlatformApiError, requestJson } from './api'
import type { ViewerControls } from '../dashboard-controls'
import { DASHBOARD_CHANGED_EVENT } from './dashboard-api'
import { DashboardChat } from './dashboard-chat'
import { DashboardControls } from './dashboard-controls'
import { DashboardEditor } from './dashboard-editor'
import type { EmbedSession, ReadySession } from './embed-session'
import { Loading, ProblemView } from './problem-view'
import { useSessionState } from './use-session'
import { UserChip } from './user-chip'
import { WidgetCard } from './widget-card'

/** `/embed/dashboard/{publicId}`: the public id is the last part of the path. */
function publicIdFromPath(): string {
  return decodeURIComponent(window.location.pathname.split('/').filter(Boolean).pop() ?? '')
}

type Loaded =
  | { status: 'loading' }
  | { status: 'ready'; dashboard: EmbedDashboard }
  | { status: 'failed'; title: string; detail: string }

function Dashboard({ session, ready }: { session: EmbedSession; ready: ReadySession }) {
  const publicId = publicIdFromPath()
  const [loaded, setLoaded] = useState<Loaded>({ status: 'loading' })
  const [controls, setControls] = useState<ViewerControls>({})
  const hasControls = Object.keys(controls).length > 0
  // Read again when an answer is pinned to this dashboard from its chat panel.
  const [version, setVersion] = useState(0)
  useEffect(() => {
    const onChanged = (event: Event) => {
      if ((event as CustomEvent<{ publicId: string }>).detail?.publicId === publicId) setVersion((value) => value + 1)
    }
    window.addEventListener(DASHBOARD_CHANGED_EVENT, onChanged)
    return () => window.removeEventListener(DASHBOARD_CHANGED_EVENT, onChanged)
  }, [publicId])

  useEffect(() => {
    let live = true
    requestJson<EmbedDashboard>(`/api/v1/embed/dashboards/${encodeURIComponent(publicId)}`, ready.token).then(
      (dashboard) => {
        if (!live) return
        document.title = dashboard.name
        setLoaded({ status: 'ready', dashboard })
      },
      (error: unknown) => {
        if (!live || session.report(error)) return
        const missing = error instanceof PlatformApiError && error.status === 404
        setLoaded({
          status: 'failed',
          title: missing ? 'Dashboard not found' : 'This dashboard could not be loaded',
          detail: missing ? 'It may have been unpublished or removed.' : describeError(error),
        })
      },
    )
    return () => {
      live = false
    }
  }, [publicId, ready.token, version])

  if (loaded.status === 'loading') return <Loading label="Loading dashboard…" />
  if (loaded.status === 'failed')
    return <ProblemView problem={{ code: 'DASHBOARD', title: loaded.title, detail: loaded.detail }} />
  const { dashboard } = loaded
  return (
    <div class="dashboard-page">
      {/* The chat launcher sits in the header, which stays on screen: it never covers a widget. */}
      <header class="page-header page-header-sticky">
        <h1>{dashboard.name}</h1>
        <div class="header-actions">
          {ready.context.settings.showDashboardChat && <DashboardChat session={session} ready={ready} />}
          <UserChip user={ready.context.user} />
        </div>
      </header>
      <DashboardControls dashboard={dashboard} controls={controls} onChange={setControls} />
      {dashboard.editable ? (
        <DashboardEditor
          dashboard={dashboard}
          publicId={publicId}
          token={ready.token}
          session={session}
          controls={hasControls ? JSON.stringify(controls) : ''}
        />
      ) : (
        <main class="widget-grid">
          {dashboard.widgets.length === 0 && <p class="widget-empty">This dashboard has no widgets yet.</p>}
          {dashboard.widgets.map((widget) => (
            <WidgetCard
              key={widget.id}
              widget={widget}
              publicId={publicId}
              token={ready.token}
              session={session}
              allowDownload={!dashboard.restrictDataDownload}
              controls={hasControls ? JSON.stringify(controls) : ''}
            />
          ))}
        </main>
      )}
    </div>
  )
}

/** The embedded published dashboard. */
export function DashboardPage({ session }: { session: EmbedSession }) {
  const state = useSessionState(session)
  if (state.status === 'loading') return <Loading label="Loading dashboard…" />
  if (state.status === 'failed') return <ProblemView problem={state.problem} />
  return <Dashboard session={session} ready={state} />
}
