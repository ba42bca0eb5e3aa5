import { useEffect, useState } from 'preact/hooks'
import type { DeploymentSummary } from '../../management/model/deployments'
import { describeError, pageFetch, PlatformApiError } from './api'

/** The docs the front door links to, each served by the service itself (offline too). */
const DOC_LINKS: Array<[title: string, href: string]> = [
  ['Quick start', '/readme#quick-start'],
  ['Configuration', '/docs/configuration'],
  ['Connecting a database', '/docs/connecting-a-database'],
  ['Chat API', '/docs/chat-api'],
  ['Embedded pages', '/docs/embedding#embedded-pages'],
  ['Management API', '/docs/management-api'],
  ['Several nodes', '/docs/several-nodes'],
  ['Operations', '/docs/operating'],
]

interface PublishedDashboard {
  name: string
  publicId: string | null
}

/** A request with the pasted key. The key lives only in this tab's memory: never stored, never put in a URL. */
async function withKey<T>(key: string, path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const response = await pageFetch(path, {
    method: init.method ?? 'GET',
    headers: {
      authorization: `Api-Key ${key}`,
      ...(init.body !== undefined && { 'content-type': 'application/json' }),
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    credentials: 'omit',
    cache: 'no-store',
  })
  const body = (await response.json().catch(() => ({}))) as { error?: string; code?: string }
  if (!response.ok)
    throw new PlatformApiError(response.status, body.code ?? 'HTTP_ERROR', body.error ?? `HTTP ${response.status}`)
  return body as T
}

/** `region=Europe` lines → user attributes; an empty value is `null` (clears a stored attribute). */
function parseAttributes(text: string): Array<{ name: string; value: string | null }> {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const at = line.indexOf('=')
      const name = (at < 0 ? line : line.slice(0, at)).trim()
      const value = at < 0 ? '' : line.slice(at + 1).trim()
      return { name, value: value === '' || value === 'null' ? null : value }
    })
}

const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`

function Status() {
  const [status, setStatus] = useState('checking…')
  useEffect(() => {
    pageFetch('/healthz', { cache: 'no-store', credentials: 'omit' })
      .then((response) => setStatus(response.ok ? 'running' : `unhealthy (HTTP ${response.status})`))
      .catch(() => setStatus('unreachable'))
  }, [])
  return (
    <p class="home-status" role="status">
      Status: <strong data-status={status}>{status}</strong> · version <strong>{document.body.dataset.version}</strong>
    </p>
  )
}

/** Text for a double-quoted HTML attribute. */
const htmlAttribute = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

function Preview({ apiKey, deployments }: { apiKey: string; deployments: DeploymentSummary[] }) {
  const [deploymentId, setDeploymentId] = useState(deployments[0]?.id ?? 0)
  const [externalId, setExternalId] = useState('preview-user')
  const [attributes, setAttributes] = useState('region=Europe')
  const [view, setView] = useState<'chat' | 'dashboard'>('chat')
  const [theme, setTheme] = useState<'auto' | 'light' | 'dark'>('auto')
  const [dashboards, setDashboards] = useState<PublishedDashboard[]>([])
  const [dashboardId, setDashboardId] = useState('')
  const [frame, setFrame] = useState<string>()
  const [error, setError] = useState<string>()
  const [tenant, setTenant] = useState('')
  const [creator, setCreator] = useState(false)
  // The list is read again at each opening: a creator in the frame may have made a dashboard meanwhile.
  const [listed, setListed] = useState(0)

  const readDashboards = () =>
    withKey<{ items: PublishedDashboard[] }>(
      apiKey,
      `/api/v1/deployments/${deploymentId}/dashboards?published=true`,
    ).then(
      (page) => {
        const published = page.items.filter((item) => item.publicId)
        setDashboards(published)
        setDashboardId((current) =>
          published.some((item) => item.publicId === current) ? current : (published[0]?.publicId ?? ''),
        )
      },
      () => setDashboards([]),
    )

  useEffect(() => {
    setDashboards([])
    void readDashboards()
  }, [apiKey, deploymentId, listed])

  const userAttributes = parseAttributes(attributes)
  const body = {
    deploymentId,
    externalId,
    userAttributes,
    ...(tenant.trim() && { embedTenantName: tenant.trim() }),
    // A creator's attributes are the tenant's own: the preview defines the ones it sends there, as text.
    ...(creator &&
      tenant.trim() && {
        creatorMode: true,
        userAttributeDefinitions: userAttributes.map((attribute) => ({ name: attribute.name, type: 'string' })),
      }),
  }
  const curl = [
    `curl -X POST ${window.location.origin}/api/v1/embed/generate-session`,
    `  -H "Authorization: Api-Key $API_KEY"`,
    `  -H 'content-type: application/json'`,
    `  -d ${shellQuote(JSON.stringify(body))}`,
  ].join(' \\\n')

  // The page your app frames, with the session id that call returns (each is exchanged once, within 5 minutes).
  const themeQuery = theme === 'auto' ? '' : `&theme=${theme}`
  const iframe =
    view === 'dashboard' && dashboardId
      ? `<iframe src="${window.location.origin}/embed/dashboard/${encodeURIComponent(dashboardId)}?session=SESSION_ID${themeQuery}"\n  title="${htmlAttribute(dashboards.find((dashboard) => dashboard.publicId === dashboardId)?.name ?? 'Dashboard')}" width="100%" height="720" style="border: 0"></iframe>`
      : `<iframe src="${window.location.origin}/embed/chat?sessionId=SESSION_ID${themeQuery}"\n  title="Ask our data" width="100%" height="720" style="border: 0"></iframe>`

  const open = async () => {
    setError(undefined)
    try {
      const { sessionId } = await withKey<{ sessionId: string }>(apiKey, '/api/v1/embed/generate-session', {
        method: 'POST',
        body,
      })
      setListed((count) => count + 1)
      const themeParam = theme === 'auto' ? '' : `&theme=${theme}`
      setFrame(
        view === 'chat'
          ? `/embed/chat?sessionId=${encodeURIComponent(sessionId)}${themeParam}`
          : `/embed/dashboard/${encodeURIComponent(dashboardId)}?session=${encodeURIComponent(sessionId)}${themeParam}`,
      )
    } catch (caught) {
      setError(describeError(caught))
    }
  }

  return (
    <section class="home-card" aria-labelledby="preview-title">
      <h2 id="preview-title">Embed preview</h2>
      <form
        class="preview-form"
        onSubmit={(event) => {
          event.preventDefault()
          void open()
        }}
      >
        <label>
          Deployment
          <select value={deploymentId} onChange={(event) => setDeploymentId(Number(event.currentTarget.value))}>
            {deployments.map((deployment) => (
              <option value={deployment.id}>
                {deployment.name} (#{deployment.id})
              </option>
            ))}
          </select>
        </label>
        <label>
          User id (externalId)
          <input
            value={externalId}
            onInput={(event) => setExternalId(event.currentTarget.value)}
            required
            maxLength={200}
          />
        </label>
        <label>
          <span>
            Attributes, one <code>name=value</code> a line (an empty value sends <code>null</code>, which clears a
            stored one)
          </span>
          <textarea rows={2} value={attributes} onInput={(event) => setAttributes(event.currentTarget.value)} />
        </label>
        <label>
          <span>
            Embed tenant (optional; the demo has <code>demo-tenant</code>)
          </span>
          <input value={tenant} maxLength={36} onInput={(event) => setTenant(event.currentTarget.value)} />
        </label>
        <label class="inline">
          <input
            type="checkbox"
            checked={creator}
            onChange={(event) => setCreator(event.currentTarget.checked)}
            disabled={tenant.trim() === ''}
          />{' '}
          Creator mode: may add chat answers to the tenant's dashboards and arrange them
        </label>
        <fieldset>
          <legend>Open</legend>
          <label class="inline">
            <input type="radio" name="view" checked={view === 'chat'} onChange={() => setView('chat')} /> Chat
          </label>
          <label class="inline">
            <input
              type="radio"
              name="view"
              checked={view === 'dashboard'}
              onChange={() => {
                setView('dashboard')
                // Read again, keeping the list meanwhile: a creator in the frame may have just made the one to open.
                void readDashboards()
              }}
            />{' '}
            Dashboard
          </label>
          {view === 'dashboard' && dashboards.length === 0 && (
            <span class="preview-none">No published dashboard on this deployment yet</span>
          )}
          {view === 'dashboard' && dashboards.length > 0 && (
            <select
              aria-label="Dashboard"
              value={dashboardId}
              onChange={(event) => setDashboardId(event.currentTarget.value)}
            >
              {dashboards.map((dashboard) => (
                <option value={dashboard.publicId ?? ''}>{dashboard.name}</option>
              ))}
            </select>
          )}
        </fieldset>
        <label>
          Theme
          <select value={theme} onChange={(event) => setTheme(event.currentTarget.value as 'auto' | 'light' | 'dark')}>
            <option value="auto">System</option>
            <option value="light">Light</option>
            <option value="dark">Dark</option>
          </select>
        </label>
        <button type="submit" class="button-primary" disabled={view === 'dashboard' && dashboardId === ''}>
          Open as this user
        </button>
      </form>
      {error && (
        <p class="home-error" role="alert">
          {error}
        </p>
      )}
      <div class="snippets">
        <div class="snippet">
          <h3>The call your backend makes</h3>
          <pre class="curl" aria-label="generate-session as curl">
            <code>{curl}</code>
          </pre>
          <button type="button" class="button-quiet" onClick={() => void navigator.clipboard?.writeText(curl)}>
            Copy curl
          </button>
        </div>
        <div class="snippet">
          <h3>The frame your page shows</h3>
          <pre class="curl-like" aria-label="iframe to paste">
            <code>{iframe}</code>
          </pre>
          <p class="snippet-note">
            <code>SESSION_ID</code> is the <code>sessionId</code> the call returns, used once within 5 minutes.
          </p>
          <button type="button" class="button-quiet" onClick={() => void navigator.clipboard?.writeText(iframe)}>
            Copy iframe
          </button>
        </div>
      </div>
      {frame && (
        <iframe
          class="preview-frame"
          title={view === 'chat' ? 'Embedded chat preview' : 'Embedded dashboard preview'}
          src={frame}
        />
      )}
    </section>
  )
}

/**
 * The front door at `/`: what this server is, whether it runs, where the documentation is. Nothing about any account
 * shows until an API key is pasted; the key stays in this component's state (memory of this tab) only.
 */
export function HomePage() {
  const [keyInput, setKeyInput] = useState('')
  const [apiKey, setApiKey] = useState<string>()
  const [deployments, setDeployments] = useState<DeploymentSummary[]>()
  const [error, setError] = useState<string>()

  const load = async () => {
    setError(undefined)
    const key = keyInput.trim()
    try {
      const result = await withKey<{ items: DeploymentSummary[] }>(key, '/api/v1/deployments')
      setApiKey(key)
      setDeployments(result.items)
      setKeyInput('')
    } catch (caught) {
      setError(
        caught instanceof PlatformApiError && caught.status === 401
          ? 'That key was not accepted.'
          : describeError(caught),
      )
    }
  }

  return (
    <div class="home">
      <header class="page-header">
        <h1>Analytics chat service</h1>
      </header>
      <main class="home-main">
        <section class="home-card" aria-labelledby="about-title">
          <h2 id="about-title">This server</h2>
          <Status />
          <ul class="home-links">
            <li>
              <a href="/openapi">API reference</a>: every route, with examples
            </li>
            <li>
              <a href="/metrics">Metrics</a> (Prometheus) and <a href="/healthz">health</a>
            </li>
            <li>
              <a href="/readme">README</a> and docs:{' '}
              {DOC_LINKS.map(([title, href], index) => (
                <span key={href}>
                  {index > 0 && ' · '}
                  <a href={href}>{title}</a>
                </span>
              ))}
            </li>
          </ul>
        </section>
        <section class="home-card" aria-labelledby="key-title">
          <h2 id="key-title">Your deployments</h2>
          {!apiKey && (
            <form
              class="key-form"
              onSubmit={(event) => {
                event.preventDefault()
                void load()
              }}
            >
              <label for="api-key">Admin API key (kept in this tab's memory only)</label>
              <input
                id="api-key"
                type="password"
                autocomplete="off"
                spellcheck={false}
                value={keyInput}
                onInput={(event) => setKeyInput(event.currentTarget.value)}
              />
              <button type="submit" class="button-primary" disabled={keyInput.trim() === ''}>
                Show deployments
              </button>
            </form>
          )}
          {error && (
            <p class="home-error" role="alert">
              {error}
            </p>
          )}
          {apiKey && deployments && (
            <>
              <ul class="deployments">
                {deployments.map((deployment) => (
                  <li data-deployment={deployment.id}>
                    <strong>{deployment.name}</strong> (#{deployment.id}, branches {deployment.branches.join(', ')}):
                    agents {deployment.agents.map((agent) => `${agent.name} (#${agent.id})`).join(', ') || 'none'}
                  </li>
                ))}
              </ul>
              <button
                type="button"
                class="button-quiet"
                onClick={() => {
                  setApiKey(undefined)
                  setDeployments(undefined)
                }}
              >
                Forget the key
              </button>
            </>
          )}
        </section>
        {apiKey && deployments && deployments.length > 0 && <Preview apiKey={apiKey} deployments={deployments} />}
      </main>
    </div>
  )
}
