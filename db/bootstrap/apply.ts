import { and, eq, isNull, sql } from 'drizzle-orm'
import { transaction, type Storage } from '../client'
import {
  accounts,
  agents,
  apiKeyPolicies,
  apiKeys,
  deploymentBranches,
  deployments,
  embedTenants,
  groups,
  userAttributeDefinitions,
  users,
} from '../schema'
import { hashSecret } from '../../lib/secrets'
import { normalizeIdentity } from '../../plugins/auth/normalize-identity'
import { ROLE_ACTIONS } from '../../plugins/management/access-control'
import { BootstrapError } from './load'
import type { BootstrapAccount, BootstrapFile } from './model'

export interface BootstrapSummary {
  accounts: number
  apiKeys: number
  deployments: number
  agents: number
}

/**
 * Applies a validated bootstrap in one transaction: creates and updates what the file names, never deletes what it
 * does not. Applying the same file twice leaves the same rows. On any error nothing is written.
 */
export function applyBootstrap(
  storage: Storage,
  file: BootstrapFile,
  source: string,
  now = Date.now(),
): BootstrapSummary {
  const summary: BootstrapSummary = { accounts: 0, apiKeys: 0, deployments: 0, agents: 0 }
  transaction(storage, () => {
    file.accounts.forEach((account, index) =>
      applyAccount(storage, account, `accounts[${index}]`, source, now, summary),
    )
  })
  return summary
}

function applyAccount(
  storage: Storage,
  account: BootstrapAccount,
  at: string,
  source: string,
  now: number,
  summary: BootstrapSummary,
): void {
  const { db } = storage
  const values = {
    plan: account.plan,
    maxExternalUsers: account.maxExternalUsers ?? 10000,
    showDashboardChat: account.settings?.showDashboardChat ?? true,
  }
  const accountRow = db
    .insert(accounts)
    .values({ name: account.name, createdAt: now, ...values })
    .onConflictDoUpdate({ target: accounts.name, set: values })
    .returning({ id: accounts.id })
    .get()
  const accountId = accountRow.id
  summary.accounts++

  for (const [index, deployment] of (account.deployments ?? []).entries()) {
    const path = `${at}.deployments[${index}]`
    const existing = db
      .select({ accountId: deployments.accountId })
      .from(deployments)
      .where(eq(deployments.id, deployment.id))
      .get()
    if (existing && existing.accountId !== accountId)
      throw new BootstrapError(source, [`${path}.id: deployment ${deployment.id} already belongs to another account`])
    const deploymentValues = {
      name: deployment.name,
      model: deployment.model ?? 'demo',
      tokenAuthEnabled: deployment.tokenAuth?.enabled ?? false,
      tokenAuthSecret: deployment.tokenAuth?.secret ?? null,
    }
    db.insert(deployments)
      .values({ id: deployment.id, accountId, createdAt: now, ...deploymentValues })
      .onConflictDoUpdate({ target: deployments.id, set: deploymentValues })
      .run()
    summary.deployments++
    const branches = deployment.branches ?? ['main']
    // Branches are the deployment's whole list, so the file's list replaces the stored one.
    db.delete(deploymentBranches).where(eq(deploymentBranches.deploymentId, deployment.id)).run()
    branches.forEach((name, position) =>
      db
        .insert(deploymentBranches)
        .values({ deploymentId: deployment.id, name, isDefault: position === 0, position })
        .run(),
    )
    for (const [agentIndex, agent] of (deployment.agents ?? []).entries()) {
      const existingAgent = db
        .select({ deploymentId: agents.deploymentId })
        .from(agents)
        .where(eq(agents.id, agent.id))
        .get()
      if (existingAgent && existingAgent.deploymentId !== deployment.id)
        throw new BootstrapError(source, [
          `${path}.agents[${agentIndex}].id: agent ${agent.id} already belongs to another deployment`,
        ])
      const agentValues = { name: agent.name, kind: agent.kind ?? 'analyst', config: agent.config ?? null }
      db.insert(agents)
        .values({ id: agent.id, deploymentId: deployment.id, ...agentValues })
        .onConflictDoUpdate({ target: agents.id, set: agentValues })
        .run()
      summary.agents++
    }
  }

  for (const key of account.apiKeys ?? []) {
    const keyValues = {
      keyHash: hashSecret(key.key),
      keyPrefix: key.key.slice(0, 8),
      admin: key.admin ?? false,
      deploymentScope: key.deployments ?? null,
    }
    const existing = db
      .select({ id: apiKeys.id, revokedAt: apiKeys.revokedAt })
      .from(apiKeys)
      .where(and(eq(apiKeys.accountId, accountId), eq(apiKeys.name, key.name)))
      .get()
    const revokedAt = key.revoked ? (existing?.revokedAt ?? now) : null
    let keyId: number
    if (existing) {
      db.update(apiKeys)
        .set({ ...keyValues, revokedAt })
        .where(eq(apiKeys.id, existing.id))
        .run()
      keyId = existing.id
    } else {
      keyId = db
        .insert(apiKeys)
        .values({ accountId, name: key.name, createdAt: now, revokedAt, ...keyValues })
        .returning({ id: apiKeys.id })
        .get().id
    }
    // The file is the source of truth for the keys it names: a policy changed through the API (by mistake or by a
    // compromised key) is put back at the next start, so an operator can always recover the account's keys.
    if (key.role) {
      const actions = [...ROLE_ACTIONS[key.role]]
      const stored = db.select().from(apiKeyPolicies).where(eq(apiKeyPolicies.apiKeyId, keyId)).get()
      // Left alone when already right, so applying the same file twice leaves the same rows.
      if (stored?.role !== key.role || stored.actions.join() !== actions.join()) {
        const policy = { role: key.role, actions, updatedAt: now }
        db.insert(apiKeyPolicies)
          .values({ apiKeyId: keyId, ...policy })
          .onConflictDoUpdate({ target: apiKeyPolicies.apiKeyId, set: policy })
          .run()
      }
    } else {
      db.delete(apiKeyPolicies).where(eq(apiKeyPolicies.apiKeyId, keyId)).run()
    }
    summary.apiKeys++
  }

  for (const user of account.users ?? []) {
    db.insert(users)
      .values({
        accountId,
        kind: 'internal',
        identity: normalizeIdentity(user.username),
        createdAt: now,
        updatedAt: now,
      })
      .onConflictDoNothing()
      .run()
  }

  for (const group of account.groups ?? []) {
    const existing = db
      .select({ id: groups.id })
      .from(groups)
      .where(
        and(
          eq(groups.accountId, accountId),
          isNull(groups.embedTenantId),
          eq(groups.namespace, 'group'),
          eq(groups.name, group.name),
        ),
      )
      .get()
    if (existing) {
      if (group.description !== undefined)
        db.update(groups).set({ description: group.description }).where(eq(groups.id, existing.id)).run()
    } else {
      db.insert(groups)
        .values({ accountId, name: group.name, description: group.description ?? null, createdAt: now })
        .run()
    }
  }

  for (const [index, attribute] of (account.userAttributes ?? []).entries()) {
    const existing = db
      .select({ id: userAttributeDefinitions.id, type: userAttributeDefinitions.type })
      .from(userAttributeDefinitions)
      .where(
        and(
          eq(userAttributeDefinitions.accountId, accountId),
          isNull(userAttributeDefinitions.embedTenantId),
          eq(userAttributeDefinitions.name, attribute.name),
        ),
      )
      .get()
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
        db.update(userAttributeDefinitions).set(details).where(eq(userAttributeDefinitions.id, existing.id)).run()
    } else {
      db.insert(userAttributeDefinitions)
        .values({ accountId, name: attribute.name, type: attribute.type, createdAt: now, ...details })
        .run()
    }
  }

  for (const tenant of account.embedTenants ?? []) {
    const tenantValues = {
      useCreatorMode: tenant.useCreatorMode ?? false,
      ...(tenant.displayName !== undefined && { displayName: tenant.displayName }),
    }
    db.insert(embedTenants)
      .values({ accountId, name: tenant.name, createdAt: now, ...tenantValues })
      .onConflictDoUpdate({ target: [embedTenants.accountId, embedTenants.name], set: tenantValues })
      .run()
  }
}

/** True when the database holds no account yet (the demo bootstrap applies only then). */
export function isEmptyDatabase(storage: Storage): boolean {
  return (
    storage.db
      .select({ count: sql<number>`count(*)` })
      .from(accounts)
      .get()?.count === 0
  )
}
