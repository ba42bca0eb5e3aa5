import type { Storage } from '../../db/client'
import { MemoryClusterBus, type ClusterBus, type ClusterEvent } from '../../lib/cluster-bus'
import type { BootstrapFile } from '../../src/bootstrap/model'
import { applyBootstrap } from '../../src/bootstrap/apply'
import { testBootstrap } from './fixtures'

/** The bus of a node with others beside it: what it is told goes to its listeners, as Redis would bring it. */
export function sharedBus(): Pick<ClusterBus, 'shared' | 'subscribe'> & { hear(event: ClusterEvent): void } {
  const local = new MemoryClusterBus()
  return {
    shared: true,
    subscribe: (listener) => local.subscribe(listener),
    hear: (event) => void local.publish(event),
  }
}

/** What another node's start with a changed bootstrap file stores: the test bootstrap, as `change` edits it. */
export async function applyChangedBootstrap(storage: Storage, change: (file: BootstrapFile) => void): Promise<void> {
  const file = testBootstrap()
  change(file)
  await applyBootstrap(storage, file, 'bootstrap.yaml')
}
