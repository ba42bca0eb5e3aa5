import type { AttributeValue } from '../../db/schema'
import type { SessionSettings } from './session-settings'

/**
 * What a user may see of a deployment's data: the inputs of the semantic layer's access policies. `userId` is null
 * for API-key callers that name no user (they read the whole model).
 */
export interface UserAccess {
  userId: number | null
  groups: string[]
  userAttributes: Record<string, AttributeValue>
  securityContext: Record<string, unknown>
}

export interface ResolvedUser {
  userId: number
  kind: 'internal' | 'external'
  access: UserAccess
}

/**
 * Turns the identities of chat and SQL requests into stored users, with the same rules and code as
 * generate-session (implemented by the embed area in `plugins/embed/provisioning.ts`).
 */
export interface UserProvisioner {
  /**
   * Provisions or updates the external user named by `settings.externalId` (email, attribute values, groups,
   * security context; same merge rules as generate-session), or resolves the existing internal user named by
   * `settings.internalId`. Throws `AppError`s: 400 for rule violations (naming the field or the spec's message),
   * 403 for the external-user limit. One transaction.
   */
  fromSessionSettings(accountId: number, settings: SessionSettings): Promise<ResolvedUser>
  /** The external user of a service token: created when missing, left as stored otherwise. */
  fromExternalId(
    accountId: number,
    externalId: string,
    securityContext?: Record<string, unknown>,
  ): Promise<ResolvedUser>
  /** The current access of a stored user (tenant-wide groups and attributes). */
  accessOf(userId: number): Promise<UserAccess>
  /** The stored user `settings` names (its `externalId`, else `internalId`), without creating or changing it. */
  find(accountId: number, settings: { externalId?: string; internalId?: string }): Promise<number | undefined>
}
