import { describe, expect, it } from 'bun:test'
import { ConfigError, loadConfig } from '../../lib/config'

describe('loadConfig', () => {
  it('uses the defaults of the contract', () => {
    const config = loadConfig({})
    expect(config).toMatchObject({
      port: 4000,
      host: '0.0.0.0',
      dbPath: './data/service.db',
      analystDelayMs: 15,
      logLevel: 'info',
    })
    expect(config.llm).toBeUndefined()
    expect(config.bootstrapFile).toBeUndefined()
  })

  it('reads every variable', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '127.0.0.1',
      DB_PATH: ':memory:',
      BOOTSTRAP_FILE: 'boot.yaml',
      LLM_BASE_URL: 'http://127.0.0.1:9999/v1',
      LLM_API_KEY: 'sk-test',
      LLM_MODEL: 'gpt-test',
      ANALYST_DELAY_MS: '0',
      LOG_LEVEL: 'WARN',
    })
    expect(config).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      dbPath: ':memory:',
      bootstrapFile: 'boot.yaml',
      llm: { baseUrl: 'http://127.0.0.1:9999/v1', apiKey: 'sk-test', model: 'gpt-test' },
      analystDelayMs: 0,
      logLevel: 'warn',
    })
  })

  it('reports every bad variable at once, by name', () => {
    try {
      loadConfig({ PORT: 'eighty', ANALYST_DELAY_MS: '-1', LOG_LEVEL: 'loud', LLM_BASE_URL: 'ftp://x' })
      throw new Error('expected a ConfigError')
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError)
      const problems = (error as ConfigError).problems
      expect(problems.map((problem) => problem.split(':')[0]).sort()).toEqual([
        'ANALYST_DELAY_MS',
        'LLM_BASE_URL',
        'LLM_MODEL',
        'LOG_LEVEL',
        'PORT',
      ])
    }
  })

  it('reads a number only as decimal digits, so PORT=0x10 is refused instead of listening on port 16', () => {
    for (const raw of ['0x10', '1e3', '0b11', '0o17', '+80', '-0', '1.0', 'Infinity'])
      expect(() => loadConfig({ PORT: raw })).toThrow(
        `PORT: expected an integer from 0 to 65535, got ${JSON.stringify(raw)}`,
      )
    expect(() => loadConfig({ CHAT_MAX_RUNS_PER_KEY: '1e3' })).toThrow('CHAT_MAX_RUNS_PER_KEY: expected an integer')
    expect(loadConfig({ PORT: ' 8080 ' }).port).toBe(8080)
    expect(loadConfig({ PORT: '0080' }).port).toBe(80)
  })

  it('refuses a DEMO_API_KEY that no Authorization header could carry: spaces, or outside printable ASCII', () => {
    for (const key of ['has space in it 1234567890', 'ak_démo_key_0123456789'])
      expect(() => loadConfig({ DEMO_API_KEY: key })).toThrow(
        'DEMO_API_KEY: must be printable ASCII without spaces (it is sent in the Authorization header)',
      )
    expect(loadConfig({ DEMO_API_KEY: 'ak_demo-key.0123456789' }).demoApiKey).toBe('ak_demo-key.0123456789')
  })

  it('keeps the state in SQLite unless DATABASE_URL names a Postgres database', () => {
    expect(loadConfig({})).toMatchObject({ databaseUrl: undefined, databasePoolSize: 10 })
    expect(
      loadConfig({ DATABASE_URL: 'postgres://service:secret@db.internal:5432/service', DATABASE_POOL_SIZE: '25' }),
    ).toMatchObject({ databaseUrl: 'postgres://service:secret@db.internal:5432/service', databasePoolSize: 25 })
  })

  it('refuses a DATABASE_URL that is not Postgres without echoing it, and a pool size out of range', () => {
    const problems = (() => {
      try {
        loadConfig({ DATABASE_URL: 'mysql://user:hunter2@db/service', DATABASE_POOL_SIZE: '0' })
        return []
      } catch (error) {
        return (error as ConfigError).problems
      }
    })()
    expect(problems.map((problem) => problem.split(':')[0]).sort()).toEqual(['DATABASE_POOL_SIZE', 'DATABASE_URL'])
    expect(problems.join('\n')).not.toContain('hunter2')
  })

  it('runs one process unless WORKERS asks for more, which needs Redis and a database every process can open', () => {
    expect(loadConfig({}).workers).toBe(1)
    expect(loadConfig({ WORKERS: '2', REDIS_URL: 'redis://127.0.0.1:6379' }).workers).toBe(2)
    const problems = (environment: Record<string, string>) => {
      try {
        loadConfig(environment)
        return []
      } catch (error) {
        return (error as ConfigError).problems
      }
    }
    expect(problems({ WORKERS: '2' })).toEqual([
      'WORKERS: more than 1 needs REDIS_URL (the processes share their runs through Redis)',
    ])
    expect(problems({ WORKERS: '2', REDIS_URL: 'redis://127.0.0.1:6379', DB_PATH: ':memory:' })).toEqual([
      'WORKERS: more than 1 needs DATABASE_URL or a DB_PATH file (:memory: is one database per process)',
    ])
    expect(problems({ WORKERS: '0' })).toEqual(['WORKERS: expected an integer from 1 to 64, got "0"'])
    expect(problems({ WORKERS: 'two' })).toEqual(['WORKERS: expected an integer from 1 to 64, got "two"'])
  })
})
