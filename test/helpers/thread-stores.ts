import { eq } from 'drizzle-orm'
import { first, type Storage } from '../../db/client'
import { openStorage } from '../../db/sqlite/sqlite-storage'
import { openPostgresStorage } from '../../db/postgres/postgres-storage'
import { markRunInterrupted, runningRuns } from '../../plugins/chat/registry/interrupted-runs'
import type { ThreadRow, ThreadStore } from '../../db/repositories/threads'
import { throwawayPostgresDatabase } from './postgres-databases'

/** A database holding one account, deployment and agent with two users, and a way to read what the store wrote. */
export interface ThreadStoreHarness {
  /** A new store on the database, as a process starting after another would make it. */
  store(clock?: () => number): ThreadStore
  owner: Omit<ThreadRow, 'id'>
  otherUserId: number
  run(runId: string): Promise<{ status: string; error: string | null; endedAt: number | null } | undefined>
  /** What a node does to a run whose owner stopped renewing its lease (see `markRunInterrupted`). */
  interrupt(runId: string, now: number, end?: Parameters<typeof markRunInterrupted>[3]): Promise<boolean>
  /** The id of the thread's run storage holds as running, if any. */
  runningRunOf(threadId: string): Promise<string | undefined>
  close(): Promise<void>
}

/** Seeds the owner rows a thread refers to, through the dialect-free API. */
export async function seedThreadOwner(storage: Storage): Promise<Omit<ThreadRow, 'id'>> {
  return (await seed(storage)).owner
}

async function seed(storage: Storage) {
  const { accounts, deployments, agents, users } = storage.tables
  return storage.transaction(async (tx) => {
    const [account] = await tx.insert(accounts).values({ name: 'acme', plan: 'enterprise', createdAt: 1 }).returning()
    const [deployment] = await tx
      .insert(deployments)
      .values({ accountId: account.id, name: 'Shop', model: 'demo', createdAt: 1 })
      .returning()
    const [agent] = await tx.insert(agents).values({ deploymentId: deployment.id, name: 'Analyst' }).returning()
    const [owner, other] = await tx
      .insert(users)
      .values(
        ['owner', 'other'].map((identity) => ({
          accountId: account.id,
          kind: 'external' as const,
          identity,
          createdAt: 1,
          updatedAt: 1,
        })),
      )
      .returning()
    return {
      owner: { accountId: account.id, deploymentId: deployment.id, agentId: agent.id, userId: owner.id },
      otherUserId: other.id,
    }
  })
}

/** An in-memory SQLite database, migrated and seeded. */
export async function sqliteThreadStores(): Promise<ThreadStoreHarness> {
  const storage = openStorage(':memory:')
  return {
    ...(await seed(storage)),
    ...harnessOf(storage),
    close: () => storage.close(),
  }
}

/** A fresh database on the run's throwaway Postgres server, migrated and seeded; dropped by `close()`. */
export async function postgresThreadStores(): Promise<ThreadStoreHarness> {
  const database = await throwawayPostgresDatabase()
  const storage = await openPostgresStorage(database.url, { poolSize: 4 })
  return {
    ...(await seed(storage)),
    ...harnessOf(storage),
    async close() {
      await storage.close()
      await database.drop()
    },
  }
}

/** What both backends' harnesses read and do through the storage's dialect-free API. */
function harnessOf(storage: Storage): Pick<ThreadStoreHarness, 'store' | 'run' | 'interrupt' | 'runningRunOf'> {
  const { chatRuns } = storage.tables
  return {
    store: (clock = Date.now) => storage.repositories.threads(clock),
    run: (runId) =>
      first(
        storage.db
          .select({ status: chatRuns.status, error: chatRuns.error, endedAt: chatRuns.endedAt })
          .from(chatRuns)
          .where(eq(chatRuns.id, runId)),
      ),
    interrupt: (runId, now, end) => markRunInterrupted(storage, runId, now, end),
    runningRunOf: async (threadId) => (await runningRuns(storage)).find((run) => run.threadId === threadId)?.id,
  }
}
