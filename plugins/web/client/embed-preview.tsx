import { useEffect, useState } from 'preact/hooks'
import type { DeploymentSummary } from '../../management/model/deployments'
import { describeError } from './api'
import { withKey } from './with-key'

interface PublishedDashboard {
  name: string
  publicId: string | null
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

/** Text for a double-quoted HTML attribute. */
const htmlAttribute = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

/** The generate-session body of the form's choices: the user, their attributes, and the tenant they create in. */
function sessionBody(form: {
  deploymentId: number
  externalId: string
  /** `name=value` lines. */
  attributes: string
  tenant: string
  creator: boolean
}) {
  const userAttributes = parseAttributes(form.attributes)
  const tenant = form.tenant.trim()
  return {
    deploymentId: form.deploymentId,
    externalId: form.externalId,
    userAttributes,
    ...(tenant && { embedTenantName: tenant }),
    // A creator's attributes are the tenant's own: the preview defines the ones it sends there, as text.
    ...(form.creator &&
      tenant && {
        creatorMode: true,
        userAttributeDefinitions: userAttributes.map((attribute) => ({ name: attribute.name, type: 'string' })),
      }),
  }
}

/** The generate-session call a backend makes, as curl. */
function curlSnippet(body: unknown): string {
  return [
    `curl -X POST ${window.location.origin}/api/v1/embed/generate-session`,
    `  -H "Authorization: Api-Key $API_KEY"`,
    `  -H 'content-type: application/json'`,
    `  -d ${shellQuote(JSON.stringify(body))}`,
  ].join(' \\\n')
}

/**
 * The page an app frames, with the session id the call returns (each is exchanged once, within 5 minutes): the chat,
 * or the dashboard given.
 */
function iframeSnippet(theme: Theme, dashboard: { publicId: string; name: string } | undefined): string {
  const themeQuery = theme === 'auto' ? '' : `&theme=${theme}`
  return dashboard
    ? `<iframe src="${window.location.origin}/embed/dashboard/${encodeURIComponent(dashboard.publicId)}?session=SESSION_ID${themeQuery}"\n  title="${htmlAttribute(dashboard.name)}" width="100%" height="720" style="border: 0"></iframe>`
    : `<iframe src="${window.location.origin}/embed/chat?sessionId=SESSION_ID${themeQuery}"\n  title="Ask our data" width="100%" height="720" style="border: 0"></iframe>`
}

/** Open the chat or a published dashboard of the deployment (picked from a list). */
function ViewPicker(props: {
  view: 'chat' | 'dashboard'
  onView: (view: 'chat' | 'dashboard') => void
  dashboards: PublishedDashboard[]
  dashboardId: string
  onDashboard: (publicId: string) => void
}) {
  return (
    <fieldset>
      <legend>Open</legend>
      <label class="inline">
        <input type="radio" name="view" checked={props.view === 'chat'} onChange={() => props.onView('chat')} /> Chat
      </label>
      <label class="inline">
        <input
          type="radio"
          name="view"
          checked={props.view === 'dashboard'}
          onChange={() => props.onView('dashboard')}
        />{' '}
        Dashboard
      </label>
      {props.view === 'dashboard' && props.dashboards.length === 0 && (
        <span class="preview-none">No published dashboard on this deployment yet</span>
      )}
      {props.view === 'dashboard' && props.dashboards.length > 0 && (
        <select
          aria-label="Dashboard"
          value={props.dashboardId}
          onChange={(event) => props.onDashboard(event.currentTarget.value)}
        >
          {props.dashboards.map((dashboard) => (
            <option value={dashboard.publicId ?? ''}>{dashboard.name}</option>
          ))}
        </select>
      )}
    </fieldset>
  )
}

/** The two snippets to copy: the call a backend makes, and the frame a page shows. */
function Snippets({ curl, iframe }: { curl: string; iframe: string }) {
  return (
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
  )
}

type Theme = 'auto' | 'light' | 'dark'

/**
 * The deployment's published dashboards and the one picked (kept while it is still listed, else the first), read
 * again whenever `listed` changes and at each `readDashboards`.
 */
function usePublishedDashboards(apiKey: string, deploymentId: number, listed: number) {
  const [dashboards, setDashboards] = useState<PublishedDashboard[]>([])
  const [dashboardId, setDashboardId] = useState('')
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
  return { dashboards, dashboardId, setDashboardId, readDashboards }
}

/** Opens the embedded chat or a dashboard as a user the form describes, and shows the two snippets that do it. */
export function EmbedPreview({ apiKey, deployments }: { apiKey: string; deployments: DeploymentSummary[] }) {
  const [deploymentId, setDeploymentId] = useState(deployments[0]?.id ?? 0)
  const [externalId, setExternalId] = useState('preview-user')
  const [attributes, setAttributes] = useState('region=Europe')
  const [view, setView] = useState<'chat' | 'dashboard'>('chat')
  const [theme, setTheme] = useState<Theme>('auto')
  const [frame, setFrame] = useState<string>()
  const [error, setError] = useState<string>()
  const [tenant, setTenant] = useState('')
  const [creator, setCreator] = useState(false)
  // The list is read again at each opening: a creator in the frame may have made a dashboard meanwhile.
  const [listed, setListed] = useState(0)

  const { dashboards, dashboardId, setDashboardId, readDashboards } = usePublishedDashboards(
    apiKey,
    deploymentId,
    listed,
  )

  const body = sessionBody({ deploymentId, externalId, attributes, tenant, creator })
  const curl = curlSnippet(body)
  const dashboardName = dashboards.find((item) => item.publicId === dashboardId)?.name ?? 'Dashboard'
  const iframe = iframeSnippet(
    theme,
    view === 'dashboard' && dashboardId ? { publicId: dashboardId, name: dashboardName } : undefined,
  )

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
        <ViewPicker
          view={view}
          onView={(next) => {
            setView(next)
            // Read again, keeping the list meanwhile: a creator in the frame may have just made the one to open.
            if (next === 'dashboard') void readDashboards()
          }}
          dashboards={dashboards}
          dashboardId={dashboardId}
          onDashboard={setDashboardId}
        />
        <label>
          Theme
          <select value={theme} onChange={(event) => setTheme(event.currentTarget.value as Theme)}>
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
      <Snippets curl={curl} iframe={iframe} />
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
