import { describe, expect, it } from 'bun:test'
import { serverDocAddress } from '../../../plugins/web/client/readme-page'

describe('serverDocAddress', () => {
  const origin = 'http://127.0.0.1:4000'
  const address = (url: string) => serverDocAddress(url, origin)

  it("makes the README's and the chapters' links to each other addresses of the server", () => {
    expect(address('docs/embedding.md')).toBe(`${origin}/docs/embedding`)
    expect(address('./docs/embedding.md#errors')).toBe(`${origin}/docs/embedding#errors`)
    expect(address('chat-api.md#errors')).toBe(`${origin}/docs/chat-api#errors`)
    expect(address('../README.md')).toBe(`${origin}/readme`)
    expect(address('README.md#quick-start')).toBe(`${origin}/readme#quick-start`)
  })

  it('keeps anchors and web addresses, and only the text of a link to another file of the repository', () => {
    expect(address('#quick-start')).toBe('#quick-start')
    expect(address('https://github.com/leeoniya/uPlot')).toBe('https://github.com/leeoniya/uPlot')
    expect(address('../plugins/semantic/README.md')).toBeUndefined()
    expect(address('../bench/run.ts')).toBeUndefined()
  })
})
