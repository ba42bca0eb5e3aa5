import type { Storage } from '../../../db/client'
import type { ClusterBus } from '../../../lib/cluster-bus'
import type { Config } from '../../../lib/config'
import { BadRequestError, ShuttingDownError } from '../../../lib/errors'
import type { Lifecycle } from '../../../lib/lifecycle'
import type { Logger } from '../../../lib/logger'
import type { Metrics } from '../../../lib/metrics'
import type { UserProvisioner } from '../../auth/user-provisioner'
import type { SessionSettings } from '../../auth/session-settings'
import type { ChatRequest } from '../model'
import { RunAdmission } from '../registry/run-admission'
import { createRunDeadlines } from '../registry/run-deadlines'
import type { RunRegistry } from '../registry/run-registry'
import type { AgentFactory } from '../run/agent'
import type { TurnSource } from '../stream/run-readers'
import { createThreadPolicyGuard } from '../thread-policies'
import { createChatService } from './chat-service'
import { abortingUser, abortScope, resolveParticipant, type ChatAccess } from './participant'

/** What the chat's turns need from the app. */
export interface ChatTurnsDeps {
  config: Pick<Config, 'chatLimits' | 'shutdownGraceMs'>
  storage: Storage
  logger: Logger
  metrics: Metrics
  clock: () => number
  users: UserProvisioner
  agents: AgentFactory
  lifecycle: Pick<Lifecycle, 'onShutdown' | 'isShuttingDown'>
  registry: RunRegistry
  bus: Pick<ClusterBus, 'shared' | 'subscribe'>
}

/**
 * The chat's turns as the routes ask for them, over HTTP and WebSocket alike: a request's caller is checked against
 * the thread policies and resolved to its user before the chat service opens the turn or aborts the run. Built once
 * per app, with the thread store, the run limits and time limits, the recovery of runs a previous process left
 * running, and the shutdown of all of it.
 */
export function createChatTurns(deps: ChatTurnsDeps) {
  const store = deps.storage.repositories.threads(deps.clock)
  // Runs a previous process left `running` are marked interrupted before this one starts any (on SQLite that is
  // done by the time the call returns; on Postgres the first requests wait for it). One process: every run left
  // running was cut by its end. Several nodes: only runs no live node holds, which the shared registry finds itself.
  const ready = deps.registry.shared
    ? undefined
    : store.recoverInterruptedRuns().then(
        (runs) => {
          if (runs > 0) deps.logger.warn('marked runs of a previous process as interrupted', { runs })
        },
        (error: unknown) => deps.logger.error('runs of a previous process could not be marked interrupted', { error }),
      )
  const limits = deps.config.chatLimits
  const admission = new RunAdmission(limits, {
    waitingChanged: (waiting) => deps.metrics.admissionQueued.set(waiting),
    refused: (limit) => deps.metrics.admissionRefused.inc({ limit }),
  })
  const policies = createThreadPolicyGuard(deps.storage, { bus: deps.bus, clock: deps.clock })
  deps.lifecycle.onShutdown(policies.close)
  const chat = createChatService({
    store,
    registry: deps.registry,
    agents: deps.agents,
    logger: deps.logger,
    metrics: deps.metrics,
    clock: deps.clock,
    admission,
    deadlines: createRunDeadlines(limits),
    ready,
    mayRead: ({ deployment, agent }, threadId) => policies.read(deployment.id, agent.id, threadId),
    mayCreate: ({ deployment, agent }) => policies.create(deployment.id, agent.id),
  })
  deps.lifecycle.onShutdown(() => chat.shutdown(deps.config.shutdownGraceMs))

  return {
    /** The start of a shutdown: new turns are refused, and the runs of this process end now. */
    drain: () => chat.drain(),

    /** Opens one turn for `access`'s caller: what to send, and the user it is for. */
    async open(access: ChatAccess, request: ChatRequest): Promise<{ source: TurnSource; userId: number }> {
      const { caller, agent, deployment } = access
      // Before anything is provisioned or stored: a load balancer sends the request to another node.
      if (deps.lifecycle.isShuttingDown) throw new ShuttingDownError()
      // Images belong to the user message a request's input makes: without one they would be dropped unseen.
      if (request.input === undefined && request.images?.length)
        throw new BadRequestError('images: send them with input, the message they belong to', 'IMAGES_WITHOUT_INPUT')
      await policies.chat(deployment.id, agent.id, request)
      const participant = await resolveParticipant(deps.users, caller, agent, deployment, request.sessionSettings)
      return { source: await chat.open(request, participant), userId: participant.userId }
    },

    /**
     * Stops the thread's active run as the user `sessionSettings` names; without one, as `socketUserId` (a socket's
     * latest user), and an API key that has named no user acts for the account.
     */
    async abort(
      access: ChatAccess,
      chatId: string,
      sessionSettings: SessionSettings | undefined,
      socketUserId?: number,
    ): Promise<void> {
      const { caller, agent, deployment } = access
      await policies.abort(deployment.id, chatId)
      const userId =
        sessionSettings !== undefined || socketUserId === undefined
          ? await abortingUser(deps.users, caller, sessionSettings)
          : socketUserId
      await chat.abort(chatId, abortScope(caller, agent, userId))
    },
  }
}

export type ChatTurns = ReturnType<typeof createChatTurns>
