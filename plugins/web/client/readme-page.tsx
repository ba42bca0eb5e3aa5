import { useEffect, useState } from 'preact/hooks'
import { describeError, pageFetch } from './api'
import { Markdown } from './markdown'

/** The project's README, served by the service itself so its sections are one click from the front door, offline too. */
export function ReadmePage() {
  const [text, setText] = useState<string>()
  const [error, setError] = useState<string>()
  useEffect(() => {
    pageFetch('/readme.md', { credentials: 'omit' })
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
        {error && <p role="alert">The README could not be loaded: {error}</p>}
        {text && (
          <article>
            <Markdown text={text} document />
          </article>
        )}
      </main>
    </div>
  )
}
