import type { Logger } from '../../../lib/logger'
import type { Metrics } from '../../../lib/metrics'
import type { RunAdmission } from '../registry/run-admission'
import type { RunDeadlines } from '../registry/run-deadlines'
import type { RunRegistry } from '../registry/run-registry'
import type { AgentFactory } from '../run/agent'
import { encodeLine } from '../stream/lines'
import type { TurnSource } from '../stream/run-readers'
import type { StreamLine } from '../model'
import type { ThreadStore } from '../../../db/repositories/threads'
import type { ChatParticipant } from './participant'

export interface ChatServiceOptions {
  store: ThreadStore
  /** Where active runs are found: this process's memory, or Redis shared with other nodes. */
  registry: RunRegistry
  agents: AgentFactory
  logger: Logger
  metrics: Metrics
  clock: () => number
  /** How long runs may hold the event loop before they let it serve other requests (see `createLoopBudget`). */
  loopBudgetMs?: number
  /** Per-user, per-key and server-wide run limits; none means every run executes at once. */
  admission?: RunAdmission
  /** First-token and whole-turn time limits of executing runs. */
  deadlines?: RunDeadlines
  /** Settles once the store is ready for new runs (see `recoverInterruptedRuns`); requests wait for it. */
  ready?: Promise<unknown>
  /**
   * Throws when `participant` may not read thread `threadId` (the deployment's thread policies). Asked for a thread
   * a request reaches by its `messageId` rather than names: the route checked the `chatId` it named itself.
   */
  mayRead?: (participant: ChatParticipant, threadId: string) => Promise<void>
  /** Throws when `participant` may not start a thread (the deployment's thread policies). */
  mayCreate?: (participant: ChatParticipant) => Promise<void>
}

/** The error line of a turn sent to a thread whose run is still going (the client joins it, or waits). */
export const BUSY = 'Streaming for thread is in progress'

/** A response of lines known already, with no run to follow. */
export function fixedLines(...lines: StreamLine[]): TurnSource {
  return { head: lines.map(encodeLine) }
}
