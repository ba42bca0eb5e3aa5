import type { Storage } from '../../db/client'

export interface DeploymentInfo {
  id: number
  accountId: number
  accountName: string
  name: string
  model: string
  tokenAuthEnabled: boolean
  tokenAuthSecret: string | null
  /** Branch names, the default first. */
  branches: string[]
  defaultBranch: string
}

export interface AgentInfo {
  id: number
  name: string
  kind: 'analyst' | 'scripted'
  config: Record<string, unknown> | null
  deployment: DeploymentInfo
}

export interface AccountInfo {
  id: number
  name: string
  plan: 'free' | 'starter' | 'premium' | 'enterprise'
  maxExternalUsers: number
  showDashboardChat: boolean
}

/**
 * Read-only lookups of accounts, deployments and agents with prepared statements, shared by every area that
 * needs to know where a request is going. Every chat request asks for its agent, deployment and account, so found
 * rows are kept in memory: these tables change only when the bootstrap is applied, at start, before the directory
 * is created. Whatever changes them while the server runs must call `forget()`.
 */
export function createDirectory(storage: Storage) {
  const { sqlite } = storage
  const deploymentById = sqlite.query<
    { id: number; accountId: number; accountName: string; name: string; model: string; tokenAuthEnabled: number; tokenAuthSecret: string | null },
    [number]
  >(
    `SELECT d.id AS id, d.account_id AS accountId, a.name AS accountName, d.name AS name, d.model AS model,
            d.token_auth_enabled AS tokenAuthEnabled, d.token_auth_secret AS tokenAuthSecret
       FROM deployments d JOIN accounts a ON a.id = d.account_id WHERE d.id = ?`,
  )
  const branchesOf = sqlite.query<{ name: string }, [number]>(
    'SELECT name FROM deployment_branches WHERE deployment_id = ? ORDER BY position',
  )
  const agentById = sqlite.query<{ id: number; name: string; kind: 'analyst' | 'scripted'; config: string | null; deploymentId: number }, [number]>(
    'SELECT id, name, kind, config, deployment_id AS deploymentId FROM agents WHERE id = ?',
  )
  const accountByName = sqlite.query<
    { id: number; name: string; plan: AccountInfo['plan']; maxExternalUsers: number; showDashboardChat: number },
    [string]
  >(
    'SELECT id, name, plan, max_external_users AS maxExternalUsers, show_dashboard_chat AS showDashboardChat FROM accounts WHERE name = ?',
  )
  const accountById = sqlite.query<
    { id: number; name: string; plan: AccountInfo['plan']; maxExternalUsers: number; showDashboardChat: number },
    [number]
  >(
    'SELECT id, name, plan, max_external_users AS maxExternalUsers, show_dashboard_chat AS showDashboardChat FROM accounts WHERE id = ?',
  )

  const toAccount = (row: { id: number; name: string; plan: AccountInfo['plan']; maxExternalUsers: number; showDashboardChat: number }): AccountInfo => ({
    ...row,
    showDashboardChat: row.showDashboardChat === 1,
  })

  /** Only rows that exist are kept: a lookup of an unknown id or name always asks the database. */
  const cache = {
    deployments: new Map<number, DeploymentInfo>(),
    agents: new Map<number, AgentInfo>(),
    accountsByName: new Map<string, AccountInfo>(),
    accounts: new Map<number, AccountInfo>(),
  }
  const remembered = <K, V>(map: Map<K, V>, key: K, load: () => V | undefined): V | undefined => {
    const known = map.get(key)
    if (known !== undefined) return known
    const value = load()
    if (value !== undefined) map.set(key, value)
    return value
  }

  function deployment(id: number): DeploymentInfo | undefined {
    return remembered(cache.deployments, id, () => {
      const row = deploymentById.get(id)
      if (!row) return undefined
      const branches = branchesOf.all(id).map((branch) => branch.name)
      if (branches.length === 0) branches.push('main')
      return { ...row, tokenAuthEnabled: row.tokenAuthEnabled === 1, branches, defaultBranch: branches[0] }
    })
  }

  return {
    deployment,
    agent(id: number): AgentInfo | undefined {
      return remembered(cache.agents, id, () => {
        const row = agentById.get(id)
        if (!row) return undefined
        const owner = deployment(row.deploymentId)
        if (!owner) return undefined
        return { id: row.id, name: row.name, kind: row.kind, config: row.config ? JSON.parse(row.config) : null, deployment: owner }
      })
    },
    accountByName(name: string): AccountInfo | undefined {
      return remembered(cache.accountsByName, name, () => {
        const row = accountByName.get(name)
        return row ? toAccount(row) : undefined
      })
    },
    account(id: number): AccountInfo | undefined {
      return remembered(cache.accounts, id, () => {
        const row = accountById.get(id)
        return row ? toAccount(row) : undefined
      })
    },
    /** Drops what is kept in memory (after the tables changed). */
    forget(): void {
      for (const map of Object.values(cache)) map.clear()
    },
  }
}

export type Directory = ReturnType<typeof createDirectory>
