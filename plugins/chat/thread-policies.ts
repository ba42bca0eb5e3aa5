import type { Storage } from '../../db/client'
import { ForbiddenError } from '../../lib/errors'
import { createFreshCache } from '../../lib/fresh-cache'
import { evaluateChatThreadPolicies, type ChatThreadRequest } from '../management'
import type { ChatThreadPolicyDTO } from '../management/model'
import type { ChatRequest } from './model'
import type { ClusterBus } from '../../lib/cluster-bus'

/**
 * How old a deployment's policies kept in memory may be on a node that shares its storage with others: a change is
 * announced to every node at once over the cluster bus, and this bounds it should the announcement be lost.
 */
export const POLICIES_MAX_AGE_MS = 5_000

/**
 * Applies the deployment's `chatThreadPolicies` (AI engineer settings) to a chat request: starting a thread or
 * posting is `ChatThreadCreate` on the agent; reading a thread (state, rejoin, a finished messageId) is
 * `ChatThreadRead` on the thread and the agent, whether the request names the thread (`chat`) or reaches it by its
 * `messageId` (`read`, asked by the chat service once it knows the thread); stopping a run is `ChatThreadAbort` on
 * the thread. A denial is a 403 before any stream starts. With one process, policies are read per request, so a
 * change applies to the next one. Several nodes (a `shared` cluster bus) keep them in memory instead, off every turn's
 * path to the shared database: a change is announced over the cluster bus (`policies-changed`) and applies to the
 * next request on the node that made it, and within moments on the others (at most `POLICIES_MAX_AGE_MS`).
 */
export function createThreadPolicyGuard(
  storage: Storage,
  cluster?: { bus: Pick<ClusterBus, 'shared' | 'subscribe'>; clock: () => number },
) {
  // The stored `chatThreadPolicies` (the same reading of the settings as the management area's
  // `loadChatThreadPolicies`), read on every chat request the cheapest way the storage knows.
  const read = storage.repositories.threadPolicies()
  let storedPolicies: (deploymentId: number) => unknown = read
  let stopListening = () => {}
  if (cluster?.bus.shared) {
    const cache = createFreshCache(async (deploymentId: number) => read(deploymentId), {
      maxAgeMs: POLICIES_MAX_AGE_MS,
      now: cluster.clock,
    })
    storedPolicies = cache.get
    stopListening = cluster.bus.subscribe((event) => {
      if (event.type === 'policies-changed') cache.forget(event.deploymentId)
      // Back on the bus after losing it: announcements made meanwhile never came.
      else if (event.type === 'embed-sessions-recheck') cache.forget()
    })
  }
  const check = async (deploymentId: number, requests: ChatThreadRequest[]) => {
    const stored = await storedPolicies(deploymentId)
    const policies = Array.isArray(stored) ? (stored as ChatThreadPolicyDTO[]) : []
    if (policies.length === 0) return
    for (const request of requests)
      if (evaluateChatThreadPolicies(policies, request) === 'deny')
        throw new ForbiddenError(
          `Chat thread policy denies ${request.action} on ${request.resourceType} ${request.resourceId}`,
          'CHAT_POLICY_DENIED',
        )
  }
  return {
    /** Stops following the bus's announcements. */
    close: () => stopListening(),
    chat(deploymentId: number, agentId: number, request: ChatRequest): Promise<void> {
      const agent = String(agentId)
      const requests: ChatThreadRequest[] = []
      if (request.input !== undefined)
        requests.push({ action: 'ChatThreadCreate', resourceType: 'agent', resourceId: agent })
      if (request.chatId !== undefined)
        requests.push(
          { action: 'ChatThreadRead', resourceType: 'thread', resourceId: request.chatId },
          { action: 'ChatThreadRead', resourceType: 'agent', resourceId: agent },
        )
      return check(deploymentId, requests)
    },
    /** Starting a thread without a message (a request with neither input nor a thread): `ChatThreadCreate`. */
    create(deploymentId: number, agentId: number): Promise<void> {
      return check(deploymentId, [{ action: 'ChatThreadCreate', resourceType: 'agent', resourceId: String(agentId) }])
    },
    /** Reading a thread the request reached by its `messageId` (a rejoin, a finished message): `ChatThreadRead`. */
    read(deploymentId: number, agentId: number, chatId: string): Promise<void> {
      return check(deploymentId, [
        { action: 'ChatThreadRead', resourceType: 'thread', resourceId: chatId },
        { action: 'ChatThreadRead', resourceType: 'agent', resourceId: String(agentId) },
      ])
    },
    abort(deploymentId: number, chatId: string): Promise<void> {
      return check(deploymentId, [{ action: 'ChatThreadAbort', resourceType: 'thread', resourceId: chatId }])
    },
  }
}
