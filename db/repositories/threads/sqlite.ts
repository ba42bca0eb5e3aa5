import type { RawRow } from '../../raw-row'
import type { chatMessages } from '../../schema'
import type { SqliteConnection } from '../../sqlite/sqlite-connection'
import { writeBatchOf } from '../../sqlite/write-batch'
import {
  RESTART_ERROR,
  MessageStored,
  threadTitle,
  toThreadMessage,
  userMessageOf,
  type MessageRow,
  type MessageSave,
  type NewTurn,
  type StartedTurn,
  type ThreadRow,
  type ThreadStore,
} from '.'

type StoredMessage = RawRow<typeof chatMessages>

/**
 * The thread store on SQLite, through prepared statements: bun:sqlite is synchronous, so reads answer at once (the
 * promises are already settled) and the writes of concurrent turns share one commit of the write batch.
 */
export function createSqliteThreadStore(connection: SqliteConnection, clock: () => number): ThreadStore {
  const { sqlite, lock } = connection
  const threadById = sqlite.query<ThreadRow, [string]>(
    'SELECT id, account_id AS accountId, deployment_id AS deploymentId, agent_id AS agentId, user_id AS userId FROM chat_threads WHERE id = ?',
  )
  const insertThread = sqlite.query<never, [string, number, number, number, number, string | null, number, number]>(
    'INSERT INTO chat_threads (id, account_id, deployment_id, agent_id, user_id, title, created_at, updated_at, lease_epoch) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1)',
  )
  const putThread = (thread: ThreadRow, title: string | null, now: number) =>
    insertThread.run(thread.id, thread.accountId, thread.deploymentId, thread.agentId, thread.userId, title, now, now)
  // A turn's start raises the thread's lease epoch: the writes of any run before it are refused from now on.
  const touchThread = sqlite.query<{ epoch: number }, [number, string]>(
    'UPDATE chat_threads SET updated_at = ?, lease_epoch = lease_epoch + 1 WHERE id = ? RETURNING lease_epoch AS epoch',
  )
  const messagesOf = sqlite.query<MessageRow, [string]>(
    `SELECT id, sort, role, content, graph_path AS graphPath, thinking, tool_call AS toolCall, attachments, status
       FROM chat_messages WHERE thread_id = ? ORDER BY sort`,
  )
  // Written so SQLite starts from the message id (index chat_messages_id), not from the user's threads (a user with
  // thousands of threads would cost a lookup per thread on every request naming a messageId), and with a scalar
  // subquery rather than EXISTS or a JOIN, which cost about ten times as much per execution in this SQLite.
  const userMessage = sqlite.query<Pick<StoredMessage, 'threadId'>, [string, number, number]>(
    `SELECT m.thread_id AS threadId FROM chat_messages m
      WHERE m.id = ?1 AND m.role = 'user'
        AND (SELECT user_id = ?2 AND agent_id = ?3 FROM chat_threads t WHERE t.id = m.thread_id)
      LIMIT 1`,
  )
  const insertUserMessage = sqlite.query<
    never,
    [string, string, number, string, string | null, string, number, number]
  >(
    `INSERT INTO chat_messages (thread_id, id, sort, role, content, attachments, status, run_id, created_at, updated_at)
     VALUES (?, ?, ?, 'user', ?, ?, 'complete', ?, ?, ?)`,
  )
  // Written only while the thread's lease epoch is still the run's (fencing): nothing changes otherwise.
  const saveMessage = sqlite.query<
    never,
    [string, string, number, string, string | null, string, string | null, string, string, number, number, number]
  >(
    `INSERT INTO chat_messages (thread_id, id, sort, role, content, thinking, graph_path, tool_call, status, run_id, created_at, updated_at)
     SELECT ?1, ?2, ?3, 'assistant', ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11
      WHERE (SELECT lease_epoch FROM chat_threads WHERE id = ?1) = ?12
     ON CONFLICT (thread_id, id) DO UPDATE SET
       content = chat_messages.content || excluded.content, thinking = excluded.thinking, graph_path = excluded.graph_path,
       tool_call = excluded.tool_call, status = excluded.status, updated_at = excluded.updated_at`,
  )
  const insertRun = sqlite.query<never, [string, string, string, string, number]>(
    "INSERT INTO chat_runs (id, thread_id, message_id, branch, status, started_at) VALUES (?, ?, ?, ?, 'running', ?)",
  )
  const endRun = sqlite.query<never, [string, string | null, number, string, number]>(
    `UPDATE chat_runs SET status = ?, error = ?, ended_at = ?
      WHERE id = ? AND (SELECT lease_epoch FROM chat_threads WHERE id = chat_runs.thread_id) = ?`,
  )

  const messages = (threadId: string, devMode: boolean) =>
    messagesOf.all(threadId).map((row) => toThreadMessage(row, devMode))

  // Everything goes through the group commit: the turns' starts and ends and the running answers' saves.
  const batch = writeBatchOf(connection)
  const startTurnWrites = (turn: NewTurn, now: number): StartedTurn => {
    const { thread } = turn
    if (turn.checkMessage) {
      const stored = userMessage.get(turn.messageId, thread.userId, thread.agentId)
      if (stored) throw new MessageStored(stored.threadId)
    }
    const history = turn.isNewThread ? [] : messages(thread.id, turn.devMode)
    let epoch = 1
    if (turn.isNewThread) putThread(thread, threadTitle(turn.input), now)
    else epoch = touchThread.get(now, thread.id)?.epoch ?? 0
    const sort = (history.at(-1)?.sort ?? 0) + 1
    insertRun.run(turn.runId, thread.id, turn.messageId, turn.branch, now)
    const attachments = turn.images?.length ? JSON.stringify(turn.images) : null
    insertUserMessage.run(thread.id, turn.messageId, sort, turn.input, attachments, turn.runId, now, now)
    return { history, userMessage: userMessageOf(turn, sort), nextSort: sort + 1, epoch }
  }
  const saveWrites = (take: () => MessageSave[]): ReadonlySet<string> => {
    const refused = new Set<string>()
    for (const message of take()) {
      const { changes } = saveMessage.run(
        message.threadId,
        message.id,
        message.sort,
        message.content,
        message.thinking,
        message.graphPath,
        message.toolCall,
        message.status,
        message.runId,
        message.createdAt,
        message.updatedAt,
        message.epoch,
      )
      if (changes === 0) refused.add(message.threadId)
    }
    return refused
  }

  return {
    startChecksMessage: false,
    async thread(id) {
      return threadById.get(id) ?? undefined
    },
    async messages(threadId, devMode) {
      return messages(threadId, devMode)
    },
    async threadOfUserMessage(userId, agentId, messageId) {
      return userMessage.get(messageId, userId, agentId)?.threadId
    },
    createThread(thread) {
      return batch.run(() => {
        const now = clock()
        putThread(thread, null, now)
      })
    },
    startTurn: (turn) => batch.run(() => startTurnWrites(turn, clock())),
    endRun: (runId, epoch, status, error) =>
      batch.run(() => endRun.run(status, error ?? null, clock(), runId, epoch).changes === 1),
    saveMessages: (take) => batch.run(() => saveWrites(take)),
    flushWrites: () => batch.flush(),
    async recoverInterruptedRuns() {
      const now = clock()
      const recover = sqlite.transaction(() => {
        sqlite.run(
          "UPDATE chat_threads SET lease_epoch = lease_epoch + 1 WHERE id IN (SELECT thread_id FROM chat_runs WHERE status = 'running')",
        )
        sqlite.run("UPDATE chat_messages SET status = 'interrupted', updated_at = ? WHERE status = 'in_process'", [now])
        // From the few running runs to each one's last answer through the (thread_id, sort) index: filtering all
        // messages by run would read the whole table, and this runs at every start.
        sqlite.run(
          `UPDATE chat_messages SET status = 'interrupted', updated_at = ?
            WHERE rowid IN (
              SELECT (SELECT m.rowid FROM chat_messages m
                       WHERE m.thread_id = r.thread_id AND m.run_id = r.id AND m.role = 'assistant'
                       ORDER BY m.sort DESC LIMIT 1)
                FROM chat_runs r WHERE r.status = 'running')`,
          [now],
        )
        return sqlite.run(
          "UPDATE chat_runs SET status = 'interrupted', ended_at = ?, error = ? WHERE status = 'running'",
          [now, RESTART_ERROR],
        ).changes
      })
      // Done by the time the call returns, unless an asynchronous transaction holds the connection: then after it.
      return lock.busy() ? lock.run(() => recover.immediate()) : recover.immediate()
    },
  }
}
