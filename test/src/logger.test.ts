import { describe, expect, it } from 'bun:test'
import { loadConfig } from '../../lib/config'
import { createLogger, resolveLogFormat } from '../../lib/logger'

function capture(format: 'json' | 'pretty') {
  const lines: string[] = []
  return { lines, logger: createLogger('info', { node: 'a' }, (line) => void lines.push(line), format) }
}

describe('createLogger', () => {
  it('writes one JSON object a line in the json format', () => {
    const { lines, logger } = capture('json')
    logger.info('listening', { url: 'http://localhost:4000' })
    expect(lines).toHaveLength(1)
    expect(lines[0].endsWith('\n')).toBe(true)
    expect(JSON.parse(lines[0])).toMatchObject({
      level: 'info',
      msg: 'listening',
      node: 'a',
      url: 'http://localhost:4000',
    })
  })

  it('writes a readable line with the time, level, message and fields in the pretty format', () => {
    const { lines, logger } = capture('pretty')
    logger.warn('slow query', { ms: 1200, sql: 'SELECT 1', cube: { name: 'orders' } })
    expect(lines[0]).toMatch(
      /^\d{2}:\d{2}:\d{2}\.\d{3} WARN  slow query node=a ms=1200 sql="SELECT 1" cube=\{"name":"orders"\}\n$/,
    )
  })

  it("puts an error's stack under its pretty line", () => {
    const { lines, logger } = capture('pretty')
    logger.error('request failed', { error: new TypeError('boom') })
    expect(lines[0]).toContain('ERROR request failed node=a error="TypeError: boom"\n  at ')
  })
})

describe('resolveLogFormat', () => {
  it('is pretty on a terminal and JSON otherwise, unless LOG_FORMAT says', () => {
    expect(resolveLogFormat(undefined, true)).toBe('pretty')
    expect(resolveLogFormat(undefined, false)).toBe('json')
    expect(resolveLogFormat(loadConfig({ LOG_FORMAT: 'json' }).logFormat, true)).toBe('json')
    expect(resolveLogFormat(loadConfig({ LOG_FORMAT: 'PRETTY' }).logFormat, false)).toBe('pretty')
    expect(() => loadConfig({ LOG_FORMAT: 'xml' })).toThrow('LOG_FORMAT: expected json or pretty')
  })
})
