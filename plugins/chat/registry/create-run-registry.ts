import type { Storage } from '../../../db/client'
import type { ClusterBus } from '../../../lib/cluster-bus'
import type { Config } from '../../../lib/config'
import type { Logger } from '../../../lib/logger'
import { RedisClusterBus } from '../../../lib/redis-cluster-bus'
import { RedisRunRegistry } from './redis/redis-run-registry'
import { MemoryRunRegistry } from './memory-run-registry'
import { type RunRegistry } from './run-registry'

/**
 * The run registry the configuration asks for: Redis when `REDIS_URL` is set, else this process's memory. A shared
 * registry reaches the other nodes' runs over the node's cluster bus, which must then be the Redis one.
 */
export function createRunRegistry(
  config: Pick<Config, 'redisUrl'>,
  deps: { storage: Storage; logger: Logger; clock: () => number; bus: ClusterBus },
): RunRegistry {
  if (config.redisUrl === undefined) return new MemoryRunRegistry()
  if (!(deps.bus instanceof RedisClusterBus))
    throw new Error('a run registry shared through Redis needs the Redis cluster bus')
  return new RedisRunRegistry({ url: config.redisUrl, ...deps, bus: deps.bus })
}
