import { eq } from 'drizzle-orm'
import { first, type Storage } from '../../../db/client'
import type { ChatThreadAction, ChatThreadPolicyDTO, ChatThreadResourceType } from '../model'

/**
 * Chat thread policies (`AIEngineerSettings.chatThreadPolicies`): deployment-wide allow and deny rules on chat
 * threads, evaluated by the chat area. Actions: `ChatThreadCreate` (start a thread or post a message; resource
 * type `agent`, id the agent id), `ChatThreadRead` (read a thread's state; `thread` with the chat id, or `agent`),
 * `ChatThreadAbort` (abort a run; `thread`). `SecretsManage` and `DownloadData` are in the enum because v0.2.1
 * adds them to every policy action enum; no chat operation asks for them yet. `*` matches any action, resource
 * type or resource.
 */
export interface ChatThreadRequest {
  action: Exclude<ChatThreadAction, '*'>
  resourceType: Exclude<ChatThreadResourceType, '*'>
  resourceId: string
}

export type ChatThreadDecision = 'allow' | 'deny'

function concerns(policy: ChatThreadPolicyDTO, request: ChatThreadRequest): boolean {
  return (
    (policy.actions.includes(request.action) || policy.actions.includes('*')) &&
    (policy.resourceType === request.resourceType || policy.resourceType === '*')
  )
}

function matches(policy: ChatThreadPolicyDTO, request: ChatThreadRequest): boolean {
  return concerns(policy, request) && (policy.resources.includes(request.resourceId) || policy.resources.includes('*'))
}

/**
 * Decides a chat thread request. A matching `deny` wins over everything; else a matching `allow` allows. With no
 * match: denied when some `allow` policy covers this action and resource type (an allow-list is in force and does
 * not name this resource), allowed otherwise, so a deployment without policies is open. Pure, no I/O.
 */
export function evaluateChatThreadPolicies(
  policies: readonly ChatThreadPolicyDTO[],
  request: ChatThreadRequest,
): ChatThreadDecision {
  const matching = policies.filter((policy) => matches(policy, request))
  if (matching.some((policy) => policy.effect === 'deny')) return 'deny'
  if (matching.some((policy) => policy.effect === 'allow')) return 'allow'
  const allowListed = policies.some((policy) => policy.effect === 'allow' && concerns(policy, request))
  return allowListed ? 'deny' : 'allow'
}

/** The chat thread policies of a deployment (empty when none are set). */
export async function loadChatThreadPolicies(storage: Storage, deploymentId: number): Promise<ChatThreadPolicyDTO[]> {
  const { aiEngineerSettings } = storage.tables
  const row = await first(
    storage.db
      .select({ settings: aiEngineerSettings.settings })
      .from(aiEngineerSettings)
      .where(eq(aiEngineerSettings.deploymentId, deploymentId)),
  )
  const policies = row?.settings.chatThreadPolicies
  return Array.isArray(policies) ? (policies as ChatThreadPolicyDTO[]) : []
}
