import { describe, expect, it } from 'bun:test'
import type { ClusterBus, ClusterEvent } from '../../lib/cluster-bus'

/**
 * What every cluster bus honours, run against each implementation. `nodes()` gives the buses of two nodes of one
 * service (for a bus that serves one process, the same bus twice) and the function that closes them.
 */
export function clusterBusContract(
  name: string,
  nodes: () => Promise<{ a: ClusterBus; b: ClusterBus; close(): Promise<void> }>,
) {
  describe(`the cluster bus (${name})`, () => {
    it("tells the publishing node's listeners before publish resolves", async () => {
      const { a, close } = await nodes()
      try {
        const heard: ClusterEvent[] = []
        a.subscribe((event) => heard.push(event))
        await a.publish({ type: 'policies-changed', deploymentId: 7 })
        expect(heard).toEqual([{ type: 'policies-changed', deploymentId: 7 }])
      } finally {
        await close()
      }
    })

    it('tells every node once, in the order events were published', async () => {
      const { a, b, close } = await nodes()
      try {
        const heard: ClusterEvent[] = []
        b.subscribe((event) => heard.push(event))
        await a.publish({ type: 'embed-session-revoked', accountId: 1 })
        await a.publish({ type: 'abort', runId: 'r1', reason: 'Run aborted' })
        await until(() => heard.length >= 2)
        await Bun.sleep(50)
        expect(heard).toEqual([
          { type: 'embed-session-revoked', accountId: 1 },
          { type: 'abort', runId: 'r1', reason: 'Run aborted' },
        ])
      } finally {
        await close()
      }
    })

    it('stops calling a listener once it unsubscribed', async () => {
      const { a, close } = await nodes()
      try {
        const heard: ClusterEvent[] = []
        const stop = a.subscribe((event) => heard.push(event))
        stop()
        await a.publish({ type: 'policies-changed', deploymentId: 1 })
        expect(heard).toEqual([])
      } finally {
        await close()
      }
    })
  })
}

/** Resolves once `done()` holds, or fails after 5 s. */
async function until(done: () => boolean): Promise<void> {
  const deadline = performance.now() + 5000
  while (!done()) {
    if (performance.now() > deadline) throw new Error('the event never came')
    await Bun.sleep(10)
  }
}
