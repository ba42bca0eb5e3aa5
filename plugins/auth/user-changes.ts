import type { ClusterBus } from '../../lib/cluster-bus'

/** A change to a stored user's identity or access (its row, groups, attribute values): one user of the account. */
export interface UserChange {
  accountId: number
  userId: number
}

/**
 * The news that users changed, for the nodes that keep users' access in memory (see `createUserProvisioner`). Two
 * small functions over the cluster bus, so the bus under them can change without their callers: `publish` tells this
 * node at once and every other node within moments; `listen` hears every change, this node's own included, and
 * `undefined` when changes may have been missed (this node was cut off from the bus), meaning: forget them all.
 */
export interface UserChanges {
  publish(change: UserChange): void
  listen(listener: (change: UserChange | undefined) => void): () => void
}

/** `UserChanges` over the cluster bus (Redis pub/sub between nodes; this process only, in memory). */
export function userChangesOver(
  bus: Pick<ClusterBus, 'publish' | 'subscribe'>,
  onPublishFailed: (error: unknown) => void,
): UserChanges {
  return {
    publish(change) {
      // Heard here at once; a publication Redis did not take is sent again by the bus once it answers.
      bus.publish({ type: 'user-changed', ...change }).catch(onPublishFailed)
    },
    listen(listener) {
      return bus.subscribe((event) => {
        if (event.type === 'user-changed') listener({ accountId: event.accountId, userId: event.userId })
        else if (event.type === 'embed-sessions-recheck') listener(undefined)
      })
    },
  }
}
