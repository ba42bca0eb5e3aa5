import type { AttributeValue } from '../../db/schema'
import type { AttributeType } from './model'
import { BadRequestError } from '../../lib/errors'

const TYPE_NAMES: Record<AttributeType, string> = {
  string: 'a string',
  number: 'a number',
  boolean: 'a boolean',
  string_array: 'an array of strings',
  number_array: 'an array of numbers',
}

function matches(type: AttributeType, value: AttributeValue): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string'
    case 'number':
      return typeof value === 'number' && Number.isFinite(value)
    case 'boolean':
      return typeof value === 'boolean'
    case 'string_array':
      return Array.isArray(value) && value.every((item) => typeof item === 'string')
    case 'number_array':
      return Array.isArray(value) && value.every((item) => typeof item === 'number' && Number.isFinite(item))
  }
}

/** 400 unless `value` has the definition's type. `null` never reaches here: it clears the value. */
export function assertAttributeValue(name: string, type: AttributeType, value: AttributeValue): void {
  if (!matches(type, value))
    throw new BadRequestError(
      `User attribute "${name}" expects ${TYPE_NAMES[type]} (its type is ${type})`,
      'ATTRIBUTE_TYPE_MISMATCH',
    )
}

/** 400 naming the first name given twice in `list` (the field is named in the message). */
export function assertUniqueNames(field: string, names: readonly string[], code: string): void {
  const seen = new Set<string>()
  for (const name of names) {
    if (seen.has(name)) throw new BadRequestError(`${field}: duplicate name "${name}"`, code)
    seen.add(name)
  }
}

/** How a definition's `defaultValue` (text) is written for each type. */
const DEFAULT_FORMS: Record<AttributeType, string> = {
  string: 'any text',
  number: 'a number such as 42 or 2.5',
  boolean: 'true or false',
  string_array: 'a list such as a,b or a JSON array of strings such as ["a","b"]',
  number_array: 'a list such as 1,2 or a JSON array of numbers such as [1,2]',
}

const NUMBER = /^\s*-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/

/**
 * The value a definition's `defaultValue` text stands for, read by its type: the text itself for a string, a decimal
 * number, `true` or `false`, or for an array a JSON array of the element type or a comma-separated list (one item
 * alone is a list of one). Empty text is no default (undefined), as is text that reads as none of these.
 */
export function readDefaultValue(type: AttributeType, text: string): AttributeValue | undefined {
  const trimmed = text.trim()
  if (trimmed === '') return undefined
  let value: unknown
  switch (type) {
    case 'string':
      return text
    case 'number':
      value = NUMBER.test(trimmed) ? Number(trimmed) : undefined
      break
    case 'boolean':
      value = /^true$/i.test(trimmed) ? true : /^false$/i.test(trimmed) ? false : undefined
      break
    default:
      if (trimmed.startsWith('['))
        try {
          value = JSON.parse(trimmed)
        } catch {
          value = undefined
        }
      else {
        const items = trimmed
          .split(',')
          .map((item) => item.trim())
          .filter((item) => item !== '')
        value =
          type === 'string_array' ? items : items.every((item) => NUMBER.test(item)) ? items.map(Number) : undefined
      }
  }
  return value !== undefined && matches(type, value as AttributeValue) ? (value as AttributeValue) : undefined
}

/**
 * What is wrong with a definition's `defaultValue` (see `readDefaultValue`); undefined when it reads as its type or is
 * empty (no default).
 */
export function defaultValueProblem(type: AttributeType, text: string): string | undefined {
  return text.trim() !== '' && readDefaultValue(type, text) === undefined
    ? `${JSON.stringify(text)} is not a default of type ${type}: write ${DEFAULT_FORMS[type]}`
    : undefined
}

/** 400 unless the definition's `defaultValue` reads as a value of its type. */
export function assertDefaultValue(field: string, type: AttributeType, text: string): void {
  const problem = defaultValueProblem(type, text)
  if (problem) throw new BadRequestError(`${field}: ${problem}`, 'INVALID_DEFAULT_VALUE')
}
