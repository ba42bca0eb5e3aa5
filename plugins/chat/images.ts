import type { ImageAttachment } from './model'

/**
 * An attachment as the model gets it: its bytes (never a string the SDK might take for a URL to download), when it is
 * an image a model reads (PNG, JPEG, GIF or WebP, told by its bytes). Anything else, an old link or bytes of no such
 * image, is left out: sent, the provider would refuse this turn and every later one of the thread.
 */
export function inlineImage(image: ImageAttachment): { bytes: Uint8Array; mediaType: string } | undefined {
  const bytes = imageBytes(image.data)
  const mediaType = bytes && sniffImage(bytes)
  return bytes && mediaType ? { bytes, mediaType } : undefined
}

/** The bytes of `data`: base64, or a `data:` URL (base64 or percent-encoded); undefined for anything else. */
export function imageBytes(data: string): Uint8Array | undefined {
  const dataUrl = /^data:[^,]*,/i.exec(data)
  if (dataUrl) {
    const payload = data.slice(dataUrl[0].length)
    return /;base64,$/i.test(dataUrl[0]) ? base64Bytes(payload) : percentBytes(payload)
  }
  return base64Bytes(data)
}

function base64Bytes(text: string): Uint8Array | undefined {
  const compact = text.replace(/\s+/g, '')
  if (compact === '' || !/^[A-Za-z0-9+/_-]+={0,2}$/.test(compact)) return undefined
  return new Uint8Array(Buffer.from(compact, 'base64'))
}

function percentBytes(text: string): Uint8Array | undefined {
  const bytes: number[] = []
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index)
    if (code === 0x25 && /^[0-9a-f]{2}$/i.test(text.slice(index + 1, index + 3))) {
      bytes.push(Number.parseInt(text.slice(index + 1, index + 3), 16))
      index += 2
    } else if (code < 0x80) bytes.push(code)
    else return undefined
  }
  return bytes.length > 0 ? new Uint8Array(bytes) : undefined
}

/** The media type of an image by its first bytes, for the kinds models read. */
function sniffImage(bytes: Uint8Array): string | undefined {
  const starts = (...signature: number[]) => signature.every((byte, index) => bytes[index] === byte)
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png'
  if (starts(0xff, 0xd8, 0xff)) return 'image/jpeg'
  if (starts(0x47, 0x49, 0x46, 0x38)) return 'image/gif'
  if (starts(0x52, 0x49, 0x46, 0x46) && String.fromCharCode(...bytes.subarray(8, 12)) === 'WEBP') return 'image/webp'
  return undefined
}
