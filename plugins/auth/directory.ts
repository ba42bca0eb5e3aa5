import { eq, isNotNull, sql } from 'drizzle-orm'
import type { Storage } from '../../db/client'
import type { ClusterBus } from '../../lib/cluster-bus'
import type { accounts, agents, deployments } from '../../db/schema'

/** A deployment as every area sees it: its row, its account's name and its branches. */
export type DeploymentInfo = Pick<
  typeof deployments.$inferSelect,
  'id' | 'accountId' | 'name' | 'model' | 'tokenAuthEnabled' | 'tokenAuthSecret'
> & {
  accountName: string
  /** Branch names, the default first. */
  branches: string[]
  defaultBranch: string
}

export type AgentInfo = Pick<typeof agents.$inferSelect, 'id' | 'name' | 'kind'> & {
  config: Record<string, unknown> | null
  deployment: DeploymentInfo
}

export type AccountInfo = Pick<
  typeof accounts.$inferSelect,
  'id' | 'name' | 'plan' | 'maxExternalUsers' | 'showDashboardChat'
>

/**
 * How long a node that shares its storage with others answers from the accounts, deployments and agents it keeps in
 * memory: another node's start may apply a bootstrap file that changes them (a plan, a deployment's service-token
 * secret or switch). The change is announced over the cluster bus (`bootstrap-applied`); this bounds it should the
 * announcement be lost.
 */
export const DIRECTORY_MAX_AGE_MS = 5_000

/**
 * Read-only lookups of accounts, deployments and agents with prepared statements, shared by every area that
 * needs to know where a request is going. Every chat request asks for its agent, deployment and account, so found
 * rows are kept in memory: these tables change only when the bootstrap is applied, at a start. One process applied
 * it before the directory existed, so it keeps them for good; several nodes (a `shared` cluster bus) read them again
 * when another node's start announces it applied the bootstrap, and at least every `DIRECTORY_MAX_AGE_MS`.
 * Whatever else changes them while the server runs must call `forget()`.
 */
export function createDirectory(
  storage: Storage,
  cluster?: { bus: Pick<ClusterBus, 'shared' | 'subscribe'>; clock: () => number },
) {
  const { db } = storage
  const { accounts, agents, deploymentBranches, deployments } = storage.tables
  const deploymentById = db
    .select({
      id: deployments.id,
      accountId: deployments.accountId,
      accountName: accounts.name,
      name: deployments.name,
      model: deployments.model,
      tokenAuthEnabled: deployments.tokenAuthEnabled,
      tokenAuthSecret: deployments.tokenAuthSecret,
    })
    .from(deployments)
    .innerJoin(accounts, eq(accounts.id, deployments.accountId))
    .where(eq(deployments.id, sql.placeholder('id')))
    .prepare()
  const branchesOf = db
    .select({ name: deploymentBranches.name })
    .from(deploymentBranches)
    .where(eq(deploymentBranches.deploymentId, sql.placeholder('id')))
    .orderBy(deploymentBranches.position)
    .prepare()
  const agentById = db
    .select({
      id: agents.id,
      name: agents.name,
      kind: agents.kind,
      config: agents.config,
      deploymentId: agents.deploymentId,
    })
    .from(agents)
    .where(eq(agents.id, sql.placeholder('id')))
    .prepare()
  const accountColumns = {
    id: accounts.id,
    name: accounts.name,
    plan: accounts.plan,
    maxExternalUsers: accounts.maxExternalUsers,
    showDashboardChat: accounts.showDashboardChat,
  }
  const accountByName = db
    .select(accountColumns)
    .from(accounts)
    .where(eq(accounts.name, sql.placeholder('name')))
    .prepare()
  const accountById = db
    .select(accountColumns)
    .from(accounts)
    .where(eq(accounts.id, sql.placeholder('id')))
    .prepare()

  const tokenSecretRows = db
    .select({ id: deployments.id, accountId: deployments.accountId, secret: deployments.tokenAuthSecret })
    .from(deployments)
    .where(isNotNull(deployments.tokenAuthSecret))
    .prepare()
  let tokenSecrets: Promise<Array<{ id: number; accountId: number; secret: string }>> | undefined
  let tokenSecretsReadAt = 0

  type Remembered<V> = { value: V; readAt: number }
  /** Only rows that exist are kept: a lookup of an unknown id or name always asks the database. */
  const cache = {
    deployments: new Map<number, Remembered<DeploymentInfo>>(),
    agents: new Map<number, Remembered<AgentInfo>>(),
    accountsByName: new Map<string, Remembered<AccountInfo>>(),
    accounts: new Map<number, Remembered<AccountInfo>>(),
  }
  const shared = cluster?.bus.shared === true
  const now = cluster?.clock ?? (() => 0)
  const fresh = (readAt: number) => !shared || now() - readAt < DIRECTORY_MAX_AGE_MS
  // Raised by `forget`: a read under way then may hold a row as it was, and is not kept.
  let generation = 0
  // A remembered row is answered without a query; every request of a running server finds its rows here.
  const remembered = async <K, V>(map: Map<K, Remembered<V>>, key: K, load: () => Promise<V | undefined>) => {
    const known = map.get(key)
    if (known !== undefined && fresh(known.readAt)) return known.value
    const readAt = now()
    const readIn = generation
    const value = await load()
    if (value !== undefined && readIn === generation) map.set(key, { value, readAt })
    return value
  }
  const forget = () => {
    generation++
    for (const map of Object.values(cache)) map.clear()
    tokenSecrets = undefined
  }
  if (cluster && shared)
    cluster.bus.subscribe((event) => {
      // Back on the bus after losing it: announcements made meanwhile never came.
      if (event.type === 'bootstrap-applied' || event.type === 'embed-sessions-recheck') forget()
    })

  function deployment(id: number): Promise<DeploymentInfo | undefined> {
    return remembered(cache.deployments, id, async () => {
      const [row] = await deploymentById.execute({ id })
      if (!row) return undefined
      const branches = (await branchesOf.execute({ id })).map((branch) => branch.name)
      if (branches.length === 0) branches.push('main')
      return { ...row, branches, defaultBranch: branches[0] }
    })
  }

  return {
    deployment,
    agent(id: number): Promise<AgentInfo | undefined> {
      return remembered(cache.agents, id, async () => {
        const [row] = await agentById.execute({ id })
        if (!row) return undefined
        const owner = await deployment(row.deploymentId)
        if (!owner) return undefined
        return { id: row.id, name: row.name, kind: row.kind, config: row.config ?? null, deployment: owner }
      })
    },
    accountByName(name: string): Promise<AccountInfo | undefined> {
      return remembered(cache.accountsByName, name, async () => (await accountByName.execute({ name }))[0])
    },
    account(id: number): Promise<AccountInfo | undefined> {
      return remembered(cache.accounts, id, async () => (await accountById.execute({ id }))[0])
    },
    /**
     * The service-token secrets of the deployments (taking tokens or not), to tell a token genuine for another
     * deployment (403) from one that is not genuine (401). Read once, then kept until `forget`.
     */
    tokenSecrets(): Promise<Array<{ id: number; accountId: number; secret: string }>> {
      if (tokenSecrets && !fresh(tokenSecretsReadAt)) tokenSecrets = undefined
      if (!tokenSecrets) tokenSecretsReadAt = now()
      tokenSecrets ??= tokenSecretRows
        .execute()
        .then((rows) =>
          rows.flatMap((row) => (row.secret ? [{ id: row.id, accountId: row.accountId, secret: row.secret }] : [])),
        )
      tokenSecrets.catch(() => (tokenSecrets = undefined))
      return tokenSecrets
    },
    /** Drops what is kept in memory (after the tables changed). */
    forget,
  }
}

export type Directory = ReturnType<typeof createDirectory>
