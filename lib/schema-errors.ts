import type { TSchema } from '@sinclair/typebox'
import { Value, type ValueError } from '@sinclair/typebox/value'

/** Turns a JSON pointer (`/accounts/0/apiKeys/1/key`) into a readable path (`accounts[0].apiKeys[1].key`). */
export function readablePath(pointer: string, root = ''): string {
  let out = root
  for (const raw of pointer.split('/').slice(1)) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~')
    if (/^\d+$/.test(part)) out += `[${part}]`
    else out += out === '' ? part : `.${part}`
  }
  return out === '' ? '(root)' : out
}

function literalChoices(schema: TSchema): string[] | undefined {
  const anyOf = (schema as { anyOf?: TSchema[] }).anyOf
  if (!Array.isArray(anyOf)) return undefined
  const values = anyOf.map((member) => (member as { const?: unknown }).const)
  return values.every((value) => typeof value === 'string' || typeof value === 'number')
    ? values.map(String)
    : undefined
}

/** One plain sentence for one TypeBox error, e.g. `plan: expected one of free, starter, premium, enterprise`. */
export function describeValueError(error: ValueError, root = ''): string {
  const path = readablePath(error.path, root)
  const choices = literalChoices(error.schema)
  if (choices) return `${path}: expected one of ${choices.join(', ')}`
  if (error.message === 'Unexpected property') return `${path}: unknown field`
  if (error.message.startsWith('Expected required property')) return `${path}: required`
  return `${path}: ${error.message.charAt(0).toLowerCase()}${error.message.slice(1)}`
}

/**
 * The first few distinct errors of `value` against `schema`, most specific first (a missing or wrong field
 * rather than the union or object around it).
 */
export function schemaErrors(schema: TSchema, value: unknown, root = '', limit = 5): string[] {
  const seen = new Set<string>()
  const out: string[] = []
  for (const error of Value.Errors(schema, value)) {
    // The object-level "expected required property" duplicates the field-level error that follows it.
    const message = describeValueError(error, root)
    const key = readablePath(error.path, root)
    if (seen.has(key)) continue
    seen.add(key)
    out.push(message)
    if (out.length >= limit) break
  }
  return out
}
