import { render } from 'preact'
import { ChatPage } from './chat-page'
import { DashboardPage } from './dashboard-page'
import { EmbedSession, type PageKind } from './embed-session'
import { HomePage } from './home-page'
import { ReadmePage } from './readme-page'
import './styles/base.css'
import './styles/dashboard.css'
import './styles/chat.css'
import './styles/home.css'
import './styles/answer-dashboards.css'

/** `?theme=dark` or `?theme=light` overrides the system's colour scheme (the host app knows its own theme). */
const theme = new URLSearchParams(window.location.search).get('theme')
if (theme === 'dark' || theme === 'light') document.documentElement.dataset.theme = theme

/** The embed pages' one script: which page it is comes from `<body data-page>`, set by the server. */
const root = document.getElementById('app')!
root.textContent = ''
if (document.body.dataset.page === 'home') render(<HomePage />, root)
else if (document.body.dataset.page === 'readme') render(<ReadmePage />, root)
else {
  const page: PageKind = document.body.dataset.page === 'chat' ? 'chat' : 'dashboard'
  const session = new EmbedSession(page)
  render(page === 'chat' ? <ChatPage session={session} /> : <DashboardPage session={session} />, root)
  void session.start()
}
