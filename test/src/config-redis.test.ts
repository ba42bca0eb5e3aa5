import { describe, expect, it } from 'bun:test'
import { ConfigError, loadConfig } from '../../lib/config'
import { MemoryRunRegistry } from '../../plugins/chat/registry/memory-run-registry'
import { createTestApp } from '../helpers/app'

describe('REDIS_URL', () => {
  it('is unset by default: runs stay in the process', () => {
    expect(loadConfig({}).redisUrl).toBeUndefined()
    const test = createTestApp({ registry: undefined, config: { redisUrl: undefined } })
    expect(test.deps.registry).toBeInstanceOf(MemoryRunRegistry)
    return test.close()
  })

  it('takes redis:// and rediss:// URLs', () => {
    expect(loadConfig({ REDIS_URL: 'redis://cache:6379/0' }).redisUrl).toBe('redis://cache:6379/0')
    expect(loadConfig({ REDIS_URL: ' rediss://user:secret@cache:6380 ' }).redisUrl).toBe(
      'rediss://user:secret@cache:6380',
    )
  })

  it('refuses anything else, by name and without echoing the value (it may hold a password)', () => {
    for (const value of ['http://cache:6379', 'cache:6379', 'redis//x']) {
      let problems: string[] = []
      try {
        loadConfig({ REDIS_URL: value })
      } catch (error) {
        problems = (error as ConfigError).problems
      }
      expect(problems).toEqual(['REDIS_URL: expected a redis:// or rediss:// URL'])
    }
  })
})
