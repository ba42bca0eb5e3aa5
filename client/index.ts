/**
 * The TypeScript client of the analytics chat and embed service, release v0.2.1. Only `fetch` is used, so it runs
 * in browsers, Bun and Node 18+ (from another origin too, when the server lists it in CORS_ORIGINS). Its types are
 * generated from the server's own schemas into `wire-types.ts`, so the folder stands on its own.
 */
import type { PlatformClientOptions } from './transport'
import { createPlatformClient, type PlatformClient } from './platform-client'

export {
  createPlatformClient,
  type CorePlatformClient,
  type DeploymentClient,
  type PlatformClient,
} from './platform-client'
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

/** @deprecated Since v0.0.20: use `createPlatformClient`. */
export function createClient(options: PlatformClientOptions): PlatformClient {
  return createPlatformClient(options)
}
