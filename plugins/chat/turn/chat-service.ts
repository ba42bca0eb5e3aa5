import { ShuttingDownError } from '../../../lib/errors'
import type { ChatRequest } from '../model'
import { createLoopBudget } from '../run/loop-budget'
import { OpenMessages } from '../run/open-message'
import type { TurnServices } from '../run/run-turn'
import type { TurnSource } from '../stream/run-readers'
import { createRunAborter } from './abort-run'
import { assertInlineImages } from './images'
import { createTurnOpener } from './open-turn'
import type { ChatParticipant } from './participant'
import { createRunStarter } from './start-run'
import type { ChatServiceOptions } from './turn-context'

/** The error line of a run cut short by a shutdown. */
const SHUTDOWN_MESSAGE = 'The server is shutting down; the run was interrupted'

/**
 * The chat's turn logic: starts runs, joins active ones by `messageId`, answers finished `messageId`s and state
 * requests from the database (`createTurnOpener`, `createRunStarter`), and aborts runs (`createRunAborter`). It
 * returns what to send (`TurnSource`); the HTTP and WebSocket routes only deliver it. This function holds what
 * spans requests: the services runs share, the start-up recovery requests wait for, one request at a time per
 * message, and the drain and shutdown.
 */
export function createChatService(options: ChatServiceOptions) {
  const { store, registry, logger, metrics, clock } = options
  const runsTotal = metrics.counter('chat_runs_total', 'Chat runs by outcome', ['outcome'])
  // Executing only: a run waiting for its admission place is counted by chat_admission_queued.
  metrics.gauge('chat_active_runs', 'Chat runs of this node executing now (not those queued for admission)', {
    collect: () => Math.max(0, registry.size - (options.admission?.waiting ?? 0)),
  })
  const messages = new OpenMessages(store, clock, logger)
  const services: TurnServices = {
    store,
    messages,
    registry,
    logger,
    budget: createLoopBudget(options.loopBudgetMs ?? 4),
    clock,
    onEnd: (outcome) => runsTotal.inc({ outcome }),
    agents: options.agents,
    deadlines: options.deadlines,
  }
  const openTurn = createTurnOpener(options, createRunStarter(options, services))

  // Requests wait for the start-up work (the recovery of runs a previous process left running) only while it lasts.
  let recovering = options.ready !== undefined
  let draining = false
  const recovery = options.ready?.finally(() => (recovering = false))

  // Reads and the registry are awaited, so two requests for the same message (a client's retry, a double click) could
  // both find no run and start two. In this process they take turns instead: the second finds the first one's run.
  const opening = new Map<string, Promise<void>>()
  async function inTurn<T>(key: string | undefined, work: () => Promise<T>): Promise<T> {
    if (key === undefined) return work()
    const current = (opening.get(key) ?? Promise.resolve()).then(work)
    const settled = current.then(
      () => {},
      () => {},
    )
    opening.set(key, settled)
    try {
      return await current
    } finally {
      if (opening.get(key) === settled) opening.delete(key)
    }
  }

  /**
   * The start of a shutdown: new turns are refused (503), and every run of this process ends now as interrupted,
   * so the responses reading them end and the server can stop.
   */
  function drain(): void {
    draining = true
    registry.abortAll(SHUTDOWN_MESSAGE)
  }

  return {
    registry,

    /** What to send for one chat request. Never throws for thread-level problems: they become an error line. */
    async open(request: ChatRequest, participant: ChatParticipant): Promise<TurnSource> {
      if (draining) throw new ShuttingDownError()
      assertInlineImages(request.images)
      if (recovering) await recovery
      const sameMessage =
        request.input !== undefined && request.messageId !== undefined
          ? `${participant.userId}:${participant.agent.id}:${request.messageId}`
          : undefined
      return inTurn(sameMessage, () => openTurn(request, participant))
    },

    /**
     * Stops the thread's active run (the run ends with an error line and keeps its partial answer). `userId` null
     * means an account-level caller (an API key naming no user). Resolves with whether a run was stopped.
     */
    abort: createRunAborter(options),

    drain,

    /** Aborts every run (one started meanwhile too) and waits (bounded) for them to save their partial answers. */
    async shutdown(timeoutMs: number): Promise<void> {
      drain()
      await registry.whenIdle(timeoutMs)
      await store.flushWrites()
      messages.close()
    },
  }
}

export type ChatService = ReturnType<typeof createChatService>
