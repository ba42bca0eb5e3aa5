import { describe, expect, it } from 'bun:test'
import { inlineImage, isInlineImage } from '../../../../plugins/chat/turn/images'

const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='

describe('images given inline', () => {
  it('takes base64 and data: URLs, base64 or percent-encoded, and nothing else', () => {
    for (const data of [PNG_BASE64, `data:image/png;base64,${PNG_BASE64}`, 'data:image/png,%89PNG%0D%0A%1A%0A'])
      expect(isInlineImage(data)).toBe(true)
    for (const data of ['https://example.com/a.png', 'not base64 !!!', 'data:image/png,%zz', 'data:image/png,é'])
      expect(isInlineImage(data)).toBe(false)
  })

  it('gives the model the bytes of PNG, JPEG, GIF and WebP images, typed by their bytes, and leaves out the rest', () => {
    const png = inlineImage({ mimeType: 'image/jpeg', data: PNG_BASE64 })
    expect(png?.mediaType).toBe('image/png')
    expect([...png!.bytes.subarray(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47])
    expect(inlineImage({ mimeType: 'image/png', data: 'data:image/png,%89PNG%0D%0A%1A%0Arest' })?.mediaType).toBe(
      'image/png',
    )
    expect(inlineImage({ mimeType: 'image/gif', data: Buffer.from('GIF89a').toString('base64') })?.mediaType).toBe(
      'image/gif',
    )
    expect(inlineImage({ mimeType: 'image/png', data: 'aGVsbG8=' })).toBeUndefined()
    expect(inlineImage({ mimeType: 'image/png', data: 'https://cdn.example.com/old-link.png' })).toBeUndefined()
  })
})
