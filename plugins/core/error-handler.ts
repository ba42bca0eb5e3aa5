import { ValidationError } from 'elysia'
import { AppError, type ErrorBody } from '../../lib/errors'
import { describeValueError } from '../../lib/schema-errors'

const PART_NAMES: Record<string, string> = { body: 'body', query: 'query', params: 'path', headers: 'header' }

/** A 400 message naming the field, from Elysia's validation error (never the raw dump of the schema). */
export function describeValidationError(error: ValidationError): string {
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
export function toErrorResponse(code: string | number, error: unknown): { status: number; body: ErrorBody } {
  if (error instanceof AppError) return { status: error.status, body: { error: error.message, code: error.code } }
  if (error instanceof ValidationError)
    return { status: 400, body: { error: describeValidationError(error), code: 'VALIDATION_FAILED' } }
  switch (code) {
    case 'PARSE':
      return { status: 400, body: { error: 'Malformed request body: expected valid JSON', code: 'MALFORMED_JSON' } }
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
