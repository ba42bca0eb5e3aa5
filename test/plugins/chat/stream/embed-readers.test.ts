import { describe, expect, it } from 'bun:test'
import { MemoryClusterBus } from '../../../../lib/cluster-bus'
import { EmbedReaders, type EmbedReader } from '../../../../plugins/chat/stream/embed-readers'

/** A reader that counts its rechecks. */
function reader(): EmbedReader & { rechecks: number } {
  return {
    rechecks: 0,
    async recheck() {
      this.rechecks++
    },
  }
}

describe('EmbedReaders', () => {
  it("checks again the readers of the account a revocation names, and no other account's", async () => {
    const bus = new MemoryClusterBus()
    const readers = new EmbedReaders()
    readers.listen(bus)
    const [ours, alsoOurs, theirs] = [reader(), reader(), reader()]
    readers.add(1, ours)
    readers.add(1, alsoOurs)
    readers.add(2, theirs)
    await bus.publish({ type: 'embed-session-revoked', accountId: 1 })
    expect([ours.rechecks, alsoOurs.rechecks, theirs.rechecks]).toEqual([1, 1, 0])
  })

  it('checks every reader again when the node was cut off from the bus, and none for other news', async () => {
    const bus = new MemoryClusterBus()
    const readers = new EmbedReaders()
    const stop = readers.listen(bus)
    const [one, two] = [reader(), reader()]
    readers.add(1, one)
    readers.add(2, two)
    await bus.publish({ type: 'policies-changed', deploymentId: 1 })
    await bus.publish({ type: 'abort', runId: 'r', reason: 'Run aborted' })
    await bus.publish({ type: 'embed-sessions-recheck' })
    expect([one.rechecks, two.rechecks]).toEqual([1, 1])
    stop()
    await bus.publish({ type: 'embed-sessions-recheck' })
    expect([one.rechecks, two.rechecks]).toEqual([1, 1])
  })

  it('forgets a reader once it is deleted', async () => {
    const bus = new MemoryClusterBus()
    const readers = new EmbedReaders()
    readers.listen(bus)
    const gone = reader()
    readers.add(1, gone)
    readers.delete(1, gone)
    await bus.publish({ type: 'embed-session-revoked', accountId: 1 })
    expect(gone.rechecks).toBe(0)
  })
})
