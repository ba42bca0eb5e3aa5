import { and, count, eq, isNull, ne } from 'drizzle-orm'
import { first, type Db, type Storage, type Tables } from '../../db/client'
import { hashSecret } from '../../lib/secrets'
import { normalizeIdentity } from '../../plugins/auth/normalize-identity'
import { ROLE_ACTIONS } from '../../plugins/management/access/key-policies'
import { DEMO_REGION_ATTRIBUTE } from './demo'
import { BootstrapError } from './load'
import type { BootstrapAccount, BootstrapApiKey, BootstrapDeployment, BootstrapFile } from './model'

export interface BootstrapSummary {
  accounts: number
  apiKeys: number
  deployments: number
  agents: number
}

/**
 * Applies a validated bootstrap in one transaction: creates and updates what the file names, never deletes what it
 * does not. Applying the same file twice leaves the same rows. On any error nothing is written. The transaction is
 * exclusive: nodes starting together apply the file one after the other, never into each other's half-written rows.
 */
export async function applyBootstrap(
  storage: Storage,
  file: BootstrapFile,
  source: string,
  now = Date.now(),
): Promise<BootstrapSummary> {
  return storage.transaction((tx) => applyBootstrapIn(tx, storage.tables, file, source, now), { exclusive: true })
}

/** `applyBootstrap` inside a transaction the caller holds (to do more in the same one). */
export async function applyBootstrapIn(
  tx: Db,
  tables: Tables,
  file: BootstrapFile,
  source: string,
  now = Date.now(),
): Promise<BootstrapSummary> {
  const summary: BootstrapSummary = { accounts: 0, apiKeys: 0, deployments: 0, agents: 0 }
  for (const [index, account] of file.accounts.entries())
    await applyAccount(tx, tables, account, `accounts[${index}]`, source, now, summary)
  return summary
}

/** Where an account's rows are written: the transaction, its tables, the account, and the file's place for errors. */
interface AccountScope {
  db: Db
  tables: Tables
  accountId: number
  /** The account's place in the file (`accounts[0]`), for the paths errors name. */
  at: string
  source: string
  now: number
  summary: BootstrapSummary
}

/** The account row, then what belongs to it, each kind in its own pass. */
async function applyAccount(
  db: Db,
  tables: Tables,
  account: BootstrapAccount,
  at: string,
  source: string,
  now: number,
  summary: BootstrapSummary,
): Promise<void> {
  const { accounts } = tables
  const values = {
    plan: account.plan,
    maxExternalUsers: account.maxExternalUsers ?? 10000,
    showDashboardChat: account.settings?.showDashboardChat ?? true,
  }
  const [accountRow] = await db
    .insert(accounts)
    .values({ name: account.name, createdAt: now, ...values })
    .onConflictDoUpdate({ target: accounts.name, set: values })
    .returning({ id: accounts.id })
  summary.accounts++
  const scope: AccountScope = { db, tables, accountId: accountRow.id, at, source, now, summary }
  for (const [index, deployment] of (account.deployments ?? []).entries())
    await applyDeployment(scope, deployment, `${at}.deployments[${index}]`)
  for (const [index, key] of (account.apiKeys ?? []).entries()) await applyApiKey(scope, key, index)
  await applyUsersAndGroups(scope, account)
  await applyAttributeDefinitions(scope, account)
  await applyEmbedTenants(scope, account)
}

/** A deployment (refused when another account holds its id), its branches as listed, and its agents. */
async function applyDeployment(scope: AccountScope, deployment: BootstrapDeployment, path: string): Promise<void> {
  const { db, accountId, source, now, summary } = scope
  const { agents, deploymentBranches, deployments } = scope.tables
  const existing = await first(
    db.select({ accountId: deployments.accountId }).from(deployments).where(eq(deployments.id, deployment.id)),
  )
  if (existing && existing.accountId !== accountId)
    throw new BootstrapError(source, [`${path}.id: deployment ${deployment.id} already belongs to another account`])
  const deploymentValues = {
    name: deployment.name,
    model: deployment.model ?? 'demo',
    tokenAuthEnabled: deployment.tokenAuth?.enabled ?? false,
    tokenAuthSecret: deployment.tokenAuth?.secret ?? null,
  }
  await db
    .insert(deployments)
    .values({ id: deployment.id, accountId, createdAt: now, ...deploymentValues })
    .onConflictDoUpdate({ target: deployments.id, set: deploymentValues })
  summary.deployments++
  const branches = deployment.branches ?? ['main']
  // Branches are the deployment's whole list, so the file's list replaces the stored one.
  await db.delete(deploymentBranches).where(eq(deploymentBranches.deploymentId, deployment.id))
  await db
    .insert(deploymentBranches)
    .values(
      branches.map((name, position) => ({ deploymentId: deployment.id, name, isDefault: position === 0, position })),
    )
  for (const [agentIndex, agent] of (deployment.agents ?? []).entries()) {
    const existingAgent = await first(
      db.select({ deploymentId: agents.deploymentId }).from(agents).where(eq(agents.id, agent.id)),
    )
    if (existingAgent && existingAgent.deploymentId !== deployment.id)
      throw new BootstrapError(source, [
        `${path}.agents[${agentIndex}].id: agent ${agent.id} already belongs to another deployment`,
      ])
    const agentValues = { name: agent.name, kind: agent.kind ?? 'analyst', config: agent.config ?? null }
    await db
      .insert(agents)
      .values({ id: agent.id, deploymentId: deployment.id, ...agentValues })
      .onConflictDoUpdate({ target: agents.id, set: agentValues })
    summary.agents++
  }
}

/**
 * An API key by its name in the account: its secret (refused when another stored key has it), admin flag, scope,
 * revocation, and the policy its role names.
 */
async function applyApiKey(scope: AccountScope, key: BootstrapApiKey, keyIndex: number): Promise<void> {
  const { db, accountId, at, source, now, summary } = scope
  const { apiKeyPolicies, apiKeys } = scope.tables
  const keyValues = {
    keyHash: hashSecret(key.key),
    keyPrefix: key.key.slice(0, 8),
    admin: key.admin ?? false,
    deploymentScope: key.deployments ?? null,
  }
  const existing = await first(
    db
      .select({ id: apiKeys.id, revokedAt: apiKeys.revokedAt })
      .from(apiKeys)
      .where(and(eq(apiKeys.accountId, accountId), eq(apiKeys.name, key.name))),
  )
  // A secret is one key: already another key's (made by `keys create`, or named otherwise in an earlier file), it
  // would break the start on the unique index, or worse.
  const holder = await first(
    db
      .select({ id: apiKeys.id })
      .from(apiKeys)
      .where(and(eq(apiKeys.keyHash, keyValues.keyHash), existing ? ne(apiKeys.id, existing.id) : undefined)),
  )
  if (holder)
    throw new BootstrapError(source, [
      `${at}.apiKeys[${keyIndex}].key: already the secret of another stored key; give this key a new secret`,
    ])
  const revokedAt = key.revoked ? (existing?.revokedAt ?? now) : null
  let keyId: number
  if (existing) {
    await db
      .update(apiKeys)
      .set({ ...keyValues, revokedAt })
      .where(eq(apiKeys.id, existing.id))
    keyId = existing.id
  } else {
    const [inserted] = await db
      .insert(apiKeys)
      .values({ accountId, name: key.name, createdAt: now, revokedAt, ...keyValues })
      .returning({ id: apiKeys.id })
    keyId = inserted.id
  }
  // The file is the source of truth for the keys it names: a policy changed through the API (by mistake or by a
  // compromised key) is put back at the next start, so an operator can always recover the account's keys.
  if (key.role) {
    const actions = [...ROLE_ACTIONS[key.role]]
    const stored = await first(db.select().from(apiKeyPolicies).where(eq(apiKeyPolicies.apiKeyId, keyId)))
    // Left alone when already right, so applying the same file twice leaves the same rows.
    if (stored?.role !== key.role || stored.actions.join() !== actions.join()) {
      const policy = { role: key.role, actions, updatedAt: now }
      await db
        .insert(apiKeyPolicies)
        .values({ apiKeyId: keyId, ...policy })
        .onConflictDoUpdate({ target: apiKeyPolicies.apiKeyId, set: policy })
    }
  } else {
    await db.delete(apiKeyPolicies).where(eq(apiKeyPolicies.apiKeyId, keyId))
  }
  summary.apiKeys++
}

/** The internal users the file names (created once, never changed) and the tenant-wide groups (described again). */
async function applyUsersAndGroups(scope: AccountScope, account: BootstrapAccount): Promise<void> {
  const { db, accountId, now } = scope
  const { groups, users } = scope.tables
  for (const user of account.users ?? []) {
    await db
      .insert(users)
      .values({
        accountId,
        kind: 'internal',
        identity: normalizeIdentity(user.username),
        createdAt: now,
        updatedAt: now,
      })
      .onConflictDoNothing()
  }

  for (const group of account.groups ?? []) {
    const existing = await first(
      db
        .select({ id: groups.id })
        .from(groups)
        .where(
          and(
            eq(groups.accountId, accountId),
            isNull(groups.embedTenantId),
            eq(groups.namespace, 'group'),
            eq(groups.name, group.name),
          ),
        ),
    )
    if (existing) {
      if (group.description !== undefined)
        await db.update(groups).set({ description: group.description }).where(eq(groups.id, existing.id))
    } else {
      await db
        .insert(groups)
        .values({ accountId, name: group.name, description: group.description ?? null, createdAt: now })
    }
  }
}

/** The tenant-wide attribute definitions: created, or described again; a changed type is refused. */
async function applyAttributeDefinitions(scope: AccountScope, account: BootstrapAccount): Promise<void> {
  const { db, accountId, at, source, now } = scope
  const { userAttributeDefinitions } = scope.tables
  /** The account's tenant-wide attribute definition of this name, if stored. */
  const storedAttribute = (name: string) =>
    first(
      db
        .select({ id: userAttributeDefinitions.id, type: userAttributeDefinitions.type })
        .from(userAttributeDefinitions)
        .where(
          and(
            eq(userAttributeDefinitions.accountId, accountId),
            isNull(userAttributeDefinitions.embedTenantId),
            eq(userAttributeDefinitions.name, name),
          ),
        ),
    )

  // The demo model's access policy reads `region`: an account with a deployment on it gets that attribute when the
  // file does not define it (an existing one, of whatever type, is left as it is).
  const attributes = [...(account.userAttributes ?? [])]
  if (
    (account.deployments ?? []).some((deployment) => (deployment.model ?? 'demo') === 'demo') &&
    !attributes.some((attribute) => attribute.name === DEMO_REGION_ATTRIBUTE.name)
  ) {
    if (!(await storedAttribute(DEMO_REGION_ATTRIBUTE.name))) attributes.push({ ...DEMO_REGION_ATTRIBUTE })
  }

  for (const [index, attribute] of attributes.entries()) {
    const existing = await storedAttribute(attribute.name)
    const details = {
      ...(attribute.displayName !== undefined && { displayName: attribute.displayName }),
      ...(attribute.defaultValue !== undefined && { defaultValue: attribute.defaultValue }),
      ...(attribute.description !== undefined && { description: attribute.description }),
    }
    if (existing) {
      if (existing.type !== attribute.type)
        throw new BootstrapError(source, [
          `${at}.userAttributes[${index}].type: cannot change type of ${attribute.name} from ${existing.type} to ${attribute.type}`,
        ])
      if (Object.keys(details).length > 0)
        await db.update(userAttributeDefinitions).set(details).where(eq(userAttributeDefinitions.id, existing.id))
    } else {
      await db
        .insert(userAttributeDefinitions)
        .values({ accountId, name: attribute.name, type: attribute.type, createdAt: now, ...details })
    }
  }
}

/** The embed tenants, by name in the account. */
async function applyEmbedTenants(scope: AccountScope, account: BootstrapAccount): Promise<void> {
  const { db, accountId, now } = scope
  const { embedTenants } = scope.tables
  for (const tenant of account.embedTenants ?? []) {
    const tenantValues = {
      useCreatorMode: tenant.useCreatorMode ?? false,
      ...(tenant.displayName !== undefined && { displayName: tenant.displayName }),
    }
    await db
      .insert(embedTenants)
      .values({ accountId, name: tenant.name, createdAt: now, ...tenantValues })
      .onConflictDoUpdate({ target: [embedTenants.accountId, embedTenants.name], set: tenantValues })
  }
}

/** True when the database holds no account yet (the demo bootstrap applies only then). */
export async function isEmptyDatabase(db: Db, tables: Tables): Promise<boolean> {
  const row = await first(db.select({ count: count() }).from(tables.accounts))
  return row?.count === 0
}
