/**
 * The TypeScript client of the analytics chat and embed service, release v0.2.1. Only `fetch` is used, so it runs
 * in browsers, Bun and Node 18+. Its types are the server's own schemas (imported as types only).
 */
import type { PlatformClientOptions } from './transport'
import { createPlatformClient, type PlatformClient } from './platform-client'

export { createPlatformClient, type CorePlatformClient, type DeploymentClient, type PlatformClient } from './platform-client'
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
export type * from '../plugins/management/model'
export type { StreamLine, ChatRequest, ThreadMessage } from '../plugins/chat/model'
export type { GenerateSessionBody } from '../plugins/embed/model'
export type { MetaResult, SqlBody, SqlResult } from '../plugins/semantic/model'

/** @deprecated Since v0.0.20: use `createPlatformClient`. */
export function createClient(options: PlatformClientOptions): PlatformClient {
  return createPlatformClient(options)
}
