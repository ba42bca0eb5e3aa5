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
})
