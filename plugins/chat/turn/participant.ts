import { BadRequestError } from '../../../lib/errors'
import { normalizeIdentity } from '../../auth/normalize-identity'
import type { AgentInfo, DeploymentInfo } from '../../auth/directory'
import type { Caller } from '../../auth/model'
import type { UserAccess, UserProvisioner } from '../../auth/user-provisioner'
import { CHAT_FORBIDDEN_WITH_INTERNAL_ID, checkIdentity } from '../../embed/identity'
import type { SessionSettings } from '../../auth/session-settings'

/** What the chat routes authenticate: the caller, and the agent and deployment it talks to. */
export interface ChatAccess {
  caller: Caller
  agent: AgentInfo
  deployment: DeploymentInfo
}

/** Who is chatting, resolved by the route from the credential. */
export interface ChatParticipant {
  agent: AgentInfo
  deployment: DeploymentInfo
  userId: number
  access: UserAccess
  /** The API key that asked, counted by its concurrent-run limit (tokens have none). */
  keyId?: number
}

/** What a caller may abort: threads of its account and agent, in its deployments, of `userId` (null: any user). */
export interface AbortScope {
  accountId: number
  agentId: number
  deploymentIds: number[] | null
  userId: number | null
}

/**
 * Who is chatting: with an API key, the user `sessionSettings` names (provisioned like
 * generate-session); with a service token, its `externalId`/`sub` user; with an embed token, the session's user
 * and exactly the access the session granted. A token's identity is fixed: `sessionSettings` does not change who
 * chats, but a body that breaks its rules (`groups` with `internalId`, neither id, an `externalId` not lowercase and
 * trimmed) is 400 under every credential, so a body is valid or not whoever sends it.
 */
export async function resolveParticipant(
  users: UserProvisioner,
  caller: Caller,
  agent: AgentInfo,
  deployment: DeploymentInfo,
  sessionSettings: SessionSettings | undefined,
): Promise<ChatParticipant> {
  if (caller.kind !== 'apiKey' && sessionSettings) checkIdentity(sessionSettings, CHAT_FORBIDDEN_WITH_INTERNAL_ID)
  switch (caller.kind) {
    case 'apiKey': {
      if (!sessionSettings)
        throw new BadRequestError(
          'sessionSettings: required with an API key (give externalId or internalId)',
          'SESSION_SETTINGS_REQUIRED',
        )
      const user = await users.fromSessionSettings(caller.accountId, sessionSettings)
      return { agent, deployment, userId: user.userId, access: user.access, keyId: caller.keyId }
    }
    case 'serviceToken': {
      const user = await users.fromExternalId(caller.accountId, caller.externalId, caller.securityContext)
      const access = caller.securityContext ? { ...user.access, securityContext: caller.securityContext } : user.access
      return { agent, deployment, userId: user.userId, access }
    }
    case 'embed':
      return {
        agent,
        deployment,
        userId: caller.userId,
        access: {
          userId: caller.userId,
          groups: caller.groups,
          userAttributes: caller.userAttributes,
          securityContext: caller.securityContext ?? {},
        },
      }
  }
}

/** The user an abort request is limited to: null for an API key naming nobody (account-level backend). */
export async function abortingUser(
  users: UserProvisioner,
  caller: Caller,
  sessionSettings: SessionSettings | undefined,
): Promise<number | null> {
  // As for a turn: the token names the user, but a body that breaks the rules of sessionSettings is 400 whoever sends it.
  if (caller.kind !== 'apiKey' && sessionSettings) checkIdentity(sessionSettings, CHAT_FORBIDDEN_WITH_INTERNAL_ID)
  if (caller.kind === 'embed') return caller.userId
  // An unknown user owns no thread: -1 matches none, so the abort answers "not yours" rather than acting for the account.
  if (caller.kind === 'serviceToken')
    return (await users.find(caller.accountId, { externalId: caller.externalId })) ?? -1
  if (!sessionSettings) return null
  const found = await users.find(caller.accountId, sessionSettings)
  // An internal user is never created by a request: one that does not exist is bad input here as in the chat.
  if (found === undefined && sessionSettings.externalId === undefined && sessionSettings.internalId !== undefined) {
    const username = normalizeIdentity(sessionSettings.internalId)
    throw new BadRequestError(`Internal user ${username} not found`, 'INTERNAL_USER_NOT_FOUND')
  }
  return found ?? -1
}

/** What `caller` may abort with `agent`: its account's threads, in its deployments, of `userId` (null: any). */
export function abortScope(caller: Caller, agent: AgentInfo, userId: number | null): AbortScope {
  return {
    accountId: caller.accountId,
    agentId: agent.id,
    deploymentIds: caller.kind === 'apiKey' ? caller.deploymentScope : [caller.deploymentId],
    userId,
  }
}
