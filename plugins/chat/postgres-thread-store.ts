import type { SQL } from 'bun'
import type { Storage } from '../../db/client'
import { createPostgresWriteBatch, type PostgresTransaction } from '../../db/postgres-write-batch'
import {
  RESTART_ERROR,
  threadTitle,
  toThreadMessage,
  userMessageOf,
  type MessageRow,
  type MessageSave,
  type NewTurn,
  type StartedTurn,
  type ThreadRow,
  type ThreadStore,
} from './thread-store'

/** The pool under the storage's drizzle database (drizzle keeps the client it was given as `$client`). */
function postgresClientOf(storage: Storage): SQL {
  return (storage.db as unknown as { $client: SQL }).$client
}

/**
 * The thread store on Postgres, through Bun's SQL client (tagged statements: prepared once per connection and
 * reused, without drizzle's per-call query building on the hot path). Reads go to the pool; writes go through the
 * Postgres group commit, so concurrent turns share one transaction's round trips.
 */
export function createPostgresThreadStore(storage: Storage, clock: () => number): ThreadStore {
  const client = postgresClientOf(storage)
  const batch = createPostgresWriteBatch(client)

  const messagesOf = async (sql: SQL, threadId: string, devMode: boolean) => {
    const rows: MessageRow[] = await sql`
      SELECT id, sort, role, content, graph_path AS "graphPath", thinking, tool_call AS "toolCall", attachments, status
        FROM chat_messages WHERE thread_id = ${threadId} ORDER BY sort`
    return rows.map((row) => toThreadMessage(row, devMode))
  }

  // Sent together, without waiting for each other's answers (one connection runs them in order): the history is
  // read before the user message is inserted, and its sort follows the history's last one.
  const startTurnWrites = async (tx: PostgresTransaction, turn: NewTurn, now: number): Promise<StartedTurn> => {
    const { thread } = turn
    const attachments = turn.images?.length ? JSON.stringify(turn.images) : null
    // The start raises the thread's lease epoch: the writes of any run before it are refused from now on.
    const [history, touched] = await Promise.all([
      turn.isNewThread ? [] : messagesOf(tx, thread.id, turn.devMode),
      turn.isNewThread
        ? tx`INSERT INTO chat_threads (id, account_id, deployment_id, agent_id, user_id, title, created_at, updated_at, lease_epoch)
             VALUES (${thread.id}, ${thread.accountId}, ${thread.deploymentId}, ${thread.agentId}, ${thread.userId},
                     ${threadTitle(turn.input)}, ${now}, ${now}, 1)`
        : (tx`UPDATE chat_threads SET updated_at = ${now}, lease_epoch = lease_epoch + 1 WHERE id = ${thread.id}
              RETURNING lease_epoch AS epoch` as Promise<Array<{ epoch: number }>>),
      tx`INSERT INTO chat_runs (id, thread_id, message_id, branch, status, started_at)
         VALUES (${turn.runId}, ${thread.id}, ${turn.messageId}, ${turn.branch}, 'running', ${now})`,
      tx`INSERT INTO chat_messages (thread_id, id, sort, role, content, attachments, status, run_id, created_at, updated_at)
         SELECT ${thread.id}, ${turn.messageId}, coalesce(max(sort), 0) + 1, 'user', ${turn.input}, ${attachments},
                'complete', ${turn.runId}, ${now}, ${now}
           FROM chat_messages WHERE thread_id = ${thread.id}`,
    ])
    const sort = (history.at(-1)?.sort ?? 0) + 1
    const epoch = turn.isNewThread ? 1 : ((touched as Array<{ epoch: number }>)[0]?.epoch ?? 0)
    return { history, userMessage: userMessageOf(turn, sort), nextSort: sort + 1, epoch }
  }

  // Every message of the commit in one statement (one round trip however many runs are streaming), as one JSON
  // parameter (one statement text, prepared once, whatever the number of rows). Fencing: a thread's rows are written
  // only while its lease epoch is still the one the run started with, and the threads checked are locked FOR SHARE
  // until the commit, so a node interrupting a run in its owner's place (it raises the epoch first) either waits
  // for this commit or makes it refuse the rows; the statement returns the threads refused.
  const saveWrites = async (tx: PostgresTransaction, saves: MessageSave[]): Promise<ReadonlySet<string>> => {
    if (saves.length === 0) return new Set()
    const rows = saves.map((message) => ({
      thread_id: message.threadId,
      id: message.id,
      sort: message.sort,
      content: message.content,
      thinking: message.thinking,
      graph_path: message.graphPath,
      tool_call: message.toolCall,
      status: message.status,
      run_id: message.runId,
      created_at: message.createdAt,
      updated_at: message.updatedAt,
      epoch: message.epoch,
    }))
    const refused: Array<{ threadId: string }> = await tx`
      WITH v AS (
        SELECT * FROM json_to_recordset(${JSON.stringify(rows)}::text::json) AS v(thread_id text, id text, sort integer,
          content text, thinking text, graph_path text, tool_call text, status text, run_id text, created_at bigint,
          updated_at bigint, epoch integer)
      ), held AS (
        SELECT t.id FROM chat_threads t WHERE (t.id, t.lease_epoch) IN (SELECT thread_id, epoch FROM v) FOR SHARE
      ), saved AS (
        INSERT INTO chat_messages (thread_id, id, sort, role, content, thinking, graph_path, tool_call, status, run_id,
                                   created_at, updated_at)
        SELECT thread_id, id, sort, 'assistant', content, thinking, graph_path, tool_call, status, run_id, created_at,
               updated_at
          FROM v WHERE thread_id IN (SELECT id FROM held)
        ON CONFLICT (thread_id, id) DO UPDATE SET
          content = chat_messages.content || excluded.content, thinking = excluded.thinking,
          graph_path = excluded.graph_path, tool_call = excluded.tool_call, status = excluded.status,
          updated_at = excluded.updated_at
      )
      SELECT DISTINCT thread_id AS "threadId" FROM v WHERE thread_id NOT IN (SELECT id FROM held)`
    return new Set(refused.map((row) => row.threadId))
  }

  return {
    async thread(id) {
      const rows: ThreadRow[] = await client`
        SELECT id, account_id AS "accountId", deployment_id AS "deploymentId", agent_id AS "agentId", user_id AS "userId"
          FROM chat_threads WHERE id = ${id}`
      return rows[0]
    },
    messages: (threadId, devMode) => messagesOf(client, threadId, devMode),
    async threadOfUserMessage(userId, agentId, messageId) {
      // From the message id (index chat_messages_id) to its thread, not from the user's threads.
      const rows: Array<{ threadId: string }> = await client`
        SELECT m.thread_id AS "threadId" FROM chat_messages m JOIN chat_threads t ON t.id = m.thread_id
         WHERE m.id = ${messageId} AND m.role = 'user' AND t.user_id = ${userId} AND t.agent_id = ${agentId}
         LIMIT 1`
      return rows[0]?.threadId
    },
    // A batch's work may run twice (see `createPostgresWriteBatch`): what it takes from memory is taken once.
    startTurn(turn) {
      const now = clock()
      return batch.run((tx) => startTurnWrites(tx, turn, now))
    },
    endRun(runId, epoch, status, error) {
      const now = clock()
      // Fenced as the saves are: only while the thread's lease epoch is the run's, its row locked until the commit.
      return batch.run(async (tx) => {
        const ended = await tx`
          WITH held AS (
            SELECT t.id FROM chat_threads t JOIN chat_runs r ON r.thread_id = t.id
             WHERE r.id = ${runId} AND t.lease_epoch = ${epoch} FOR SHARE OF t
          )
          UPDATE chat_runs SET status = ${status}, error = ${error ?? null}, ended_at = ${now}
           WHERE id = ${runId} AND thread_id IN (SELECT id FROM held)`
        return ended.count === 1
      })
    },
    saveMessages(take) {
      let saves: MessageSave[] | undefined
      return batch.run((tx) => saveWrites(tx, (saves ??= take())))
    },
    flushWrites: () => batch.flush(),
    async recoverInterruptedRuns() {
      const now = clock()
      return client.begin(async (tx) => {
        // First, so a writer still alive is refused from here on (its writes lock the thread rows they check).
        await tx`UPDATE chat_threads SET lease_epoch = lease_epoch + 1
                  WHERE id IN (SELECT thread_id FROM chat_runs WHERE status = 'running')`
        await tx`UPDATE chat_messages SET status = 'interrupted', updated_at = ${now} WHERE status = 'in_process'`
        // Each running run's last answer, through the (thread_id, sort) index.
        await tx`
          UPDATE chat_messages SET status = 'interrupted', updated_at = ${now}
           WHERE (thread_id, sort) IN (
             SELECT r.thread_id, (SELECT max(m.sort) FROM chat_messages m
                                   WHERE m.thread_id = r.thread_id AND m.run_id = r.id AND m.role = 'assistant')
               FROM chat_runs r WHERE r.status = 'running')`
        const ended = await tx`
          UPDATE chat_runs SET status = 'interrupted', ended_at = ${now}, error = ${RESTART_ERROR}
           WHERE status = 'running'`
        return ended.count as number
      })
    },
  }
}
