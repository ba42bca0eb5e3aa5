import { describe, expect, it } from 'bun:test'
import { serverDocLinks } from '../../../plugins/web/client/readme-page'

describe('serverDocLinks', () => {
  const origin = 'http://127.0.0.1:4000'

  it("makes the README's and the chapters' links to each other addresses of the server", () => {
    expect(
      serverDocLinks('[Embedding](docs/embedding.md), [errors](chat-api.md#errors), [top](../README.md)', origin),
    ).toBe(`[Embedding](${origin}/docs/embedding), [errors](${origin}/docs/chat-api#errors), [top](${origin}/readme)`)
  })

  it('keeps anchors and web addresses, and only the text of a link to another file of the repository', () => {
    expect(
      serverDocLinks(
        '[here](#quick-start) [uPlot](https://github.com/leeoniya/uPlot) [x](../plugins/semantic/README.md)',
        origin,
      ),
    ).toBe('[here](#quick-start) [uPlot](https://github.com/leeoniya/uPlot) x')
  })
})
