/**
 * The SQL function every SQLite connection of the service defines to lower text as the other databases do, every
 * letter: SQLite's own `lower()` knows only ASCII's ('Émile' ILIKE 'ÉMILE' missed 'émile').
 */
export const UNICODE_LOWER = 'unicode_lower'

/**
 * What `unicode_lower` does: text lowered by JavaScript, blobs and NULL as they are, numbers as their text (64-bit
 * integers whole: the function is defined to get them as bigints), as SQLite's own `lower()` reads a number.
 */
export function unicodeLower(value: string | number | bigint | Uint8Array | null): string | Uint8Array | null {
  if (value === null || value instanceof Uint8Array) return value
  return typeof value === 'string' ? value.toLowerCase() : String(value).toLowerCase()
}

/** Options of its definition: the same answer for the same value, integers whole. */
export const UNICODE_LOWER_OPTIONS = { deterministic: true, safeIntegers: true } as const
