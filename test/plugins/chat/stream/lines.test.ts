import { describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import { deltaLines, encodedLine, encodeLine, encodeLines, type LineView } from '../../../../plugins/chat/stream/lines'

const decoder = new TextDecoder()

describe('deltaLines', () => {
  it('makes exactly the JSON and bytes that encoding the whole delta line makes', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, unit: 'binary' }),
        fc.nat(),
        fc.array(fc.string({ unit: 'grapheme' }), { maxLength: 3 }),
        fc.string({ unit: 'binary' }),
        (id, sort, graphPath, content) => {
          const fast = deltaLines({ id, sort, graphPath })(content)
          const whole = encodeLine({
            id,
            role: 'assistant',
            sort,
            graphPath,
            content,
            isDelta: true,
            isInProcess: true,
          })
          expect(fast.json).toBe(whole.json)
          expect(decoder.decode(fast.bytes)).toBe(decoder.decode(whole.bytes))
        },
      ),
    )
  })
})

describe('encodeLines', () => {
  const text = (chunk: string | Uint8Array) => (typeof chunk === 'string' ? chunk : decoder.decode(chunk))

  it('encodes a run of lines as the concatenation of their NDJSON, shared or not', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: 'binary' }), { minLength: 1, maxLength: 6 }),
        fc.boolean(),
        (contents, shared) => {
          const lines = contents.map((content, index) =>
            deltaLines({ id: `m${index}`, sort: 1, graphPath: ['final'] })(content),
          )
          const expected = lines.map((line) => `${line.json}\n`).join('')
          expect(text(encodeLines(lines, 0, lines.length, shared))).toBe(expected)
          expect(text(encodeLines(lines, 0, 1, shared))).toBe(`${lines[0].json}\n`)
        },
      ),
    )
  })

  it('gives one reader text for its socket to encode, and several readers of one line its bytes made once', () => {
    const line = deltaLines({ id: 'm', sort: 1, graphPath: ['final'] })('héllo')
    expect(typeof encodeLines([line], 0, 1)).toBe('string')
    expect(typeof encodeLines([line, line], 0, 2)).toBe('string')
    const shared = encodeLines([line], 0, 1, true)
    expect(shared).toBeInstanceOf(Uint8Array)
    expect(encodeLines([line], 0, 1, true)).toBe(shared)
  })

  it('gives several readers of one span of a log its bytes made once, and a new span or view its own', () => {
    const delta = deltaLines({ id: 'm', sort: 1, graphPath: ['final'] })
    const log = [delta('a'), delta('b'), delta('c')]
    // Asked for once (a joiner's replay), the span is text for the socket to encode; asked for again, bytes.
    expect(typeof encodeLines(log, 0, 2, true)).toBe('string')
    const span = encodeLines(log, 0, 2, true)
    expect(span).toBeInstanceOf(Uint8Array)
    expect(encodeLines(log, 0, 2, true)).toBe(span)
    expect(text(span)).toBe(`${log[0].json}\n${log[1].json}\n`)
    const upper: LineView = (line) => encodedLine(line.json.toUpperCase())
    expect(text(encodeLines(log, 0, 2, true, upper))).toBe(
      `${log[0].json.toUpperCase()}\n${log[1].json.toUpperCase()}\n`,
    )
    expect(text(encodeLines(log, 1, 3, true))).toBe(`${log[1].json}\n${log[2].json}\n`)
    // Another log with the same span is not taken for this one.
    const other = [delta('x'), delta('y')]
    expect(text(encodeLines(other, 0, 2, true))).toBe(`${other[0].json}\n${other[1].json}\n`)
  })
})
