import type { TOptional, TSchema } from '@sinclair/typebox'
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler'
import { Value, ValueErrorType } from '@sinclair/typebox/value'
import { t } from 'elysia'
import { BadRequestError } from '../../lib/errors'
import { NUL_TEXT_MESSAGE, textProblem, unpairedSurrogateMessage } from '../../lib/storable-text'
import { readablePath } from '../../lib/schema-errors'
import { MALFORMED_JSON_MESSAGE } from './error-handler'

const checks = new WeakMap<TSchema, TypeCheck<TSchema>>()
function compiled(schema: TSchema): TypeCheck<TSchema> {
  let check = checks.get(schema)
  if (!check) {
    check = TypeCompiler.Compile(schema)
    checks.set(schema, check)
  }
  return check
}

/**
 * Rejects a raw body's removed fields (`removed`: each with the release that removed it) and unknown fields before
 * the schema runs (the framework would otherwise drop unknown fields silently, and a misspelt security field must not
 * mint a session without it).
 */
export function rejectUnknownFields(schema: TSchema, body: unknown, removed: Record<string, string> = {}): void {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return
  for (const [field, release] of Object.entries(removed))
    if (field in body) throw new BadRequestError(`${field} was removed in release ${release}`, 'FIELD_REMOVED')
  // A body the schema accepts has no unknown field: the compiled check answers that for every valid request, and
  // only a failing body is walked for the field to name.
  if (compiled(schema).Check(body)) return
  const unknown = unknownFieldOf(schema, body, '')
  if (unknown !== undefined) throw new BadRequestError(`${readablePath(unknown)}: unknown field`, 'UNKNOWN_FIELD')
}

/**
 * The JSON pointer of a field of `value` that `schema` does not know, if any. Inside a union (a nullable object, one
 * of several shapes), the shape the value matches once its unknown fields are dropped is the one it meant: the
 * union's own error ("expected union value") would hide the field's name.
 */
function unknownFieldOf(schema: TSchema, value: unknown, base: string): string | undefined {
  for (const error of Value.Errors(schema, value)) {
    if (error.type === ValueErrorType.ObjectAdditionalProperties || error.message === 'Unexpected property')
      return base + error.path
    if (error.type !== ValueErrorType.Union || error.value === null || typeof error.value !== 'object') continue
    for (const variant of (error.schema as { anyOf?: TSchema[] }).anyOf ?? []) {
      const known = structuredClone(error.value)
      dropUnknownFields(variant, known)
      if (!compiled(variant).Check(known)) continue
      const inner = unknownFieldOf(variant, error.value, base + error.path)
      if (inner !== undefined) return inner
    }
  }
  return undefined
}

/**
 * Drops the fields `schema` does not know from `value`, in place, through its objects and arrays. TypeBox's own
 * cleaning asks `key in properties`, so a field named after an `Object.prototype` member (`toString`, `constructor`,
 * `__proto__`) was kept, and then refused as unknown on a route that ignores unknown fields. Objects that take any
 * field (a record, `additionalProperties`) and unions are left whole.
 */
export function dropUnknownFields(schema: TSchema, value: unknown): void {
  if (value === null || typeof value !== 'object') return
  const { properties, items, additionalProperties } = schema as {
    properties?: Record<string, TSchema>
    items?: TSchema
    additionalProperties?: unknown
  }
  if (Array.isArray(value)) {
    if (items && typeof items === 'object' && !Array.isArray(items))
      for (const item of value) dropUnknownFields(items, item)
    return
  }
  if (!properties || (additionalProperties !== undefined && additionalProperties !== false)) return
  const fields = value as Record<string, unknown>
  for (const key of Object.keys(fields))
    if (Object.hasOwn(properties, key)) dropUnknownFields(properties[key]!, fields[key])
    else delete fields[key]
}

/** Whether a body is a JSON object (not an array, a string, a number, `true` or `null`). */
function isObject(body: unknown): body is Record<string, unknown> {
  return body !== null && typeof body === 'object' && !Array.isArray(body)
}

/** `application/json`, with parameters (`; charset=utf-8`) or as a `+json` type. */
const JSON_TYPE = /^\s*application\/([\w.-]+\+)?json\s*(;|$)/i

/**
 * How deep a body's arrays and objects may nest. Far beyond any real request, and far below the depth at which
 * validation, which walks the value recursively, runs out of stack (a 500 at about 50,000 levels).
 */
export const MAX_DEPTH = 64

/** The message of a body nested deeper than `MAX_DEPTH` (400 `BODY_TOO_DEEP` over HTTP, an error line on a socket). */
export const TOO_DEEP_MESSAGE = `Request body is nested deeper than ${MAX_DEPTH} levels`

/**
 * Whether a parsed value nests arrays and objects deeper than `limit` (a WebSocket message arrives parsed). Stops at
 * the limit, so its own recursion never goes deeper than `limit + 1`.
 */
export function valueNestedDeeperThan(value: unknown, limit: number): boolean {
  if (value === null || typeof value !== 'object') return false
  if (limit === 0) return true
  for (const child of Array.isArray(value) ? value : Object.values(value))
    if (valueNestedDeeperThan(child, limit - 1)) return true
  return false
}

/** Whether JSON `text` nests arrays and objects deeper than `limit`: a scan of the text, brackets in strings skipped. */
export function nestedDeeperThan(text: string, limit: number): boolean {
  if (text.length <= limit) return false
  let depth = 0
  let inString = false
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index)
    if (inString) {
      if (code === 0x5c)
        index++ // a backslash: the next character is escaped
      else if (code === 0x22) inString = false
    } else if (code === 0x22) inString = true
    else if (code === 0x5b || code === 0x7b) {
      if (++depth > limit) return true
    } else if (code === 0x5d || code === 0x7d) depth--
  }
  return false
}

const UTF8 = new TextDecoder('utf-8', { fatal: true })
const NOT_UTF8_MESSAGE = 'Malformed request body: expected JSON in UTF-8'

/** Requests whose body a `jsonBody` route read: their NUL check waits for authentication too (see `jsonBody`). */
const parsedHere = new WeakSet<Request>()

/** Whether a `jsonBody` route read this request's body, and checks it itself, after authentication. */
export function bodyCheckedAfterAuthentication(request: Request): boolean {
  return parsedHere.has(request)
}

/** The checks of a request's body that wait for authentication (see `jsonBody`), by request. */
const pendingChecks = new WeakMap<Request, () => void>()

/**
 * Runs the body checks `jsonBody` left for after authentication; authentication calls it once it has accepted the
 * caller. A request without such checks passes.
 */
export function checkBodyAfterAuthentication(request: Request): void {
  const check = pendingChecks.get(request)
  if (!check) return
  pendingChecks.delete(request)
  check()
}

/**
 * Route options for a JSON object body read strictly: `...jsonBody(Schema)` beside the route's other options.
 *
 * - The body is JSON whatever its `Content-Type` says (`curl -d '{...}'` sends a form type), and a form or multipart
 *   body, which is not JSON, is 400 `MALFORMED_JSON` instead of being read as fields.
 * - It must be an object: `[]`, `5` or `null` is 400 even where every field is optional.
 * - A field the schema does not know is 400 `UNKNOWN_FIELD` (the framework would drop it silently, so a misspelt or
 *   read-only field looked like it was saved).
 * - A body that is not UTF-8 is 400 `MALFORMED_JSON`.
 * - A NUL character in any string is 400 `NUL_CHARACTER` (as in paths and queries, which the core plugin checks), and
 *   an unpaired surrogate (`"\ud800"`) 400 `UNPAIRED_SURROGATE` but in the route's `freeText` fields: stored as
 *   UTF-8 it would read back as U+FFFD, the same as every other one.
 * - Arrays and objects nest at most 64 deep (400 `BODY_TOO_DEEP`): validation walks a body recursively, and a body
 *   of 50,000 brackets ran it out of stack, a 500.
 * - With `contentTypeRequired` (an operation whose specification requires the header), a body not sent as
 *   `application/json` is 400 `UNSUPPORTED_CONTENT_TYPE`.
 *
 * These are told after authentication, so a caller without valid credentials gets 401/403 whatever it sent: the
 * authentication macros run them once they accept the caller, before the schema is validated. On a route without
 * credentials (`public`) they run in the route's own `transform`. `beforeHandle` runs any still waiting, so a route
 * that is neither never skips them. With `optional`, an empty body is no body.
 */
export function jsonBody<S extends TSchema>(schema: S, options?: JsonBodyOptions): StrictBodyOptions<S>
export function jsonBody<S extends TSchema>(
  schema: S,
  options: JsonBodyOptions & { optional: true },
): StrictBodyOptions<TOptional<S>>
export function jsonBody<S extends TSchema>(schema: S, options: JsonBodyOptions & { optional?: boolean } = {}) {
  const refuseUnknown = options.unknownFields !== 'drop'
  const typeRequired = options.contentTypeRequired === true
  const checkLater = (request: Request, check: () => void): void => {
    pendingChecks.set(request, check)
  }
  // A body refused for `error`, told after authentication (a wrong type first, where the type matters); meanwhile an
  // empty object stands in for it.
  const refuseLater = (request: Request, error: Error, checkType: () => void) => {
    checkLater(request, () => {
      checkType()
      throw error
    })
    return {}
  }
  return {
    parse: async ({ request }: { request: Request }): Promise<unknown> => {
      const bytes = await request.arrayBuffer()
      parsedHere.add(request)
      const contentType = request.headers.get('content-type') ?? ''
      const checkType = () => {
        if (typeRequired && !JSON_TYPE.test(contentType))
          throw new BadRequestError('Content-Type must be application/json', 'UNSUPPORTED_CONTENT_TYPE')
      }
      // Decoded strictly: `request.text()` puts U+FFFD in place of bytes that are not UTF-8, so two different byte
      // strings became one `externalId` (one user, one row-level security) or one group name.
      let text: string
      try {
        text = UTF8.decode(bytes)
      } catch {
        return refuseLater(request, new BadRequestError(NOT_UTF8_MESSAGE, 'MALFORMED_JSON'), checkType)
      }
      if (options.optional && text.trim() === '') return undefined
      let body: unknown
      try {
        body = JSON.parse(text)
      } catch {
        return refuseLater(request, new BadRequestError(MALFORMED_JSON_MESSAGE, 'MALFORMED_JSON'), checkType)
      }
      if (nestedDeeperThan(text, MAX_DEPTH))
        return refuseLater(request, new BadRequestError(TOO_DEEP_MESSAGE, 'BODY_TOO_DEEP'), checkType)
      const problem = textProblem(body, { freeText: options.freeText })
      if (problem?.kind === 'nul')
        return refuseLater(request, new BadRequestError(NUL_TEXT_MESSAGE, 'NUL_CHARACTER'), checkType)
      if (problem)
        return refuseLater(
          request,
          new BadRequestError(unpairedSurrogateMessage(problem.path), 'UNPAIRED_SURROGATE'),
          checkType,
        )
      if (!isObject(body))
        return refuseLater(
          request,
          new BadRequestError('Invalid request body: expected object', 'VALIDATION_FAILED'),
          checkType,
        )
      if (!refuseUnknown) dropUnknownFields(schema, body)
      if (typeRequired || refuseUnknown) {
        // Parsed twice rather than cloned: validation cleans the first copy, and a second parse of a small body is
        // cheaper than structuredClone.
        const sent: unknown = refuseUnknown ? JSON.parse(text) : undefined
        checkLater(request, () => {
          checkType()
          if (refuseUnknown) rejectUnknownFields(schema, sent, options.removedFields)
        })
      }
      return body
    },
    ...(options.public
      ? { transform: ({ request }: { request: Request }) => checkBodyAfterAuthentication(request) }
      : {}),
    beforeHandle: ({ request }: { request: Request }): void => checkBodyAfterAuthentication(request),
    body: options.optional ? t.Optional(schema) : schema,
  }
}

/**
 * Route options for a route that takes no body (the deletes): whatever is sent is not read. Without them the
 * framework parsed it anyway, before authentication, so a malformed body without credentials was 400, not 401.
 */
export const noBody = { parse: 'none' as const }

interface JsonBodyOptions {
  /** The specification requires `Content-Type: application/json` on this operation. */
  contentTypeRequired?: boolean
  /** `drop`: unknown fields are left to the schema, which drops them (no second parse on a hot path). */
  unknownFields?: 'refuse' | 'drop'
  /** Fields releases removed from this operation's body, each with the release: 400 `FIELD_REMOVED` saying so. */
  removedFields?: Record<string, string>
  /** The route takes no credentials: the checks run at once, in its `transform`. */
  public?: boolean
  /** Top-level fields of free text the route makes well-formed itself (see `textProblem`). */
  freeText?: readonly string[]
}

interface StrictBodyOptions<S extends TSchema> {
  parse(context: { request: Request }): Promise<unknown>
  transform?(context: { request: Request }): void
  beforeHandle(context: { request: Request }): void
  body: S
}
