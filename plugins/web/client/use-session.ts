import { useEffect, useState } from 'preact/hooks'
import type { EmbedSession, SessionState } from './embed-session'

/** The session's current state; re-renders on every change (ready, failed, a new session from the host). */
export function useSessionState(session: EmbedSession): SessionState {
  const [state, setState] = useState(session.state)
  useEffect(() => {
    setState(session.state)
    return session.subscribe(() => setState(session.state))
  }, [session])
  return state
}
