import fc from 'fast-check'
import { bodyArbitrary, hostileString, type JsonSchema } from './hostile-values'

/** One operation of the OpenAPI document, as the fuzzer drives it. */
export interface Operation {
  method: string
  path: string
  pathParams: string[]
  queryParams: string[]
  /** The JSON request body schema, when the operation takes one. */
  body: JsonSchema | undefined
}

const METHODS = new Set(['get', 'post', 'put', 'patch', 'delete'])

/**
 * Every operation of an OpenAPI document. The WebSocket route is kept as a plain GET (no upgrade), which must be
 * refused cleanly too; the socket itself is exercised by the chat tests.
 */
export function operationsOf(
  document: { paths: Record<string, Record<string, any>>; components?: { schemas?: Record<string, JsonSchema> } },
  /** Body schemas for operations whose document lists none (bodies the handler parses itself), by path ending. */
  fallbacks: Record<string, JsonSchema> = {},
): Operation[] {
  const schemas = document.components?.schemas ?? {}
  const resolve = (schema: JsonSchema | undefined): JsonSchema | undefined =>
    schema?.$ref ? resolve(schemas[schema.$ref.replace('#/components/schemas/', '')]) : schema
  const operations: Operation[] = []
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const verb = METHODS.has(method) ? method : method === 'ws' || method === 'subscribe' ? 'get' : undefined
      if (!verb) continue
      const parameters = (operation.parameters ?? []) as Array<{ in: string; name: string }>
      operations.push({
        method: verb.toUpperCase(),
        path,
        pathParams: [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]),
        queryParams: parameters.filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name),
        body:
          resolve(operation.requestBody?.content?.['application/json']?.schema) ??
          Object.entries(fallbacks).find(([ending]) => path.endsWith(ending))?.[1],
      })
    }
  }
  return operations
}

/** Credentials the fuzzer sends: the valid ones it was given, and every malformed form a client might send. */
export interface Credentials {
  admin: string
  member: string
  scoped: string
  embedToken: string
  serviceToken: string
}

export function headersArbitrary(credentials: Credentials): fc.Arbitrary<Record<string, string>> {
  const ascii = fc.string({
    unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)),
    maxLength: 60,
  })
  const auth: fc.Arbitrary<Record<string, string>> = fc.oneof(
    fc.constant({}),
    { weight: 4, arbitrary: fc.constant({ authorization: `Api-Key ${credentials.admin}` }) },
    fc.constant({ authorization: `Api-Key ${credentials.member}` }),
    fc.constant({ authorization: `Api-Key ${credentials.scoped}` }),
    fc.constant({ authorization: `Embed-Token ${credentials.embedToken}` }),
    fc.constant({ 'x-service-auth-token': credentials.serviceToken }),
    fc.constantFrom<Record<string, string>>(
      { authorization: 'Api-Key' },
      { authorization: 'Api-Key ' },
      { authorization: `api-key ${credentials.admin}` },
      { authorization: `Bearer ${credentials.admin}` },
      { authorization: `Api-Key  ${credentials.admin}` },
      { authorization: `Api-Key ${credentials.admin}x` },
      { authorization: `Embed-Token ${credentials.admin}` },
      { authorization: `Api-Key ${credentials.embedToken}` },
      { authorization: 'Embed-Token a.b.c' },
      { authorization: 'Embed-Token eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.' },
      { authorization: 'Basic Zm9vOmJhcg==' },
      { authorization: `Api-Key ${'k'.repeat(8000)}` },
      { 'x-service-auth-token': 'eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJleHRlcm5hbElkIjoieCJ9.' },
      { 'x-service-auth-token': '' },
      { 'x-service-auth-token': `${credentials.serviceToken}x`, authorization: `Api-Key ${credentials.admin}` },
      { authorization: `Api-Key ${credentials.admin}`, 'embed-token': credentials.embedToken },
    ),
    ascii.map((value) => ({ authorization: value })),
    ascii.map((value) => ({ authorization: `Api-Key ${value}` })),
    ascii.map((value) => ({ authorization: `Embed-Token ${value}` })),
    ascii.map((value) => ({ 'x-service-auth-token': value })),
  )
  const contentType = fc.oneof(
    { weight: 6, arbitrary: fc.constant('application/json') },
    { weight: 1, arbitrary: fc.constant(undefined) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        'application/json',
        'application/json; charset=utf-8',
        'application/json; charset=utf-16',
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data',
        'multipart/form-data; boundary=zz',
        'application/xml',
        'application/octet-stream',
        'application/json, text/html',
        '*/*',
        'garbage',
        '',
      ),
    },
  )
  const extra = fc.option(
    fc.constantFrom<Record<string, string>>(
      { accept: 'text/html' },
      { accept: '*/*;q=abc' },
      { origin: 'https://evil.example' },
      { 'content-encoding': 'gzip' },
      { 'x-forwarded-for': '1.2.3.4, ::1, garbage' },
      { cookie: '__proto__=1; constructor=2' },
      { range: 'bytes=0-1' },
    ),
    { nil: undefined },
  )
  return fc.tuple(auth, contentType, extra).map(([credentials, type, more]) => ({
    ...credentials,
    ...(type === undefined ? {} : { 'content-type': type }),
    ...more,
  }))
}
/** Path parameter values: the ones that exist in the test bootstrap, and hostile ones. */
export function pathValue(name: string, valid: Record<string, string[]>): fc.Arbitrary<string> {
  const known = valid[name] ?? ['1']
  return fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...known) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '0',
        '-1',
        '1.5',
        '1e3',
        '99999999999999999999999',
        'abc',
        '%00',
        '%',
        '%E0%A4%A',
        '..%2F..%2Fetc%2Fpasswd',
        '__proto__',
        'constructor',
        "1'%20OR%20'1'%3D'1",
        encodeURIComponent('💥\u202e'),
        'a'.repeat(3000),
      ),
    },
    {
      weight: 1,
      arbitrary: hostileString.map((value) => encodeURIComponent(value.slice(0, 200).toWellFormed()) || 'x'),
    },
  )
}

/** A query string for an operation: declared parameters with plausible or hostile values, plus stray ones. */
export function queryArbitrary(operation: Operation): fc.Arbitrary<string> {
  const names = [...operation.queryParams, '__proto__', 'constructor[prototype][x]', 'first', 'after']
  const value = fc.oneof(
    fc.constantFrom('1', '100', '101', '-1', 'true', 'abc', ''),
    hostileString.map((text) => text.slice(0, 300)),
  )
  return fc
    .array(fc.tuple(fc.constantFrom(...names), value), { maxLength: 4 })
    .map((pairs) =>
      pairs.length === 0
        ? ''
        : `?${pairs.map(([name, text]) => `${encodeURIComponent(name)}=${encodeURIComponent(text.toWellFormed())}`).join('&')}`,
    )
}

export interface HostileRequest {
  method: string
  url: string
  headers: Record<string, string>
  body: string | undefined
}

/**
 * Requests over every operation; `valid` names path parameter values that exist. `hostile` (the default) varies
 * everything; `plausible` keeps existing path values, valid credentials and JSON, so that most requests reach
 * the handler behind authentication and validation with one odd field.
 */
export function requestArbitrary(
  operations: Operation[],
  credentials: Credentials,
  valid: Record<string, string[]>,
  mode: 'hostile' | 'plausible' = 'hostile',
): fc.Arbitrary<HostileRequest> {
  const plausibleHeaders = fc
    .constantFrom(
      `Api-Key ${credentials.admin}`,
      `Api-Key ${credentials.member}`,
      `Embed-Token ${credentials.embedToken}`,
    )
    .map((authorization): Record<string, string> => ({ authorization, 'content-type': 'application/json' }))
  return fc.constantFrom(...operations).chain((operation) =>
    fc
      .record({
        params: fc.tuple(
          ...operation.pathParams.map((name) =>
            mode === 'plausible' ? fc.constantFrom(...(valid[name] ?? ['1'])) : pathValue(name, valid),
          ),
        ),
        query: mode === 'plausible' ? fc.constant('') : queryArbitrary(operation),
        headers: mode === 'plausible' ? plausibleHeaders : headersArbitrary(credentials),
        body:
          operation.method === 'GET' || operation.method === 'DELETE'
            ? fc.option(bodyArbitrary(operation), { freq: 8, nil: undefined })
            : bodyArbitrary(operation),
        method:
          mode === 'plausible'
            ? fc.constant(operation.method)
            : fc.oneof(
                { weight: 12, arbitrary: fc.constant(operation.method) },
                { weight: 1, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD') },
              ),
      })
      .map(({ params, query, headers, body, method }) => {
        let index = 0
        const path = operation.path.replace(/\{\w+\}/g, () => params[index++])
        // GET and HEAD requests cannot carry a body in fetch.
        const withBody = method === 'GET' || method === 'HEAD' ? undefined : body
        return { method, url: `${path}${query}`, headers, body: withBody }
      }),
  )
}

/** Headers whose values are credentials: a failure report shows their form (scheme, length), never the secret. */
const SECRET_HEADERS = new Set(['authorization', 'x-service-auth-token', 'embed-token', 'cookie'])

/** The request as a failure report shows it: method, URL, headers without secrets, and the start of the body. */
export function describeRequest(request: HostileRequest): string {
  const headers = Object.fromEntries(
    Object.entries(request.headers).map(([name, value]) => {
      if (!SECRET_HEADERS.has(name.toLowerCase())) return [name, value.slice(0, 200)]
      // The scheme stays readable: a malformed scheme is often what the failing request was about.
      const scheme = /^(\S{1,20})(\s+)(.*)$/s.exec(value)
      return [name, scheme ? `${scheme[1]}${scheme[2]}<${scheme[3].length} chars>` : `<${value.length} chars>`]
    }),
  )
  return `${request.method} ${request.url.slice(0, 300)} headers=${JSON.stringify(headers)} body=${JSON.stringify(request.body?.slice(0, 300))}`
}

/**
 * What every answer must be: no 5xx, and every JSON error body `{ error, code }` with string values (API routes
 * answer errors in JSON only). Returns a description of the problem, or undefined.
 */
export async function problemWith(request: HostileRequest, response: Response): Promise<string | undefined> {
  const text = await response.text()
  const type = response.headers.get('content-type') ?? ''
  const describe = (problem: string) =>
    `${problem}: ${describeRequest(request)} → ${response.status} ${type} ${text.slice(0, 300)}`
  if (response.status >= 500) return describe('server error')
  if (response.status < 400) return undefined
  const isApi = new URL(request.url, 'http://localhost').pathname.startsWith('/api/')
  if (!type.includes('json'))
    return isApi && request.method !== 'HEAD' ? describe('API error without a JSON body') : undefined
  if (request.method === 'HEAD') return undefined
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    return describe('error body is not JSON')
  }
  const { error, code } = (body ?? {}) as { error?: unknown; code?: unknown }
  if (typeof error !== 'string' || typeof code !== 'string' || error === '' || code === '')
    return describe('error body is not { error, code }')
  return undefined
}
