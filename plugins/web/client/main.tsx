import { render } from 'preact'
import { ChatPage } from './chat-page'
import { DashboardPage } from './dashboard-page'
import { EmbedSession, type PageKind } from './embed-session'
import './styles/base.css'
import './styles/dashboard.css'
import './styles/chat.css'

/** The embed pages' one script: which page it is comes from `<body data-page>`, set by the server. */
const page: PageKind = document.body.dataset.page === 'chat' ? 'chat' : 'dashboard'
const session = new EmbedSession(page)
const root = document.getElementById('app')!
root.textContent = ''
render(page === 'chat' ? <ChatPage session={session} /> : <DashboardPage session={session} />, root)
void session.start()
