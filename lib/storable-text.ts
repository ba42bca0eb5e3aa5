/** What a request with the NUL character in its text is told. */
export const NUL_TEXT_MESSAGE = 'Text must not contain the NUL character (U+0000)'

/** What a request with an unpaired surrogate in its text is told, naming where. */
export const unpairedSurrogateMessage = (path: string) =>
  `Text must be well-formed Unicode: ${path} has an unpaired surrogate`

/**
 * Whether any string in `value` (keys included) holds the NUL character. Postgres cannot keep it in text: a lookup
 * or a write with one fails there, where SQLite would take it (and the data could then not move to Postgres). So
 * requests with one are refused before they reach the storage, alike on both. The walk uses its own stack, so deeply
 * nested JSON cannot overflow the call stack.
 */
export function containsNul(value: unknown): boolean {
  return textProblem(value, { surrogates: false }) !== undefined
}

/** A string of a request value that cannot be stored as it was sent. */
export type TextProblem = { kind: 'nul' } | { kind: 'unpaired-surrogate'; path: string }

/**
 * The first string in `value` (keys included) that cannot be stored as sent: one with the NUL character (see
 * `containsNul`), or one with an unpaired surrogate. Stored as UTF-8 (SQLite, Postgres), an unpaired surrogate reads
 * back as U+FFFD, so `"team\ud800"` and `"team\udbff"` become one name: one group, one workbook, one attribute,
 * one user's row-level security value, and a request naming one would act on the other. `freeText` names top-level
 * fields whose text the route makes well-formed itself (a chat question, which is stored with U+FFFD in place, as it
 * is echoed); NUL is refused there too. Deeper paths are named as `a.b[2].c`. With `surrogates: false` only NUL is
 * looked for.
 */
export function textProblem(
  value: unknown,
  options: { freeText?: readonly string[]; surrogates?: boolean } = {},
): TextProblem | undefined {
  const { freeText = [], surrogates = true } = options
  // Each pending value with the way to it, so a path is only spelt out for the string that fails.
  interface Step {
    item: unknown
    key: string
    array: boolean
    parent: Step | undefined
    free: boolean
  }
  const pathOf = (step: Step | undefined, last?: { key: string; array: boolean }): string => {
    const keys: Array<{ key: string; array: boolean }> = last ? [last] : []
    for (let at = step; at?.parent; at = at.parent) keys.unshift(at)
    return keys.map(({ key, array }, index) => (array ? `[${key}]` : index ? `.${key}` : key)).join('') || 'the value'
  }
  const pending: Step[] = [{ item: value, key: '', array: false, parent: undefined, free: false }]
  while (pending.length > 0) {
    const step = pending.pop()!
    const { item } = step
    if (typeof item === 'string') {
      if (item.includes('\u0000')) return { kind: 'nul' }
      if (surrogates && !step.free && !item.isWellFormed()) return { kind: 'unpaired-surrogate', path: pathOf(step) }
    } else if (typeof item === 'object' && item !== null) {
      // Bytes and files are not text (and a large upload would be walked byte by byte).
      if (ArrayBuffer.isView(item) || item instanceof ArrayBuffer || item instanceof Blob) continue
      const array = Array.isArray(item)
      for (const [key, child] of Object.entries(item)) {
        if (key.includes('\u0000')) return { kind: 'nul' }
        if (surrogates && !key.isWellFormed()) return { kind: 'unpaired-surrogate', path: pathOf(step, { key, array }) }
        if (typeof child === 'string' || (typeof child === 'object' && child !== null)) {
          const free = step.free || (step.parent === undefined && !array && freeText.includes(key))
          pending.push({ item: child, key, array, parent: step, free })
        }
      }
    }
  }
  return undefined
}
