import { describe, expect, it } from 'bun:test'
import { MemoryClusterBus } from '../../lib/cluster-bus'
import { createTestApp } from '../helpers/app'
import { clusterBusContract } from './cluster-bus-contract'

clusterBusContract('one process', async () => {
  const bus = new MemoryClusterBus()
  return { a: bus, b: bus, close: () => bus.close() }
})

describe('MemoryClusterBus', () => {
  it('is what an app without REDIS_URL gets, and it says it reaches no other node', async () => {
    const test = createTestApp({ registry: undefined })
    try {
      expect(test.deps.bus).toBeInstanceOf(MemoryClusterBus)
      expect(test.deps.bus.shared).toBe(false)
    } finally {
      await test.close()
    }
  })
})
