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
