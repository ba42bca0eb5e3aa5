import { useEffect, useState } from 'preact/hooks'
import { describeError, pageFetch } from './api'
import { Markdown } from './markdown'

/**
 * Links between the README and the docs, written for a repository (`docs/x.md`, `x.md#part`, `../README.md`), as
 * addresses of this server (`origin`); a link to another file of the repository keeps only its text.
 */
export function serverDocLinks(text: string, origin: string): string {
  return text
    .replace(/\]\((?:\.\/)?docs\/([\w-]+)\.md(#[\w-]+)?\)/g, `](${origin}/docs/$1$2)`)
    .replace(/\]\(\.\.\/README\.md(#[\w-]+)?\)/g, `](${origin}/readme$1)`)
    .replace(/\]\(([\w-]+)\.md(#[\w-]+)?\)/g, (_whole, name: string, anchor = '') =>
      name === 'README' ? `](${origin}/readme${anchor})` : `](${origin}/docs/${name}${anchor})`,
    )
    .replace(/\[([^\]]+)\]\((?!https?:\/\/|#)[^)\s]+\)/g, '$1')
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
      .then(async (response) =>
        response.ok
          ? setText(serverDocLinks(await response.text(), window.location.origin))
          : setError(`HTTP ${response.status}`),
      )
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
            <Markdown text={text} document />
          </article>
        )}
      </main>
    </div>
  )
}
