import { sql } from 'drizzle-orm'
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { accounts, agents, deployments, users } from './foundation'

/** Chat threads, their messages and runs (migration 0002). */
export const chatThreads = sqliteTable(
  'chat_threads',
  {
    id: text('id').primaryKey(),
    accountId: integer('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    deploymentId: integer('deployment_id')
      .notNull()
      .references(() => deployments.id, { onDelete: 'cascade' }),
    agentId: integer('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    title: text('title'),
    /**
     * The fencing token of the thread's writer: raised by each run's start and by a node that interrupts a run in its
     * owner's place; a run's writes carry the value its start got and are refused once it has moved on (migration
     * 0007).
     */
    leaseEpoch: integer('lease_epoch').notNull().default(0),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (table) => [
    index('chat_threads_user').on(table.userId, table.agentId, table.updatedAt),
    index('chat_threads_deployment').on(table.deploymentId),
  ],
)

export const chatMessages = sqliteTable(
  'chat_messages',
  {
    threadId: text('thread_id')
      .notNull()
      .references(() => chatThreads.id, { onDelete: 'cascade' }),
    id: text('id').notNull(),
    sort: integer('sort').notNull(),
    role: text('role', { enum: ['user', 'assistant'] }).notNull(),
    content: text('content').notNull().default(''),
    graphPath: text('graph_path', { mode: 'json' }).$type<string[]>(),
    thinking: text('thinking'),
    toolCall: text('tool_call', { mode: 'json' }).$type<{ name: string; input: string; result?: string }>(),
    attachments: text('attachments', { mode: 'json' }).$type<
      Array<{ mimeType: string; data: string; name?: string }>
    >(),
    status: text('status', { enum: ['complete', 'in_process', 'interrupted'] })
      .notNull()
      .default('complete'),
    runId: text('run_id'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.threadId, table.id] }),
    uniqueIndex('chat_messages_thread_sort').on(table.threadId, table.sort),
    // Migration 0005: a user's messageId is found without knowing its thread.
    index('chat_messages_id')
      .on(table.id)
      .where(sql`${table.role} = 'user'`),
    index('chat_messages_in_process')
      .on(table.status)
      .where(sql`${table.status} = 'in_process'`),
  ],
)

export const chatRuns = sqliteTable(
  'chat_runs',
  {
    id: text('id').primaryKey(),
    threadId: text('thread_id')
      .notNull()
      .references(() => chatThreads.id, { onDelete: 'cascade' }),
    messageId: text('message_id').notNull(),
    branch: text('branch').notNull(),
    status: text('status', { enum: ['running', 'completed', 'failed', 'aborted', 'interrupted'] }).notNull(),
    error: text('error'),
    startedAt: integer('started_at').notNull(),
    endedAt: integer('ended_at'),
  },
  (table) => [
    index('chat_runs_thread').on(table.threadId),
    index('chat_runs_running')
      .on(table.status)
      .where(sql`${table.status} = 'running'`),
  ],
)
