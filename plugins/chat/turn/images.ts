import { BadRequestError } from '../../../lib/errors'
import type { ChatRequest, ImageAttachment } from '../model'

/**
 * 400 for an image that is not given inline: `data` is the image itself, base64 or a `data:` URL. The server never
 * fetches a caller's URL: it would reach whatever the server can reach, inside the company's network too.
 */
export function assertInlineImages(images: ChatRequest['images']): void {
  images?.forEach((image, index) => {
    const link = /^[a-z][a-z0-9+.-]*:/i.test(image.data) && !/^data:/i.test(image.data)
    if (link || !isInlineImage(image.data))
      throw new BadRequestError(
        link
          ? `images[${index}].data: send the image itself (base64 or a data: URL), not a link to it`
          : `images[${index}].data: expected the image in base64 or as a data: URL`,
        'INVALID_IMAGE',
      )
  })
}

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

/** How `data` holds an image: base64, or a `data:` URL (base64 or percent-encoded); undefined for anything else. */
function encodingOf(data: string): { payload: string; base64: boolean } | undefined {
  const dataUrl = /^data:[^,]*,/i.exec(data)
  const payload = dataUrl ? data.slice(dataUrl[0].length) : data
  const base64 = !dataUrl || /;base64,$/i.test(dataUrl[0])
  const valid = base64 ? BASE64.test(payload.replace(/\s+/g, '')) : PERCENT_ENCODED.test(payload)
  return valid ? { payload, base64 } : undefined
}

const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/
const PERCENT_ENCODED = /^(?:[\x00-\x24\x26-\x7f]|%[0-9a-f]{2})+$/i

/** Whether `data` is an image given inline (checked without decoding it). */
export function isInlineImage(data: string): boolean {
  return encodingOf(data) !== undefined
}

/** The bytes of `data`, when it is an image given inline. */
export function imageBytes(data: string): Uint8Array | undefined {
  const encoding = encodingOf(data)
  if (!encoding) return undefined
  return encoding.base64
    ? new Uint8Array(Buffer.from(encoding.payload.replace(/\s+/g, ''), 'base64'))
    : percentBytes(encoding.payload)
}

/** A percent-encoded payload (ASCII, checked by `encodingOf`) as bytes. */
function percentBytes(text: string): Uint8Array {
  const bytes: number[] = []
  for (let index = 0; index < text.length; index++) {
    if (text[index] === '%') {
      bytes.push(Number.parseInt(text.slice(index + 1, index + 3), 16))
      index += 2
    } else bytes.push(text.charCodeAt(index))
  }
  return new Uint8Array(bytes)
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
