import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks'
import { ChatPanel } from './chat-panel'
import type { EmbedSession, ReadySession } from './embed-session'

const PANEL_ID = 'agent-panel'
/** What the open panel covers on a narrow screen: the page but its header's chat controls. */
const BEHIND_PANEL = ':scope > :not(.page-header), .page-header h1, .user-chip'
/** Whether this tab had the panel open, so a reload (even mid-answer) shows the chat where the reader left it. */
const OPEN_KEY = 'embed-chat-panel-open'

function wasOpenBefore(): boolean {
  try {
    return window.sessionStorage.getItem(OPEN_KEY) === 'true'
  } catch {
    return false
  }
}

function rememberOpen(open: boolean): void {
  try {
    if (open) window.sessionStorage.setItem(OPEN_KEY, 'true')
    else window.sessionStorage.removeItem(OPEN_KEY)
  } catch {
    // Storage switched off: the panel starts closed after a reload, as it did before.
  }
}

/**
 * The AI chat of a dashboard: a launcher bubble that opens and closes the agent panel. The panel's chat is created
 * on first opening and then kept, so closing it does not lose a running answer. Escape closes it and focus goes back
 * to the launcher. A panel open at a reload opens again, and its chat rejoins the answer that was running.
 */
export function DashboardChat({ session, ready }: { session: EmbedSession; ready: ReadySession }) {
  const agent = ready.context.agent
  const [open, setOpenState] = useState(wasOpenBefore)
  const [created, setCreated] = useState(open)
  const setOpen = (value: boolean) => {
    rememberOpen(value)
    setOpenState(value)
  }
  const launcher = useRef<HTMLButtonElement>(null)
  const panel = useRef<HTMLElement>(null)
  const wasOpen = useRef(false)

  // A layout effect: focus moves in the same task that shows or hides the panel.
  useLayoutEffect(() => {
    if (open) panel.current?.querySelector('textarea')?.focus()
    else if (wasOpen.current) launcher.current?.focus()
    wasOpen.current = open
  }, [open])

  // On a narrow screen the open panel covers the page: what is behind it is inert, so Tab stays in the panel.
  // (On a wide one the page makes room beside it, in dashboard.css, and nothing is covered.)
  useEffect(() => {
    const page = panel.current?.closest('.dashboard-page')
    if (!page) return
    const wide = window.matchMedia('(min-width: 60rem)')
    const setInert = (inert: boolean) =>
      page.querySelectorAll<HTMLElement>(BEHIND_PANEL).forEach((element) => (element.inert = inert))
    const apply = () => setInert(open && !wide.matches)
    apply()
    wide.addEventListener('change', apply)
    return () => {
      wide.removeEventListener('change', apply)
      setInert(false)
    }
  }, [open])

  if (!agent) return null
  const toggle = () => {
    setCreated(true)
    setOpen(!open)
  }

  return (
    <>
      <aside
        id={PANEL_ID}
        class="agent-panel"
        ref={panel}
        hidden={!open}
        aria-labelledby="agent-panel-title"
        onKeyDown={(event) => {
          if (event.key === 'Escape') setOpen(false)
        }}
      >
        <header class="agent-panel-header">
          <h2 id="agent-panel-title">{agent.name}</h2>
          <button type="button" class="button-icon" onClick={() => setOpen(false)} aria-label="Close AI chat">
            <svg viewBox="0 0 20 20" width="20" height="20" aria-hidden="true" focusable="false">
              <path d="M5 5l10 10M15 5L5 15" class="icon-stroke" />
            </svg>
          </button>
        </header>
        {created && <ChatPanel session={session} ready={ready} surface="dashboard" />}
      </aside>
      <button
        type="button"
        class="launcher"
        ref={launcher}
        onClick={toggle}
        aria-expanded={open}
        aria-controls={PANEL_ID}
        aria-label={open ? 'Close AI chat' : `Ask ${agent.name}`}
      >
        <svg viewBox="0 0 24 24" width="26" height="26" aria-hidden="true" focusable="false">
          <path
            d="M4 5.5A2.5 2.5 0 0 1 6.5 3h11A2.5 2.5 0 0 1 20 5.5v8a2.5 2.5 0 0 1-2.5 2.5H10l-4.5 4v-4A2.5 2.5 0 0 1 4 13.5z"
            class="icon-fill"
          />
        </svg>
      </button>
    </>
  )
}
