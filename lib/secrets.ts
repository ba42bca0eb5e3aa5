import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'

/** SHA-256 hex of a high-entropy secret (API keys, session ids). Such secrets need no slow hash or salt. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex')
}

/** Compares two strings in time that depends only on their lengths. */
export function constantTimeEqual(left: string, right: string): boolean {
  const a = Buffer.from(left)
  const b = Buffer.from(right)
  if (a.length !== b.length) {
    // Compare anyway so a length mismatch costs the same as a content mismatch.
    timingSafeEqual(a, a)
    return false
  }
  return timingSafeEqual(a, b)
}

/** A URL-safe random token with `bytes` bytes of entropy. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url')
}
