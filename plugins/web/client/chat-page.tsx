import { problems } from './api'
import { ChatPanel } from './chat-panel'
import type { EmbedSession } from './embed-session'
import { Loading, ProblemView } from './problem-view'
import { useSessionState } from './use-session'
import { UserChip } from './user-chip'

/** The standalone embedded chat: always shown, whatever `showDashboardChat` says. */
export function ChatPage({ session }: { session: EmbedSession }) {
  const state = useSessionState(session)
  if (state.status === 'loading') return <Loading label="Loading chat…" />
  if (state.status === 'failed') return <ProblemView problem={state.problem} />
  const { agent } = state.context
  if (!agent) return <ProblemView problem={problems.noAgent} />
  return (
    <div class="chat-page">
      <header class="page-header">
        <h1>{agent.name}</h1>
        <UserChip user={state.context.user} />
      </header>
      <main class="chat-main">
        <ChatPanel session={session} ready={state} surface="chat" />
      </main>
    </div>
  )
}
