import type { TSchema } from '@sinclair/typebox'
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler'
import { Value, ValueErrorType } from '@sinclair/typebox/value'
import { BadRequestError } from '../../lib/errors'
import { readablePath } from '../../lib/schema-errors'

const checks = new WeakMap<TSchema, TypeCheck<TSchema>>()
function compiled(schema: TSchema): TypeCheck<TSchema> {
  let check = checks.get(schema)
  if (!check) {
    check = TypeCompiler.Compile(schema)
    checks.set(schema, check)
  }
  return check
}

/** Request fields that releases removed, with the release that removed them. */
const REMOVED_FIELDS: Record<string, string> = { ephemeralTtlSeconds: 'v0.2.0' }

/**
 * Rejects a raw body's removed and unknown fields before the schema runs (the framework would otherwise drop
 * unknown fields silently, and a misspelt security field must not mint a session without it).
 */
export function rejectUnknownFields(schema: TSchema, body: unknown): void {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return
  for (const [field, release] of Object.entries(REMOVED_FIELDS))
    if (field in body) throw new BadRequestError(`${field} was removed in release ${release}`, 'FIELD_REMOVED')
  // A body the schema accepts has no unknown field: the compiled check answers that for every valid request, and
  // only a failing body is walked for the field to name.
  if (compiled(schema).Check(body)) return
  for (const error of Value.Errors(schema, body))
    if (error.type === ValueErrorType.ObjectAdditionalProperties || error.message === 'Unexpected property')
      throw new BadRequestError(`${readablePath(error.path)}: unknown field`, 'UNKNOWN_FIELD')
}
