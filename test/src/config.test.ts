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
})
