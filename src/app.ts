import { Elysia } from 'elysia'
import { securitySchemes } from '../plugins/auth/model'
import { chatPlugin } from '../plugins/chat'
import { corePlugin } from '../plugins/core'
import type { ListedRoute } from '../plugins/core/route-methods'
import { embedPlugin } from '../plugins/embed'
import { managementPlugin } from '../plugins/management'
import { corsPlugin } from '../plugins/operations/cors'
import { operationsPlugin } from '../plugins/operations'
import { semanticPlugin } from '../plugins/semantic'
import { webPlugin } from '../plugins/web'
import { ASSET_PREFIX, FAVICON } from '../plugins/web/pages'
import type { AppDeps } from './deps'
import { createApiDocs } from './openapi'
import { version } from '../package.json'

/** The chat API description carries version 1.0.0; the embed and management API is versioned by release. */
const CHAT_API_VERSION = '1.0.0'

/** Composes every feature area into one app. It never listens: `main.ts` does, and tests call `app.handle()`. */
export function createApp(deps: AppDeps) {
  const docs = createApiDocs({
    info: {
      title: 'Analytics chat streaming and embed session service',
      version: CHAT_API_VERSION,
      description: `Chat API ${CHAT_API_VERSION}; embed and management API as of release v${version}. Every error outside a chat stream has the body \`{ error, code }\`.`,
    },
    securitySchemes,
    instanceId: deps.instanceId,
    // The web pages' icon, so the reference page does not make the browser ask for /favicon.ico and log a 404.
    iconUrl: `${ASSET_PREFIX}/${FAVICON.name}`,
  })
  // Bodies are validated as sent, then stripped of unknown fields by TypeBox. Elysia's default normaliser ("exact
  // mirror") rebuilt a value into its schema's shape before validation: a string where an object belongs passed as
  // that string's characters (`securityContext: "str"` was stored as `{"0":"s","1":"t","2":"r"}`), a number as `{}`.
  // A WebSocket message is a chat request body: over MAX_BODY_BYTES, the socket closes with 1009 (Message Too Big),
  // as an HTTP body that large is 413. Bun's own default (16 MiB) let a 12 MB message start a turn.
  const app = new Elysia({ normalize: 'typebox', websocket: { maxPayloadLength: deps.config.maxBodyBytes } })
    // First, so even a refused request (413, 429, 404) carries the CORS headers a browser needs to read it.
    .use(corsPlugin(deps))
    .use(corePlugin({ ...deps, routes: (): readonly ListedRoute[] => app.routes }))
    .use(operationsPlugin(deps))
    .use(docs.plugin)
    .use(chatPlugin(deps))
    .use(embedPlugin(deps))
    .use(managementPlugin(deps))
    .use(semanticPlugin(deps))
    .use(webPlugin(deps))
  docs.attach(app)
  return app
}

export type App = ReturnType<typeof createApp>
