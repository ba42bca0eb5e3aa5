import { useEffect, useState } from 'preact/hooks'
import { describeError, pageFetch } from './api'
import { Markdown } from './markdown'

/**
 * A link between the README and the docs, written for a repository (`docs/x.md`, `x.md#part`, `../README.md`), as
 * an address of this server (`origin`); anchors and web addresses stay as they are, and a link to another file of the
 * repository is undefined (it keeps only its text).
 */
export function serverDocAddress(url: string, origin: string): string | undefined {
  if (/^(https?:\/\/|#)/i.test(url)) return url
  const file = /^(?:\.\/)?(?:(docs\/)|(\.\.\/))?([\w-]+)\.md(#[\w-]+)?$/.exec(url)
  if (!file) return undefined
  const [, inDocs, above, name, anchor = ''] = file
  if (name === 'README' && !inDocs) return `${origin}/readme${anchor}`
  return above ? undefined : `${origin}/docs/${name}${anchor}`
}

/** The Markdown this page shows: `/docs/<name>` shows that chapter, `/readme` the README. */
function markdownAddress(path: string): string {
  return path.startsWith('/docs/') ? `${path.replace(/\/$/, '')}.md` : '/readme.md'
}

/**
 * The project's README and the chapters of its docs, served by the service itself so they are one click from the
 * front door, offline too.
 */
export function ReadmePage() {
  const [text, setText] = useState<string>()
  const [error, setError] = useState<string>()
  useEffect(() => {
    pageFetch(markdownAddress(window.location.pathname), { credentials: 'omit' })
      .then(async (response) => (response.ok ? setText(await response.text()) : setError(`HTTP ${response.status}`)))
      .catch((caught: unknown) => setError(describeError(caught)))
  }, [])
  useEffect(() => {
    // The anchor in the address names a section that exists only once the text is drawn.
    if (text && window.location.hash)
      document.getElementById(decodeURIComponent(window.location.hash.slice(1)))?.scrollIntoView()
  }, [text])
  return (
    <div class="home readme">
      <header class="page-header">
        <a href="/">Analytics chat service</a>
      </header>
      <main class="readme-main">
        {text === undefined && !error && (
          <p class="page-status" role="status">
            Loading…
          </p>
        )}
        {error && <p role="alert">The page could not be loaded: {error}</p>}
        {text && (
          <article>
            <Markdown text={text} document linkAddress={(url) => serverDocAddress(url, window.location.origin)} />
          </article>
        )}
      </main>
    </div>
  )
}
