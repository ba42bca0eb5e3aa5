/**
 * Member and cube references inside model SQL (`{CUBE}`, `{CUBE.status}`, `{customers}`, `{customers.id}`,
 * `{count}`; Cube's `${...}` spelling too). Only model authors write these templates; queries never reach them.
 */
export interface Reference {
  /** `CUBE`, a cube name, or a member of the current cube. */
  head: string
  /** The member after the dot, if any. */
  tail: string | undefined
  text: string
}

const REFERENCE = /\$?\{\s*([A-Za-z_][A-Za-z0-9_]*)(?:\.([A-Za-z_][A-Za-z0-9_]*))?\s*\}/g

export function referencesIn(sql: string): Reference[] {
  return [...sql.matchAll(REFERENCE)].map((match) => ({ head: match[1], tail: match[2], text: match[0] }))
}

/** Replaces every reference with `resolve(reference)`. */
export function renderTemplate(sql: string, resolve: (reference: Reference) => string): string {
  return sql.replace(REFERENCE, (text, head: string, tail: string | undefined) => resolve({ head, tail, text }))
}

/** A bare column name (`amount`) is read from the cube's own table: `{CUBE}.amount`. */
export function qualifyColumn(sql: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(sql.trim()) ? `{CUBE}.${sql.trim()}` : sql
}

/** A double-quoted SQL identifier (`main.orders` → `"main"."orders"`). */
export function quoteIdentifier(name: string): string {
  return name
    .split('.')
    .map((part) => `"${part.replace(/"/g, '""')}"`)
    .join('.')
}
