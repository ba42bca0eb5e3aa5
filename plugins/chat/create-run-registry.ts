import type { Storage } from '../../db/client'
import type { Config } from '../../lib/config'
import type { Logger } from '../../lib/logger'
import { RedisRunRegistry } from './redis-run-registry'
import { MemoryRunRegistry, type RunRegistry } from './run-registry'

/** The run registry the configuration asks for: Redis when `REDIS_URL` is set, else this process's memory. */
export function createRunRegistry(
  config: Pick<Config, 'redisUrl'>,
  deps: { storage: Storage; logger: Logger; clock: () => number },
): RunRegistry {
  if (config.redisUrl === undefined) return new MemoryRunRegistry()
  return new RedisRunRegistry({ url: config.redisUrl, ...deps })
}
