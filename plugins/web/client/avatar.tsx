import { useState } from 'preact/hooks'
import { initials } from './format'

/**
 * The user's avatar: `picture` loaded by the browser, shown only once it has loaded, so a broken URL
 * never shows a broken-image icon; until then, and for good when it fails, the initials of `displayName` (a person's
 * outline without one).
 */
export function Avatar({
  displayName,
  picture,
  size = 'medium',
}: {
  displayName: string | null
  picture: string | null
  size?: 'small' | 'medium'
}) {
  // The outcome belongs to the picture it was for: a new picture starts loading again, with no effect to reset it.
  const [outcome, setOutcome] = useState<{ picture: string; status: 'loaded' | 'failed' }>()
  const status = !picture ? 'failed' : outcome?.picture === picture ? outcome.status : 'loading'
  const letters = initials(displayName)
  return (
    <span class={`avatar avatar-${size}`} role="img" aria-label={displayName ?? 'User'} data-avatar={status}>
      {status !== 'loaded' && (
        <span class="avatar-initials" aria-hidden="true">
          {letters === '?' ? <PersonIcon /> : letters}
        </span>
      )}
      {picture && status !== 'failed' && (
        <img
          class={status === 'loaded' ? 'avatar-picture' : 'avatar-picture avatar-pending'}
          src={picture}
          alt=""
          referrerpolicy="no-referrer"
          decoding="async"
          onLoad={() => setOutcome({ picture, status: 'loaded' })}
          onError={() => setOutcome({ picture, status: 'failed' })}
        />
      )}
    </span>
  )
}

/** Without a name, a person's outline: a "?" in a dark circle read as a help button. */
function PersonIcon() {
  return (
    <svg viewBox="0 0 20 20" width="60%" height="60%" focusable="false">
      <circle cx="10" cy="7" r="3.5" fill="currentColor" />
      <path d="M3.5 17.5a6.5 6.5 0 0 1 13 0z" fill="currentColor" />
    </svg>
  )
}
