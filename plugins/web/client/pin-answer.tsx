import { useRef, useState } from 'preact/hooks'
import type { EmbedDashboardsList } from '../model'
import { describeError } from './api'
import { DASHBOARD_CHANGED_EVENT, dashboardApi } from './dashboard-api'

type Listed = EmbedDashboardsList['items']

/**
 * The dashboard's page with this page's session, in this tab: the tab keeps the session's token, so the dashboard
 * opens without a new session, and Back returns to the chat with its thread.
 */
function dashboardAddress(publicId: string): string {
  const here = new URL(window.location.href)
  const target = new URL(`/embed/dashboard/${encodeURIComponent(publicId)}`, here.origin)
  const session = here.searchParams.get('sessionId') ?? here.searchParams.get('session')
  if (session) target.searchParams.set('session', session)
  const theme = here.searchParams.get('theme')
  if (theme) target.searchParams.set('theme', theme)
  return `${target.pathname}${target.search}`
}

/**
 * "Add to dashboard" under a chat answer that drew from a query, for creator-mode sessions: pick one of the embed
 * tenant's dashboards or name a new one; the widget keeps the answer's query, not its rows.
 */
export function PinAnswer(props: {
  token: string
  chatId: string
  messageId: string
  onSessionError: (error: unknown) => boolean
}) {
  const { token, chatId, messageId } = props
  const [open, setOpen] = useState(false)
  const [dashboards, setDashboards] = useState<Listed | undefined>()
  const [title, setTitle] = useState('')
  const [busy, setBusy] = useState(false)
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string; publicId?: string; name?: string } | undefined>()
  const toggle = useRef<HTMLButtonElement>(null)
  const groupId = `pin-${messageId}`

  const fail = (error: unknown) => {
    if (!props.onSessionError(error)) setOutcome({ ok: false, text: `Not added: ${describeError(error)}` })
  }

  const show = () => {
    setOpen(true)
    setOutcome(undefined)
    dashboardApi.list(token).then((list) => setDashboards(list.items), fail)
  }

  const pinTo = async (publicId: string, name: string) => {
    setBusy(true)
    try {
      const widget = await dashboardApi.pin(token, publicId, { chatId, messageId })
      setOutcome({ ok: true, text: `Added “${widget.title}” to “${name}”.`, publicId, name })
      setOpen(false)
      toggle.current?.focus()
      window.dispatchEvent(new CustomEvent(DASHBOARD_CHANGED_EVENT, { detail: { publicId } }))
    } catch (error) {
      fail(error)
    } finally {
      setBusy(false)
    }
  }

  const createAndPin = async () => {
    const name = title.trim()
    if (!name) return
    setBusy(true)
    try {
      const created = await dashboardApi.create(token, name)
      setTitle('')
      await pinTo(created.publicId, created.title)
    } catch (error) {
      fail(error)
      setBusy(false)
    }
  }

  return (
    <div class="pin-answer">
      <button
        type="button"
        class="button-quiet"
        ref={toggle}
        aria-expanded={open}
        aria-controls={groupId}
        onClick={() => (open ? setOpen(false) : show())}
      >
        Add to dashboard
      </button>
      {open && (
        <div
          class="pin-choices"
          id={groupId}
          role="group"
          aria-label="Add this answer to a dashboard"
          onKeyDown={(event) => {
            if (event.key === 'Escape') {
              setOpen(false)
              toggle.current?.focus()
            }
          }}
        >
          {dashboards === undefined ? (
            <p class="pin-note">Loading your dashboards…</p>
          ) : dashboards.length === 0 ? (
            <p class="pin-note">No dashboard yet: name one below.</p>
          ) : (
            <ul class="pin-list">
              {dashboards.map((dashboard) => (
                <li key={dashboard.publicId}>
                  <button
                    type="button"
                    class="pin-target"
                    disabled={busy}
                    onClick={() => void pinTo(dashboard.publicId, dashboard.title)}
                  >
                    {dashboard.title}{' '}
                    <span class="pin-count">
                      {dashboard.widgetCount} {dashboard.widgetCount === 1 ? 'widget' : 'widgets'}
                    </span>
                  </button>
                </li>
              ))}
            </ul>
          )}
          <form
            class="pin-new"
            onSubmit={(event) => {
              event.preventDefault()
              void createAndPin()
            }}
          >
            <label for={`${groupId}-title`}>New dashboard</label>
            <input
              id={`${groupId}-title`}
              value={title}
              maxLength={200}
              placeholder="Dashboard name"
              onInput={(event) => setTitle(event.currentTarget.value)}
            />
            <button type="submit" class="button-primary" disabled={busy || title.trim() === ''}>
              Create and add
            </button>
          </form>
        </div>
      )}
      {outcome && (
        <p class={outcome.ok ? 'pin-done' : 'pin-error'} role={outcome.ok ? 'status' : 'alert'}>
          {outcome.text}
        </p>
      )}
      {/* On the standalone chat, the dashboard is one click away; a dashboard's own chat panel shows it already. */}
      {outcome?.publicId && document.body.dataset.page === 'chat' && (
        <a class="pin-open" href={dashboardAddress(outcome.publicId)}>
          Open “{outcome.name}”
        </a>
      )}
    </div>
  )
}
