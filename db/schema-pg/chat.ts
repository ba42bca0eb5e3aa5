import { sql } from 'drizzle-orm'
import { check, index, integer, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core'
import { jsonText, ms } from './columns'
import { accounts, agents, deployments, users } from './foundation'

/** Chat threads, their messages and runs (the SQLite `chat` tables). */
export const chatThreads = pgTable(
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
     * 0003_lease_epoch).
     */
    leaseEpoch: integer('lease_epoch').notNull().default(0),
    createdAt: ms('created_at').notNull(),
    updatedAt: ms('updated_at').notNull(),
  },
  (table) => [
    index('chat_threads_user').on(table.userId, table.agentId, table.updatedAt),
    index('chat_threads_deployment').on(table.deploymentId),
  ],
)

export const chatMessages = pgTable(
  'chat_messages',
  {
    threadId: text('thread_id')
      .notNull()
      .references(() => chatThreads.id, { onDelete: 'cascade' }),
    id: text('id').notNull(),
    sort: integer('sort').notNull(),
    role: text('role', { enum: ['user', 'assistant'] }).notNull(),
    content: text('content').notNull().default(''),
    graphPath: jsonText<string[]>('graph_path'),
    thinking: text('thinking'),
    toolCall: jsonText<{ name: string; input: string; result?: string }>('tool_call'),
    attachments: jsonText<Array<{ mimeType: string; data: string; name?: string }>>('attachments'),
    status: text('status', { enum: ['complete', 'in_process', 'interrupted'] })
      .notNull()
      .default('complete'),
    runId: text('run_id'),
    createdAt: ms('created_at').notNull(),
    updatedAt: ms('updated_at').notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.threadId, table.id] }),
    uniqueIndex('chat_messages_thread_sort').on(table.threadId, table.sort),
    index('chat_messages_id')
      .on(table.id)
      .where(sql`${table.role} = 'user'`),
    index('chat_messages_in_process')
      .on(table.status)
      .where(sql`${table.status} = 'in_process'`),
    check('chat_messages_role', sql`${table.role} IN ('user', 'assistant')`),
    check('chat_messages_status', sql`${table.status} IN ('complete', 'in_process', 'interrupted')`),
  ],
)

export const chatRuns = pgTable(
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
    startedAt: ms('started_at').notNull(),
    endedAt: ms('ended_at'),
  },
  (table) => [
    index('chat_runs_thread').on(table.threadId),
    index('chat_runs_running')
      .on(table.status)
      .where(sql`${table.status} = 'running'`),
    check('chat_runs_status', sql`${table.status} IN ('running', 'completed', 'failed', 'aborted', 'interrupted')`),
  ],
)
