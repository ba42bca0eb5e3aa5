import { useEffect, useState } from 'preact/hooks'
import type { DeploymentSummary } from '../../management/model/deployments'
import { describeError, pageFetch, PlatformApiError } from './api'
import { EmbedPreview } from './embed-preview'
import { withKey } from './with-key'

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
        {apiKey && deployments && deployments.length > 0 && <EmbedPreview apiKey={apiKey} deployments={deployments} />}
      </main>
    </div>
  )
}
