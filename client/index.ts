/**
 * The TypeScript client of the analytics chat and embed service, release v0.2.1. Only `fetch` is used, so it runs
 * in browsers, Bun and Node 18+ (from another origin too, when the server lists it in CORS_ORIGINS). Its types are
 * generated from the server's own schemas into `wire-types.ts`, so the folder stands on its own.
 */
import { deprecatedAliases } from './deprecated-names'
import { coreClient } from './platform-client'
import { createTransport, type PlatformClientOptions } from './transport'

export { type CorePlatformClient, type DeploymentClient } from './platform-client'
export { PlatformApiError, type FetchLike, type PlatformClientOptions } from './transport'
export {
  ChatConnectionError,
  ChatRun,
  finalAnswerOf,
  mergeLine,
  newMessageId,
  readNdjson,
  type ChatEvent,
  type ChatMessage,
  type ChatResult,
  type ChatStreamRequest,
  type ChatTarget,
} from './chat-stream'
// Every wire type (requests, responses, stream lines, management resources), generated from the server's schemas.
export type * from './wire-types'

/**
 * The typed client of the service (v0.2.1). Types come from the server's own schemas. Works wherever `fetch`
 * does: browsers, Bun, Node 18+.
 *
 * ```ts
 * const client = createPlatformClient({ baseUrl: 'http://localhost:4000', apiKey })
 * for await (const report of client.deployment(1).reports.listAll({ first: 50 })) console.log(report.name)
 * ```
 */
export function createPlatformClient(options: PlatformClientOptions) {
  const client = coreClient(createTransport(options))
  return { ...client, ...deprecatedAliases(client) }
}

export type PlatformClient = ReturnType<typeof createPlatformClient>

/** @deprecated Since v0.0.20: use `createPlatformClient`. */
export function createClient(options: PlatformClientOptions): PlatformClient {
  return createPlatformClient(options)
}
