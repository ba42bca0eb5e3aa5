import { BadRequestError } from '../../lib/errors'
import type { ApiKeyCaller, EmbedCaller } from '../auth/model'
import type { UserAccess, UserProvisioner } from '../auth/user-provisioner'
import type { SessionSettings } from '../auth/session-settings'
import { WHOLE_MODEL } from './semantic-service'

/**
 * Whose access a `.../meta` or `.../sql` request reads with: an API key alone reads the
 * whole model; an API key with `sessionSettings` reads as that user (provisioned as in chat); an embed token
 * reads with the groups, attributes and security context its session was minted with.
 */
export async function callerAccess(
  caller: ApiKeyCaller | EmbedCaller,
  sessionSettings: SessionSettings | undefined,
  users: UserProvisioner,
): Promise<UserAccess> {
  if (caller.kind === 'embed') {
    if (sessionSettings !== undefined)
      throw new BadRequestError(
        'sessionSettings is accepted only with an API key: an embed token already names its user',
        'SESSION_SETTINGS_NOT_ALLOWED',
      )
    return {
      userId: caller.userId,
      groups: caller.groups,
      userAttributes: caller.userAttributes,
      securityContext: caller.securityContext ?? {},
    }
  }
  if (sessionSettings === undefined) return WHOLE_MODEL
  return (await users.fromSessionSettings(caller.accountId, sessionSettings)).access
}
