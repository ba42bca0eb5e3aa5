import { SQL } from 'bun'
import { openStorage, type Storage } from '../../db/client'
import { createThreadStore } from '../../plugins/chat/create-thread-store'
import type { ThreadRow, ThreadStore } from '../../plugins/chat/thread-store'
import { postgresServer } from './database-servers'

/** A database holding one account, deployment and agent with two users, and a way to read what the store wrote. */
export interface ThreadStoreHarness {
  /** A new store on the database, as a process starting after another would make it. */
  store(clock?: () => number): ThreadStore
  owner: Omit<ThreadRow, 'id'>
  otherUserId: number
  run(runId: string): Promise<{ status: string; error: string | null; endedAt: number | null } | undefined>
  close(): Promise<void>
}

/** Seeds the owner rows a thread refers to, through the dialect-free API. */
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
  const runOf = storage.sqlite.query<{ status: string; error: string | null; endedAt: number | null }, [string]>(
    'SELECT status, error, ended_at AS endedAt FROM chat_runs WHERE id = ?',
  )
  return {
    ...(await seed(storage)),
    store: (clock = Date.now) => createThreadStore(storage, clock),
    run: async (runId) => runOf.get(runId) ?? undefined,
    close: () => storage.close(),
  }
}

// The chat tables as the Postgres migrations create them (the owner tables are not needed: ids are plain numbers
// here). A fresh database per file, dropped at the end.
const CHAT_TABLES = `
CREATE TABLE chat_threads (id text PRIMARY KEY, account_id integer NOT NULL, deployment_id integer NOT NULL,
  agent_id integer NOT NULL, user_id integer NOT NULL, title text, created_at bigint NOT NULL, updated_at bigint NOT NULL);
CREATE TABLE chat_messages (thread_id text NOT NULL REFERENCES chat_threads(id) ON DELETE CASCADE, id text NOT NULL,
  sort integer NOT NULL, role text NOT NULL CHECK (role IN ('user', 'assistant')), content text DEFAULT '' NOT NULL,
  graph_path text, thinking text, tool_call text, attachments text,
  status text DEFAULT 'complete' NOT NULL CHECK (status IN ('complete', 'in_process', 'interrupted')),
  run_id text, created_at bigint NOT NULL, updated_at bigint NOT NULL, PRIMARY KEY (thread_id, id));
CREATE UNIQUE INDEX chat_messages_thread_sort ON chat_messages (thread_id, sort);
CREATE INDEX chat_messages_id ON chat_messages (id) WHERE role = 'user';
CREATE INDEX chat_messages_in_process ON chat_messages (status) WHERE status = 'in_process';
CREATE TABLE chat_runs (id text PRIMARY KEY, thread_id text NOT NULL REFERENCES chat_threads(id) ON DELETE CASCADE,
  message_id text NOT NULL, branch text NOT NULL,
  status text NOT NULL CHECK (status IN ('running', 'completed', 'failed', 'aborted', 'interrupted')),
  error text, started_at bigint NOT NULL, ended_at bigint);
CREATE INDEX chat_runs_thread ON chat_runs (thread_id);
CREATE INDEX chat_runs_running ON chat_runs (status) WHERE status = 'running';
`

/** A fresh database on the run's throwaway Postgres server, with the chat tables; dropped by `close()`. */
export async function postgresThreadStores(): Promise<ThreadStoreHarness> {
  const server = await postgresServer()
  const database = `chat_store_${process.pid}_${Date.now()}_${Math.floor(Math.random() * 1e6)}`
  const admin = new SQL(server.url, { max: 1 })
  await admin.unsafe(`CREATE DATABASE ${database}`)
  const url = server.url.replace(/\/[^/]+$/, `/${database}`)
  const client = new SQL(url, { max: 4 })
  await client.unsafe(CHAT_TABLES)
  // What the thread store uses of a Postgres storage: its dialect and the pool under its drizzle database.
  const storage = { dialect: 'postgres', db: { $client: client } } as unknown as Storage
  return {
    owner: { accountId: 1, deploymentId: 1, agentId: 1, userId: 1 },
    otherUserId: 2,
    store: (clock = Date.now) => createThreadStore(storage, clock),
    async run(runId) {
      const rows: Array<{ status: string; error: string | null; endedAt: string | null }> =
        await client`SELECT status, error, ended_at AS "endedAt" FROM chat_runs WHERE id = ${runId}`
      return rows[0] && { ...rows[0], endedAt: rows[0].endedAt === null ? null : Number(rows[0].endedAt) }
    },
    async close() {
      await client.close()
      await admin.unsafe(`DROP DATABASE ${database}`)
      await admin.close()
    },
  }
}
