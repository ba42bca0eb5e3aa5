import { ValidationError } from 'elysia'
import { AppError, type ErrorBody } from '../../lib/errors'
import { Value } from '@sinclair/typebox/value'
import { describeValueError, isNumberSchema, numberExpectation } from '../../lib/schema-errors'

/** What a body that is not JSON is told (Elysia's parse error, and `jsonBody`'s). */
export const MALFORMED_JSON_MESSAGE = 'Malformed request body: expected valid JSON'

const PART_NAMES: Record<string, string> = { body: 'body', query: 'query', params: 'path', headers: 'header' }

/** The raw path, query and body values of the request, as parsed (before any conversion). */
export interface RequestValues {
  params?: unknown
  query?: unknown
  body?: unknown
}

/**
 * The field a number sent as text failed in, when only its converted value is known. The framework checks such a
 * number's bounds after converting the text (`?first=0` is a valid integer-looking string, then 0 is below 1), and
 * that error carries the value and the number schema but not the field: the field is the path, query or top-level
 * body text, in the order they are checked, that converts to this value and breaks this schema.
 */
function describeConvertedNumber(error: ValidationError, values: RequestValues | undefined): string | undefined {
  const schema = error.validator
  if (!isNumberSchema(schema) || typeof error.value !== 'number') return undefined
  // Body fields are named without a prefix, as in every other body error.
  const parts: Array<[string, unknown]> = [
    ['path ', values?.params],
    ['query ', values?.query],
    ['', values?.body],
  ]
  for (const [prefix, record] of parts) {
    if (typeof record !== 'object' || record === null || Array.isArray(record)) continue
    for (const [name, raw] of Object.entries(record)) {
      if (typeof raw !== 'string' || raw.trim() === '') continue
      const number = Number(raw)
      if (Object.is(number, error.value) && !Value.Check(schema, number))
        return `${prefix}${name}: ${numberExpectation(schema)}`
    }
  }
  return `Invalid request: ${numberExpectation(schema)}`
}

/** A 400 message naming the field, from Elysia's validation error (never the raw dump of the schema). */
export function describeValidationError(error: ValidationError, values?: RequestValues): string {
  if (error.type === 'property') {
    const converted = describeConvertedNumber(error, values)
    if (converted) return converted
  }
  const part = PART_NAMES[error.type] ?? error.type
  const first = error.valueError
  if (!first) return `Invalid request ${part}`
  const root = part === 'body' ? '' : `${part} `
  const detail = describeValueError(first, '')
  const fieldless = detail.startsWith('(root)')
  if (part === 'body') return fieldless ? `Invalid request body: ${detail.slice(8)}` : detail
  return fieldless ? `Invalid ${part}: ${detail.slice(8)}` : `${root}${detail}`
}

/** Maps any thrown value to a status and the `{ error, code }` body. */
export function toErrorResponse(
  code: string | number,
  error: unknown,
  values?: RequestValues,
): { status: number; body: ErrorBody } {
  if (error instanceof AppError) return { status: error.status, body: { error: error.message, code: error.code } }
  if (error instanceof ValidationError)
    return { status: 400, body: { error: describeValidationError(error, values), code: 'VALIDATION_FAILED' } }
  switch (code) {
    case 'PARSE':
      return { status: 400, body: { error: MALFORMED_JSON_MESSAGE, code: 'MALFORMED_JSON' } }
    case 'NOT_FOUND':
      return { status: 404, body: { error: 'No such route', code: 'ROUTE_NOT_FOUND' } }
    case 'INVALID_COOKIE_SIGNATURE':
    case 'INVALID_FILE_TYPE':
      return { status: 400, body: { error: (error as Error).message, code: 'BAD_REQUEST' } }
  }
  const status = (error as { status?: unknown })?.status
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return { status, body: { error: (error as Error).message || 'Bad request', code: 'BAD_REQUEST' } }
  }
  return { status: 500, body: { error: 'Internal server error', code: 'INTERNAL' } }
}
