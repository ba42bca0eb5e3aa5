import { describe, expect, it } from 'bun:test'
import { openStorage } from '../../../../db/sqlite/sqlite-storage'
import { sqliteThreadStores } from '../../../helpers/thread-stores'
import { threadStoreContract } from './thread-store-contract'

// On Postgres: test/e2e/db/repositories/threads/thread-store.test.ts.
threadStoreContract('SQLite', sqliteThreadStores)

describe('ThreadStore on SQLite, beside other transactions', () => {
  it('recovers interrupted runs after an open transaction, not inside it: its rollback keeps the recovery', async () => {
    const storage = openStorage(':memory:')
    try {
      const { accounts, deployments, agents, users } = storage.tables
      const owner = await storage.transaction(async (tx) => {
        const [account] = await tx
          .insert(accounts)
          .values({ name: 'acme', plan: 'enterprise', createdAt: 1 })
          .returning()
        const [deployment] = await tx
          .insert(deployments)
          .values({ accountId: account.id, name: 'Shop', model: 'demo', createdAt: 1 })
          .returning()
        const [agent] = await tx.insert(agents).values({ deploymentId: deployment.id, name: 'Analyst' }).returning()
        const [user] = await tx
          .insert(users)
          .values({ accountId: account.id, kind: 'external', identity: 'owner', createdAt: 1, updatedAt: 1 })
          .returning()
        return { accountId: account.id, deploymentId: deployment.id, agentId: agent.id, userId: user.id }
      })
      const before = storage.repositories.threads(Date.now)
      const runId = 'run-left-running'
      await before.startTurn({
        thread: { id: 'thread-1', ...owner },
        isNewThread: true,
        runId,
        messageId: 'message-1',
        branch: 'main',
        input: 'Hello',
        images: undefined,
        devMode: false,
      })

      // Another area's transaction is open (awaiting) when the recovery is asked for, and then fails.
      let proceed = () => undefined as void
      let opened = () => undefined as void
      const open = new Promise<void>((resolve) => (opened = resolve))
      const failing = storage
        .transaction(async (tx) => {
          await tx.insert(accounts).values({ name: 'rolled-back', plan: 'enterprise', createdAt: 1 })
          const waiting = new Promise<void>((resolve) => (proceed = resolve))
          opened()
          await waiting
          throw new Error('this transaction fails')
        })
        .catch((error: Error) => error.message)
      await open
      const recovered = storage.repositories.threads(Date.now).recoverInterruptedRuns()
      proceed()
      expect(await failing).toBe('this transaction fails')
      expect(await recovered).toBe(1)
      const { chatRuns } = storage.tables
      const [run] = await storage.db.select({ status: chatRuns.status }).from(chatRuns)
      expect(run.status).toBe('interrupted')
      expect(await storage.db.select().from(accounts)).toHaveLength(1)
    } finally {
      await storage.close()
    }
  })
})
