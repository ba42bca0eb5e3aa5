import { toOpenAPISchema } from '@elysiajs/openapi'
import { OptionalKind, type TSchema } from '@sinclair/typebox'
import { Elysia, type AnyElysia } from 'elysia'
// The API reference UI, one self-contained script (its styles included), embedded in the binary by `bun build`
// as a file: the page works without internet and never loads a third-party script.
import scalarScriptPath from '../../node_modules/@scalar/api-reference/dist/browser/standalone.js' with { type: 'file' }
import { version as scalarVersion } from '../../node_modules/@scalar/api-reference/package.json'
import { finishDocument, type RouteBody } from './finish-document'
import { nameSchemas } from './named-schemas'
import { referencePage } from './reference-page'

const SCRIPT_PATH = `/openapi/assets/api-reference-${scalarVersion}.js`
/**
 * The reference's own addresses, left out of the document it serves. Not hidden: a hidden route is one the app does
 * not offer (a removed operation), so another method asked of these would be 404 instead of 405 with `Allow`.
 */
const OWN_PATHS = ['/openapi', '/openapi/json', SCRIPT_PATH]

export interface ApiDocsOptions {
  info: { title: string; version: string; description: string }
  securitySchemes: Record<string, unknown>
  instanceId: string
  /** The page's icon. */
  iconUrl?: string
}

/**
 * The OpenAPI document at `/openapi/json` and its reference page at `/openapi`. The document is built from the
 * whole app's routes once, on first request, by `attach`ing the app after composing it.
 */
export function createApiDocs(options: ApiDocsOptions) {
  let app: AnyElysia | undefined
  let document: Record<string, unknown> | undefined
  const build = () => {
    if (!app) throw new Error('createApiDocs: attach(app) was not called')
    if (!document) nameSchemas()
    document ??= finishDocument(
      toOpenAPISchema(app, { paths: OWN_PATHS }, undefined, undefined, '3.1.0'),
      options.info,
      options.securitySchemes,
      routeBodies(app),
    )
    return document
  }
  const page = referencePage({
    title: options.info.title,
    specUrl: '/openapi/json',
    scriptUrl: SCRIPT_PATH,
    iconUrl: options.iconUrl,
  })
  const plugin = new Elysia({ name: 'api-docs', seed: options.instanceId })
    .get('/openapi', () => new Response(page, { headers: { 'content-type': 'text/html; charset=utf-8' } }))
    .get('/openapi/json', () => build())
    .get(
      SCRIPT_PATH,
      () =>
        new Response(Bun.file(scalarScriptPath), {
          headers: {
            'content-type': 'text/javascript; charset=utf-8',
            // The file name carries the package version: a new one is a new URL.
            'cache-control': 'public, max-age=31536000, immutable',
          },
        }),
    )
  return {
    plugin,
    attach(composed: AnyElysia) {
      app = composed
    },
  }
}

/**
 * The body schema of every route, keyed `METHOD /path/{param}`: the generator leaves out the body of a route that
 * parses its own (`jsonBody`), so the document takes it from the route, the same schema that validates requests.
 */
function routeBodies(app: AnyElysia): Map<string, RouteBody> {
  const bodies = new Map<string, RouteBody>()
  for (const route of app.routes) {
    const schema = (route.hooks as { body?: unknown } | undefined)?.body
    if (!schema || typeof schema !== 'object') continue
    const path = route.path.replace(/:(\w+)/g, '{$1}')
    const required = (schema as TSchema)[OptionalKind] !== 'Optional'
    bodies.set(`${route.method.toUpperCase()} ${path}`, { schema: schema as TSchema, required })
  }
  return bodies
}
