/** What a request with the NUL character in its text is told. */
export const NUL_TEXT_MESSAGE = 'Text must not contain the NUL character (U+0000)'

/**
 * Whether any string in `value` (keys included) holds the NUL character. Postgres cannot keep it in text: a lookup
 * or a write with one fails there, where SQLite would take it (and the data could then not move to Postgres). So
 * requests with one are refused before they reach the storage, alike on both. The walk uses its own stack, so deeply
 * nested JSON cannot overflow the call stack.
 */
export function containsNul(value: unknown): boolean {
  const pending: unknown[] = [value]
  while (pending.length > 0) {
    const item = pending.pop()
    if (typeof item === 'string') {
      if (item.includes('\u0000')) return true
    } else if (typeof item === 'object' && item !== null) {
      // Bytes and files are not text (and a large upload would be walked byte by byte).
      if (ArrayBuffer.isView(item) || item instanceof ArrayBuffer || item instanceof Blob) continue
      for (const [key, child] of Object.entries(item)) {
        if (key.includes('\u0000')) return true
        if (typeof child === 'string' || (typeof child === 'object' && child !== null)) pending.push(child)
      }
    }
  }
  return false
}
