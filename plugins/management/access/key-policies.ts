import { and, eq } from 'drizzle-orm'
import { first, type Db, type Storage } from '../../../db/client'
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError } from '../../../lib/errors'
import { assertKeyWithinReach } from '../../auth/deployment-authorization'
import type { ApiKeyCaller } from '../../auth/model'
import type { KeyPolicy, KeyRole, PolicyAction, UpdateKeyPolicyInput } from '../model'

/**
 * RBAC of the management API. Every API key has one policy: a preset role or a custom set of actions. A key
 * without a stored policy gets `admin` when it is an admin key and `editor` otherwise, so existing keys keep
 * working. Every management operation names the one action it needs, and a key without that action gets 403.
 */
export const ALL_ACTIONS: readonly PolicyAction[] = [
  'ContentRead',
  'ContentEdit',
  'ContentManage',
  'NotificationsManage',
  'DbtSync',
  'SettingsManage',
  'SecretsManage',
  'DownloadData',
]

export const ROLE_ACTIONS: Record<Exclude<KeyRole, 'custom'>, readonly PolicyAction[]> = {
  admin: ALL_ACTIONS,
  editor: ['ContentRead', 'ContentEdit', 'ContentManage', 'NotificationsManage', 'DbtSync', 'DownloadData'],
  viewer: ['ContentRead'],
}

/** Who is acting, with what rights: the API key behind a management request. */
export interface Actor {
  accountId: number
  keyId: number
  /** The key's deployments; `null` for an unscoped key. Bounds which keys and settings it may manage. */
  deploymentScope: readonly number[] | null
  actions: ReadonlySet<PolicyAction>
}

function storedPolicy(storage: Storage, db: Db, keyId: number) {
  const { apiKeyPolicies } = storage.tables
  return first(db.select().from(apiKeyPolicies).where(eq(apiKeyPolicies.apiKeyId, keyId)))
}

/** The actor of an authenticated API key: its stored policy, else the default of its `admin` flag. */
export async function actorOf(storage: Storage, caller: ApiKeyCaller): Promise<Actor> {
  const stored = await storedPolicy(storage, storage.db, caller.keyId)
  const actions = stored ? (stored.actions as PolicyAction[]) : ROLE_ACTIONS[caller.admin ? 'admin' : 'editor']
  return {
    accountId: caller.accountId,
    keyId: caller.keyId,
    deploymentScope: caller.deploymentScope,
    actions: new Set(actions),
  }
}

/** 403 unless the actor holds `action`. */
export function requireAction(actor: Actor, action: PolicyAction): void {
  if (!actor.actions.has(action))
    throw new ForbiddenError(`This API key lacks the ${action} permission`, 'PERMISSION_DENIED')
}

/**
 * A key the actor may manage: 404 for another account's key (its existence is not revealed), 403 for a key of the
 * account whose deployments are not all within the actor's scope.
 */
async function managedKey(storage: Storage, db: Db, actor: Actor, keyId: number) {
  const { apiKeys } = storage.tables
  const key = await first(
    db
      .select({ id: apiKeys.id, name: apiKeys.name, admin: apiKeys.admin, deploymentScope: apiKeys.deploymentScope })
      .from(apiKeys)
      .where(and(eq(apiKeys.id, keyId), eq(apiKeys.accountId, actor.accountId))),
  )
  if (!key) throw new NotFoundError(`API key ${keyId} not found`, 'API_KEY_NOT_FOUND')
  assertKeyWithinReach(actor, key.deploymentScope ?? null)
  return key
}

/** The policy of a key within the actor's reach (needs `SecretsManage`). */
export async function readKeyPolicy(storage: Storage, actor: Actor, keyId: number): Promise<KeyPolicy> {
  return keyPolicy(storage, storage.db, actor, keyId)
}

async function keyPolicy(storage: Storage, db: Db, actor: Actor, keyId: number): Promise<KeyPolicy> {
  requireAction(actor, 'SecretsManage')
  const key = await managedKey(storage, db, actor, keyId)
  const stored = await storedPolicy(storage, db, keyId)
  if (stored)
    return { keyId, keyName: key.name, role: stored.role, actions: stored.actions as PolicyAction[], isDefault: false }
  const role = key.admin ? 'admin' : 'editor'
  return { keyId, keyName: key.name, role, actions: [...ROLE_ACTIONS[role]], isDefault: true }
}

/**
 * Sets the policy of a key within the actor's reach: a preset `role` or a custom `actions` set (exactly one). A key
 * grants only actions it holds itself, so a policy change never widens what the account's keys can do together.
 * A key cannot take `SecretsManage` away from itself, so an account is never left without a key that can manage
 * policies by accident.
 */
export async function writeKeyPolicy(
  storage: Storage,
  actor: Actor,
  keyId: number,
  input: UpdateKeyPolicyInput,
  now: number,
): Promise<KeyPolicy> {
  requireAction(actor, 'SecretsManage')
  const { apiKeyPolicies } = storage.tables
  // One transaction from the check of the key to the answer, so the policy is written only to a key still in reach.
  return storage.transaction(async (tx) => {
    await managedKey(storage, tx, actor, keyId)
    if ((input.role === undefined) === (input.actions === undefined))
      throw new BadRequestError('Send exactly one of role and actions', 'ROLE_OR_ACTIONS')
    const role: KeyRole = input.role ?? 'custom'
    const actions = input.role
      ? [...ROLE_ACTIONS[input.role]]
      : ALL_ACTIONS.filter((action) => input.actions!.includes(action))
    const beyond = actions.filter((action) => !actor.actions.has(action))
    if (beyond.length > 0)
      throw new ForbiddenError(
        `This API key cannot grant ${beyond.join(', ')}: it does not hold them`,
        'PERMISSION_DENIED',
      )
    if (keyId === actor.keyId && !actions.includes('SecretsManage'))
      throw new ConflictError('An API key cannot remove SecretsManage from itself; use another key', 'SELF_LOCKOUT')
    await tx
      .insert(apiKeyPolicies)
      .values({ apiKeyId: keyId, role, actions, updatedAt: now })
      .onConflictDoUpdate({ target: apiKeyPolicies.apiKeyId, set: { role, actions, updatedAt: now } })
    return keyPolicy(storage, tx, actor, keyId)
  })
}
