import type { TSchema } from '@sinclair/typebox'
import { SCHEMA_NAME } from './named-schemas'
import { OPERATIONS, type OperationNotes } from './operations'

type Json = Record<string, any>

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']

/** The error responses every operation may name, each with the `{ error, code }` body. */
const ERROR_RESPONSES: Record<number, { name: string; description: string; example: { error: string; code: string } }> =
  {
    400: {
      name: 'BadRequest',
      description: 'The request breaks the schema or a rule; `error` names the field.',
      example: { error: 'deploymentId: expected integer', code: 'VALIDATION_FAILED' },
    },
    401: {
      name: 'Unauthorized',
      description: 'Missing or invalid credentials.',
      example: { error: 'Invalid or revoked API key', code: 'INVALID_API_KEY' },
    },
    403: {
      name: 'Forbidden',
      description: 'Valid credentials without the right: key scope, admin only, plan, tenant flag.',
      example: { error: 'Deployment 2 is outside the key scope', code: 'DEPLOYMENT_OUT_OF_SCOPE' },
    },
    404: {
      name: 'NotFound',
      description: 'Unknown resource (or one of another account, which is the same to the caller).',
      example: { error: 'Report 7 not found', code: 'NOT_FOUND' },
    },
    409: {
      name: 'Conflict',
      description: 'The resource is in a state that forbids the change.',
      example: { error: 'Folder 3 still holds reports', code: 'CONFLICT' },
    },
    413: {
      name: 'PayloadTooLarge',
      description: 'The body is larger than the server accepts.',
      example: { error: 'Request body is larger than 10485760 bytes', code: 'PAYLOAD_TOO_LARGE' },
    },
    429: {
      name: 'TooManyRequests',
      description: 'Over a rate or admission limit; `Retry-After` says when to try again.',
      example: { error: 'Too many requests for this API key; retry in 1 s', code: 'RATE_LIMITED' },
    },
    503: {
      name: 'ServiceUnavailable',
      description:
        'A dependency does not answer (the run registry, the state database, the deployment’s data source); `Retry-After` says when to try again.',
      example: {
        error: 'The run registry (Redis) does not answer; please retry shortly',
        code: 'RUN_REGISTRY_UNAVAILABLE',
      },
    },
    504: {
      name: 'GatewayTimeout',
      description:
        'The query ran past the data source’s statement limit and was stopped, or the database did not answer within it (the message says which).',
      example: {
        error: 'Query stopped after the 30000 ms time limit: narrow it down (filters, fewer dimensions, a LIMIT)',
        code: 'QUERY_TIMEOUT',
      },
    },
  }

const WEBSOCKET_PROSE = `### WebSocket: \`GET /api/v1/public/{accountName}/agents/{agentId}/chat/ws\`

The chat stream over one WebSocket with many turns. Authenticate as for \`streamChatState\` (browsers, which cannot
set headers on a WebSocket, pass an embed token as \`?embedToken=\`). Each client message is a chat request body;
each server message is exactly one stream line, the same JSON as a line of \`streamChatState\`. A turn ends with its
\`__state__\` or error line and the socket stays open for the next request; \`{ "type": "abort" }\` stops the current
run. An invalid message gets an error line, not a closed socket. Credentials are checked again at every turn.

### The NDJSON stream of \`streamChatState\`

\`\`\`
{"id":"__cutoff__","sort":0,"state":{"chatId":"c_9f2d","isStreaming":false}}
{"id":"1752998400000-message","role":"user","content":"How many orders per region?","isDelta":false,"isInProcess":false,"sort":1}
{"id":"m_2","role":"assistant","sort":2,"graphPath":["final"],"content":"","isDelta":false,"isInProcess":true}
{"id":"m_2","role":"assistant","sort":2,"graphPath":["final"],"content":"Europe","isDelta":true,"isInProcess":true}
{"id":"m_2","role":"assistant","sort":2,"graphPath":["final"],"content":"","isDelta":true,"isInProcess":false}
{"id":"__state__","sort":3,"state":{"messages":[...]}}
\`\`\`
Errors after the stream started are lines \`{"error":"..."}\`, the last of the stream.`

const TAG_DESCRIPTIONS: Record<string, string> = {
  Operations: 'Liveness, readiness and Prometheus metrics, for the operator; no credentials.',
  Embed: 'Signed embedding: mint a session for a user, exchange it for an embed token, revoke it.',
  'Embed tenants': 'Groups bootstrapped into embed tenants (creator mode). Admin API key.',
  'Embed pages': 'The embedded dashboard and chat pages, opened with a session id.',
  'Semantic layer':
    'The semantic model and SQL over it, as the agent tools `serviceMeta` and `serviceSqlApi` use them.',
}

/** `get /api/v1/app-config` → `getAppConfig`: for a route the table does not name yet (it still gets a short id). */
function fallbackId(method: string, path: string): string {
  const words = path
    .split('/')
    .filter((segment) => segment && !segment.startsWith('{') && !['api', 'v1', 'public'].includes(segment))
    .flatMap((segment) => segment.split(/[-_.]/))
  const name = words
    .slice(-3)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1).toLowerCase())
    .join('')
  return `${method}${name || 'Root'}`
}

/**
 * Turns the document the route schemas generate into the published contract: short operation ids, the error
 * responses each operation can give (with the `{ error, code }` body), `security` on every operation (empty where
 * none is needed), bodies the generator cannot see, examples, `servers`, and the WebSocket route in prose (OpenAPI
 * has no method for it).
 */
export function finishDocument(
  generated: Json,
  info: Json,
  securitySchemes: Json,
  routeBodies: ReadonlyMap<string, RouteBody> = new Map(),
): Json {
  const paths: Json = {}
  for (const [path, item] of Object.entries<Json>(generated.paths ?? {})) {
    const kept: Json = {}
    for (const [method, operation] of Object.entries<Json>(item)) {
      if (!METHODS.includes(method)) continue
      const key = `${method.toUpperCase()} ${path}`
      kept[method] = finishOperation(method, path, operation, OPERATIONS[key], routeBodies.get(key))
    }
    if (Object.keys(kept).length > 0) paths[path] = kept
  }
  const named: Json = {}
  for (const item of Object.values<Json>(paths))
    for (const operation of Object.values<Json>(item)) {
      const bodies = [operation.requestBody, ...Object.values<Json>(operation.responses ?? {})]
      for (const body of bodies)
        for (const media of Object.values<Json>(body?.content ?? {}))
          if (media.schema) media.schema = liftNamed(media.schema, named)
    }
  // The chat ignores fields it does not know (its request body grows with each release; a newer client must still
  // chat), so its request shape is documented open, where every other body is strict.
  for (const name of ['ChatRequest', 'ImageAttachment']) if (named[name]) named[name] = openShape(named[name]) as Json
  const tags = [
    ...new Set(
      Object.values(paths).flatMap((item: Json) =>
        Object.values<Json>(item).flatMap((operation) => operation.tags ?? []),
      ),
    ),
  ]
  return {
    openapi: '3.1.0',
    info,
    servers: [{ url: '/', description: 'This server' }],
    tags: tags.map((name) => ({
      name,
      description: name === 'Chat' ? WEBSOCKET_PROSE : (TAG_DESCRIPTIONS[name] ?? name),
    })),
    paths,
    components: {
      schemas: {
        ...generated.components?.schemas,
        ...Object.fromEntries(Object.entries(named).sort(([a], [b]) => a.localeCompare(b))),
        Error: {
          type: 'object',
          required: ['error', 'code'],
          properties: {
            error: { type: 'string', description: 'What went wrong, for a person' },
            code: { type: 'string', description: 'A stable UPPER_SNAKE code, for a program' },
          },
        },
      },
      responses: Object.fromEntries(
        Object.values(ERROR_RESPONSES).map(({ name, description, example }) => [
          name,
          {
            description,
            ...((name === 'TooManyRequests' || name === 'ServiceUnavailable') && {
              headers: { 'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer' } } },
            }),
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' }, example } },
          },
        ]),
      ),
      securitySchemes,
    },
  }
}

/**
 * A schema with every part that is a named type (marked by `nameSchemas`) put in `named` once and referred to: the
 * document's components then carry the names the specification uses (`FoldersListResponse`, `ChatRequest`, ...).
 */
function liftNamed(schema: unknown, named: Json): any {
  if (Array.isArray(schema)) return schema.map((item) => liftNamed(item, named))
  if (schema === null || typeof schema !== 'object') return schema
  const lifted: Json = {}
  for (const [key, value] of Object.entries(schema)) lifted[key] = liftNamed(value, named)
  const name = lifted[SCHEMA_NAME]
  if (typeof name !== 'string') return lifted
  delete lifted[SCHEMA_NAME]
  named[name] ??= lifted
  return { $ref: `#/components/schemas/${name}` }
}

/** A route's body schema, and whether the route needs one. */
export interface RouteBody {
  schema: TSchema
  required: boolean
}

function finishOperation(
  method: string,
  path: string,
  generated: Json,
  notes: OperationNotes | undefined,
  routeBody: RouteBody | undefined,
): Json {
  const operation: Json = { ...generated, operationId: notes?.id ?? fallbackId(method, path) }
  operation.security ??= []

  // A route that parses its own body has none in the generated document: it comes from the notes or the route.
  const ownBody = notes?.body ?? (operation.requestBody?.content?.['application/json']?.schema ? undefined : routeBody)
  if (ownBody) {
    operation.requestBody = {
      required: ownBody.required,
      content: { 'application/json': { schema: ownBody.schema } },
    }
  } else if (operation.requestBody) {
    // The API reads JSON only; the generator also lists the form encodings Elysia could parse.
    const json = operation.requestBody.content?.['application/json'] ?? { schema: { type: 'object' } }
    operation.requestBody = { ...operation.requestBody, content: { 'application/json': json } }
  }
  if (notes?.examples?.request !== undefined && operation.requestBody)
    operation.requestBody.content['application/json'] = {
      ...operation.requestBody.content['application/json'],
      example: notes.examples.request,
    }

  const responses: Json = {}
  for (const [status, response] of Object.entries<Json>(operation.responses ?? {})) {
    const fixed: Json = {
      ...response,
      description: response.description?.startsWith('Response for status')
        ? describeStatus(Number(status))
        : response.description,
    }
    // A body-less status comes out as `content: { type: 'void' }`, which is not a media-type map.
    const content = Object.fromEntries(Object.entries<Json>(fixed.content ?? {}).filter(([type]) => type.includes('/')))
    if (Object.keys(content).length > 0) fixed.content = content
    else delete fixed.content
    responses[status] = fixed
  }
  if (notes?.noContent) {
    // Elysia documents a route without a response schema as 200.
    delete responses['200']
    responses['204'] = { description: describeStatus(204) }
  }
  if (Object.keys(responses).length === 0)
    responses[method === 'delete' ? '204' : '200'] = { description: describeStatus(method === 'delete' ? 204 : 200) }
  for (const type of notes?.alsoSucceedsWith ?? []) {
    const success = Object.keys(responses).find((status) => status.startsWith('2'))
    if (success) responses[success].content = { ...responses[success].content, [type]: {} }
  }
  for (const [status, example] of Object.entries(notes?.examples?.responses ?? {})) {
    const response = responses[status]
    if (!response?.content) continue
    const type = example.mediaType ?? Object.keys(response.content)[0]
    response.content[type] = { ...response.content[type], example: example.value }
  }

  for (const status of errorStatuses(path, operation, notes)) {
    if (responses[status]) continue
    responses[status] = { $ref: `#/components/responses/${ERROR_RESPONSES[status].name}` }
  }
  operation.responses = responses
  return operation
}

/** The errors an operation can give: what its shape implies (a body can be malformed, a key can be wrong) and its notes. */
function errorStatuses(path: string, operation: Json, notes: OperationNotes | undefined): number[] {
  const secured = (operation.security as unknown[]).length > 0
  const hasBody = operation.requestBody !== undefined
  const hasParameters = (operation.parameters ?? []).some((parameter: Json) => parameter.in !== 'header')
  const statuses = new Set<number>()
  // The pages answer 200 whatever their session (their script exchanges it, and says in the page when it is unknown,
  // expired or revoked); a path value that breaks its pattern is 400, and the notes add an unknown asset's 404.
  if ((operation.tags ?? []).includes('Embed pages'))
    return [...new Set([...(path.includes('{') ? [400] : []), ...(notes?.errors ?? [])])].sort()
  if (hasBody || hasParameters) statuses.add(400)
  // Checking a credential reads the service's database (an API key at its first use, every embed token), which
  // answers 503 STORAGE_UNAVAILABLE while a Postgres state database is out of reach.
  if (secured) [401, 403, 429, 503].forEach((status) => statuses.add(status))
  if (path.includes('{')) statuses.add(404)
  if (hasBody) statuses.add(413)
  for (const status of notes?.errors ?? []) statuses.add(status)
  return [...statuses].sort()
}

function describeStatus(status: number): string {
  return (
    ({ 200: 'OK', 201: 'Created', 204: 'Done; no body', 503: 'Not ready' } as Record<number, string>)[status] ??
    `Status ${status}`
  )
}

/** A copy of `schema` without `additionalProperties: false` anywhere in it. */
function openShape(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(openShape)
  if (schema === null || typeof schema !== 'object') return schema
  const copy: Json = {}
  for (const [key, value] of Object.entries(schema))
    if (!(key === 'additionalProperties' && value === false)) copy[key] = openShape(value)
  return copy
}
