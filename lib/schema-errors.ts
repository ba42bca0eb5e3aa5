import type { TSchema } from '@sinclair/typebox'
import { Value, ValueErrorType, type ValueError } from '@sinclair/typebox/value'

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

type NumberSchema = TSchema & { type: 'integer' | 'number'; minimum?: number; maximum?: number }

/**
 * The integer or number member of the text-or-number union a path or query number is validated with (`?first=20`
 * arrives as text; the framework accepts an integer-looking string or an integer, then converts it).
 */
function numberFromText(schema: TSchema): NumberSchema | undefined {
  const anyOf = (schema as { anyOf?: Array<Record<string, unknown>> }).anyOf
  if (!Array.isArray(anyOf) || anyOf.length !== 2) return undefined
  const text = anyOf.find(
    (member) => member.type === 'string' && ['integer', 'numeric'].includes(String(member.format)),
  )
  const number = anyOf.find((member) => member.type === 'integer' || member.type === 'number')
  return text && number ? (number as NumberSchema) : undefined
}

/** Whether `schema` is the text-or-boolean union a query flag is validated with (`?shared=true` arrives as text). */
function isBooleanFromText(schema: TSchema): boolean {
  const anyOf = (schema as { anyOf?: Array<Record<string, unknown>> }).anyOf
  return (
    Array.isArray(anyOf) &&
    anyOf.length === 2 &&
    anyOf.some((member) => member.type === 'string' && member.format === 'boolean') &&
    anyOf.some((member) => member.type === 'boolean')
  )
}

/** Whether `schema` is a plain integer or number schema. */
export function isNumberSchema(schema: unknown): schema is NumberSchema {
  const type = (schema as { type?: unknown } | undefined)?.type
  return type === 'integer' || type === 'number'
}

/** What a number field takes, bounds included: `expected an integer from 1 to 100`. */
export function numberExpectation(schema: NumberSchema): string {
  const kind = schema.type === 'integer' ? 'an integer' : 'a number'
  const { minimum, maximum } = schema
  if (minimum !== undefined && maximum !== undefined) return `expected ${kind} from ${minimum} to ${maximum}`
  if (minimum !== undefined) return `expected ${kind} of at least ${minimum}`
  if (maximum !== undefined) return `expected ${kind} of at most ${maximum}`
  return `expected ${kind}`
}

/** A schema's kind in words (`a string`, `an array of numbers`); undefined for one this cannot name. */
function kindInWords(schema: TSchema | undefined, plural = false): string | undefined {
  const { type, items } = (schema ?? {}) as { type?: unknown; items?: TSchema }
  const words: Record<string, [string, string]> = {
    string: ['a string', 'strings'],
    number: ['a number', 'numbers'],
    integer: ['an integer', 'integers'],
    boolean: ['a boolean', 'booleans'],
    object: ['an object', 'objects'],
    null: ['null', 'nulls'],
  }
  if (type === 'array') {
    const of = kindInWords(items, true)
    return of && !plural ? `an array of ${of}` : undefined
  }
  const word = typeof type === 'string' ? words[type] : undefined
  return word?.[plural ? 1 : 0]
}

/** What a union of plain kinds takes: `expected a string, a number, an array of strings or null`. */
function unionExpectation(schema: TSchema): string | undefined {
  const anyOf = (schema as { anyOf?: TSchema[] }).anyOf
  if (!Array.isArray(anyOf) || anyOf.length < 2) return undefined
  const kinds = anyOf.map((member) => kindInWords(member))
  if (kinds.some((kind) => kind === undefined)) return undefined
  return `expected ${kinds.slice(0, -1).join(', ')} or ${kinds.at(-1)}`
}

/** The plain members of a union, nested unions opened (`Nullable(Id)` in a body may hold a text-or-number union). */
function unionMembers(schema: TSchema): TSchema[] {
  const anyOf = (schema as { anyOf?: TSchema[] }).anyOf
  return Array.isArray(anyOf) ? anyOf.flatMap(unionMembers) : [schema]
}

/** Whether `value` is of the JSON kind `schema` takes, whatever the schema's other rules say. */
function isOfKind(schema: TSchema, value: unknown): boolean {
  switch ((schema as { type?: unknown }).type) {
    case 'string':
      return typeof value === 'string'
    case 'integer':
    case 'number':
      return typeof value === 'number'
    case 'boolean':
      return typeof value === 'boolean'
    case 'null':
      return value === null
    case 'array':
      return Array.isArray(value)
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value)
    default:
      return false
  }
}

/**
 * The error of the one member of a union that takes values of the value's kind: a slug in `string or null` that
 * breaks the slug's pattern fails that pattern, and saying it must be "a string or null" misleads the caller who sent
 * a string; among objects, the one the value's tag names. Undefined when no member, or more than one, takes that kind.
 */
function errorOfMemberOfKind(error: ValueError): ValueError | undefined {
  const members = unionMembers(error.schema).filter((member) => isOfKind(member, error.value))
  const tagged = members.length === 1 ? { member: members[0]! } : memberByTag(members, error)
  if (!tagged || 'error' in tagged) return tagged?.error
  const { member } = tagged
  const inner = Value.Errors(member, error.value).First()
  return inner && { ...inner, path: `${error.path}${inner.path}` }
}

/**
 * The member of a union of objects that the value's tag names (`{ kind: 'user', ... }` among objects told apart by a
 * constant `kind`), or the error of the tag itself when it names none, where "an object or an object" said nothing.
 */
function memberByTag(members: TSchema[], error: ValueError): { member: TSchema } | { error: ValueError } | undefined {
  type Tagged = TSchema & { properties?: Record<string, { const?: unknown }> }
  const objects = members as Tagged[]
  if (objects.length < 2 || objects.some((member) => member.type !== 'object')) return undefined
  const tag = Object.keys(objects[0]!.properties ?? {}).find((name) =>
    objects.every((member) => ['string', 'number'].includes(typeof member.properties?.[name]?.const)),
  )
  if (tag === undefined) return undefined
  const sent = (error.value as Record<string, unknown>)[tag]
  const named = objects.find((member) => member.properties![tag]!.const === sent)
  if (named) return { member: named }
  const choices = { anyOf: objects.map((member) => ({ const: member.properties![tag]!.const })) } as unknown as TSchema
  return { error: { ...error, type: ValueErrorType.Union, schema: choices, path: `${error.path}/${tag}`, value: sent } }
}

/** A description continuing a sentence: its first letter in lower case, unless it opens an acronym (`BCP 47 tag`). */
function sentenceMiddle(description: string): string {
  return /^[A-Z]{2}/.test(description) ? description : `${description.charAt(0).toLowerCase()}${description.slice(1)}`
}

/** One plain sentence for one TypeBox error, e.g. `plan: expected one of free, starter, premium, enterprise`. */
export function describeValueError(error: ValueError, root = ''): string {
  const path = readablePath(error.path, root)
  const choices = literalChoices(error.schema)
  if (choices) return `${path}: expected one of ${choices.join(', ')}`
  if (error.message === 'Unexpected property') return `${path}: unknown field`
  if (error.message.startsWith('Expected required property')) return `${path}: required`
  // Not "expected union value": the field takes a number, so say which.
  const number = numberFromText(error.schema)
  if (number) return `${path}: ${numberExpectation(number)}`
  // A body number says what it takes as a query or path number does, bounds included, in one sentence.
  if (isNumberSchema(error.schema)) return `${path}: ${numberExpectation(error.schema)}`
  if (isBooleanFromText(error.schema)) return `${path}: expected true or false`
  if (error.type === ValueErrorType.Union) {
    const member = errorOfMemberOfKind(error)
    if (member) return describeValueError(member, root)
    const kinds = unionExpectation(error.schema)
    if (kinds) return `${path}: ${kinds}`
  }
  // A pattern says little to a reader: its schema's description says what the text must be.
  const { description } = error.schema as { description?: unknown }
  if (error.type === ValueErrorType.StringPattern && typeof description === 'string' && description !== '')
    return `${path}: expected text of this form: ${sentenceMiddle(description).replace(/\.$/, '')}`
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
