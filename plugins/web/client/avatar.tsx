import { useState } from 'preact/hooks'
import { initials } from './format'

/**
 * The user's avatar: `picture` loaded by the browser, shown only once it has loaded, so a broken URL
 * never shows a broken-image icon; until then, and for good when it fails, the initials of `displayName`.
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
  return (
    <span class={`avatar avatar-${size}`} role="img" aria-label={displayName ?? 'User'} data-avatar={status}>
      {status !== 'loaded' && (
        <span class="avatar-initials" aria-hidden="true">
          {initials(displayName)}
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
