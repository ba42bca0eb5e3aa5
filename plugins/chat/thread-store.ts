import type { Storage } from '../../db/client'
import type { RawRow } from '../../db/raw-row'
import type { chatMessages, chatRuns, chatThreads } from '../../db/schema'
import type { ImageAttachment, ThreadMessage } from './model'
import type { OpenMessage } from './open-message'
import { writeBatchOf } from '../../db/write-batch'

/** The thread columns a turn needs. */
export type ThreadRow = Pick<
  typeof chatThreads.$inferSelect,
  'id' | 'accountId' | 'deploymentId' | 'agentId' | 'userId'
>

/** A message as the raw statements read it (JSON columns still text). */
type StoredMessage = RawRow<typeof chatMessages>

type MessageRow = Pick<
  StoredMessage,
  'id' | 'sort' | 'role' | 'content' | 'graphPath' | 'thinking' | 'toolCall' | 'attachments' | 'status'
>

/** How a run ends from its own point of view (`interrupted` is only set by the recovery at start). */
export type RunOutcome = Exclude<(typeof chatRuns.$inferSelect)['status'], 'running' | 'interrupted'>

/** What `startTurn` writes. */
export interface NewTurn {
  thread: ThreadRow
  isNewThread: boolean
  runId: string
  messageId: string
  branch: string
  input: string
  images: ImageAttachment[] | undefined
}

/** Maps a stored message to its wire shape; `thinking` only in development mode. */
function toThreadMessage(row: MessageRow, devMode: boolean): ThreadMessage {
  const message: ThreadMessage = {
    id: row.id,
    role: row.role,
    content: row.content,
    isDelta: false,
    isInProcess: row.status === 'in_process',
    sort: row.sort,
  }
  if (row.graphPath) message.graphPath = JSON.parse(row.graphPath)
  if (row.toolCall) message.toolCall = JSON.parse(row.toolCall)
  if (row.attachments) message.images = JSON.parse(row.attachments)
  if (devMode && row.thinking) message.thinking = row.thinking
  if (row.status === 'interrupted') message.interrupted = true
  return message
}

/**
 * Threads, messages and runs in SQLite, through prepared statements (bun:sqlite is synchronous, so nothing on the
 * stream path awaits the database). The user message and its run are written in one transaction before the first
 * assistant line goes out; assistant messages are saved through the group commit (see `OpenMessages`).
 */
export function createThreadStore(storage: Storage, clock: () => number) {
  const { sqlite } = storage
  const threadById = sqlite.query<ThreadRow, [string]>(
    'SELECT id, account_id AS accountId, deployment_id AS deploymentId, agent_id AS agentId, user_id AS userId FROM chat_threads WHERE id = ?',
  )
  const insertThread = sqlite.query<never, [string, number, number, number, number, string | null, number, number]>(
    'INSERT INTO chat_threads (id, account_id, deployment_id, agent_id, user_id, title, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  )
  const touchThread = sqlite.query<never, [number, string]>('UPDATE chat_threads SET updated_at = ? WHERE id = ?')
  const messagesOf = sqlite.query<MessageRow, [string]>(
    `SELECT id, sort, role, content, graph_path AS graphPath, thinking, tool_call AS toolCall, attachments, status
       FROM chat_messages WHERE thread_id = ? ORDER BY sort`,
  )
  const maxSort = sqlite.query<{ sort: number | null }, [string]>(
    'SELECT MAX(sort) AS sort FROM chat_messages WHERE thread_id = ?',
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
  const messageInThread = sqlite.query<Pick<StoredMessage, 'id'>, [string, string]>(
    "SELECT id FROM chat_messages WHERE thread_id = ? AND id = ? AND role = 'user'",
  )
  const insertMessage = sqlite.query<
    never,
    [
      string,
      string,
      number,
      string,
      string,
      string | null,
      string | null,
      string | null,
      string,
      string | null,
      number,
      number,
    ]
  >(
    `INSERT INTO chat_messages (thread_id, id, sort, role, content, graph_path, tool_call, attachments, status, run_id, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  )
  // An assistant message as the run holds it now: inserted the first time (with its whole content), updated after
  // (with the content streamed since, appended: re-sending a long answer's whole text every second, for every
  // running answer, was most of the memory churn of many concurrent runs).
  const saveMessage = sqlite.query<
    never,
    [string, string, number, string, string | null, string | null, string | null, string, string, number, number]
  >(
    `INSERT INTO chat_messages (thread_id, id, sort, role, content, thinking, graph_path, tool_call, status, run_id, created_at, updated_at)
     VALUES (?, ?, ?, 'assistant', ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (thread_id, id) DO UPDATE SET
       content = chat_messages.content || excluded.content, thinking = excluded.thinking, graph_path = excluded.graph_path,
       tool_call = excluded.tool_call, status = excluded.status, updated_at = excluded.updated_at`,
  )
  const insertRun = sqlite.query<never, [string, string, string, string, number]>(
    "INSERT INTO chat_runs (id, thread_id, message_id, branch, status, started_at) VALUES (?, ?, ?, ?, 'running', ?)",
  )
  const endRun = sqlite.query<never, [string, string | null, number, string]>(
    'UPDATE chat_runs SET status = ?, error = ?, ended_at = ? WHERE id = ?',
  )

  const save = (message: OpenMessage, now: number) =>
    saveMessage.run(
      message.threadId,
      message.id,
      message.sort,
      message.contentToSave(),
      message.thinking || null,
      JSON.stringify(message.graphPath),
      message.toolCall ? JSON.stringify(message.toolCall) : null,
      message.status,
      message.runId,
      message.createdAt,
      now,
    )

  // Everything goes through the group commit: the turns' starts and ends and the running answers' saves.
  const batch = writeBatchOf(storage)
  const startTurnWrites = (turn: NewTurn, now: number) => {
    const { thread } = turn
    if (turn.isNewThread)
      insertThread.run(
        thread.id,
        thread.accountId,
        thread.deploymentId,
        thread.agentId,
        thread.userId,
        turn.input.slice(0, 200) || null,
        now,
        now,
      )
    else touchThread.run(now, thread.id)
    const sort = turn.isNewThread ? 1 : (maxSort.get(thread.id)?.sort ?? 0) + 1
    insertRun.run(turn.runId, thread.id, turn.messageId, turn.branch, now)
    const attachments = turn.images?.length ? JSON.stringify(turn.images) : null
    insertMessage.run(
      thread.id,
      turn.messageId,
      sort,
      'user',
      turn.input,
      null,
      null,
      attachments,
      'complete',
      turn.runId,
      now,
      now,
    )
    const userMessage: ThreadMessage = {
      id: turn.messageId,
      role: 'user',
      content: turn.input,
      isDelta: false,
      isInProcess: false,
      sort,
    }
    if (turn.images?.length) userMessage.images = turn.images
    return { userMessage, nextSort: sort + 1 }
  }
  return {
    thread(id: string): ThreadRow | undefined {
      return threadById.get(id) ?? undefined
    },

    messages(threadId: string, devMode: boolean): ThreadMessage[] {
      return messagesOf.all(threadId).map((row) => toThreadMessage(row, devMode))
    },

    /** The thread holding the user's message `messageId` with this agent, if any. */
    threadOfUserMessage(userId: number, agentId: number, messageId: string): string | undefined {
      return userMessage.get(messageId, userId, agentId)?.threadId
    },

    hasUserMessage(threadId: string, messageId: string): boolean {
      return messageInThread.get(threadId, messageId) !== null
    },

    /**
     * Starts a turn: the thread (when new), the run and the user message, committed together (in the next group
     * commit). Resolves with the user message as stored and the next free `sort`.
     */
    startTurn(turn: NewTurn): Promise<{ userMessage: ThreadMessage; nextSort: number }> {
      return batch.run(() => startTurnWrites(turn, clock()))
    },

    /** Ends a run: its status, in the next group commit (its messages' last changes are saved in the same one). */
    endRun(runId: string, status: RunOutcome, error: string | undefined): Promise<void> {
      return batch.run(() => void endRun.run(status, error ?? null, clock(), runId))
    },

    /** Runs `work` in the next group commit (see `createWriteBatch`). */
    inNextCommit: batch.run,

    /** Writes an assistant message as its run holds it now (inside a commit). */
    saveMessage: save,

    /** Commits the queued writes now (turn starts and ends, answers' saves). */
    flushWrites: () => batch.flush(),

    /**
     * Marks the runs left `running` by a process that died as interrupted, and their unfinished messages too, so
     * their threads stay readable and accept new messages. Returns how many runs were recovered.
     */
    recoverInterruptedRuns(): number {
      const now = clock()
      return sqlite.transaction(() => {
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
          "UPDATE chat_runs SET status = 'interrupted', ended_at = ?, error = 'Interrupted by a server restart' WHERE status = 'running'",
          [now],
        ).changes
      })()
    },
  }
}

export type ThreadStore = ReturnType<typeof createThreadStore>
