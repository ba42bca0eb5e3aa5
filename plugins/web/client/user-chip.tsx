import type { EmbedContext } from '../model'
import { Avatar } from './avatar'

/** The signed-in viewer: avatar and display name, top right of every page; a long name is cut short, whole on hover. */
export function UserChip({ user }: { user: EmbedContext['user'] }) {
  return (
    <div class="user-chip">
      <Avatar displayName={user.displayName} picture={user.picture} />
      {user.displayName && (
        <span class="user-name" title={user.displayName}>
          {user.displayName}
        </span>
      )}
    </div>
  )
}
