import { describe, expect, it } from 'bun:test'
import { demoKeyNotice } from '../../src/demo-key-notice'

const key = 'ak_demo_Ab-9_xYz0123456789abcdef'
/** How the README's line is read back: the key after the headline, up to a space or the line's end. */
const found = (text: string) => /Demo admin API key[^:]*: (ak_\S+)/.exec(text)?.[1]

describe('demoKeyNotice', () => {
  it('is one JSON log line where stdout holds JSON logs, the key readable in it as in the README', () => {
    const text = demoKeyNotice(key, 4000, 'json', new Date('2026-07-20T12:00:00Z'))
    const lines = text.split('\n').filter(Boolean)
    expect(lines).toHaveLength(1)
    const entry = JSON.parse(lines[0]!)
    expect(entry).toMatchObject({ time: '2026-07-20T12:00:00.000Z', level: 'info' })
    expect(entry.msg).toStartWith(`Demo admin API key (shown once, stored only as a hash): ${key} `)
    expect(entry.msg).toContain(
      `curl -H "Authorization: Api-Key ${key}" http://localhost:4000/api/v1/deployments/1/meta`,
    )
    expect(found(text)).toBe(key)
  })

  it('keeps the README lines in a terminal', () => {
    const text = demoKeyNotice(key, 4000, 'pretty')
    expect(text).toContain(`\nDemo admin API key (shown once, stored only as a hash): ${key}\n`)
    expect(found(text)).toBe(key)
  })
})
