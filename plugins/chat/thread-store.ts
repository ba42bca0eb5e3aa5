import type { Storage } from '../../db/client'
import type { ImageAttachment, ThreadMessage, ToolCall } from './model'

export interface ThreadRow {
  id: string
  accountId: number
  deploymentId: number
  agentId: number
  userId: number
}

interface MessageRow {
  id: string
  sort: number
  role: 'user' | 'assistant'
  content: string
  graphPath: string | null
  thinking: string | null
  toolCall: string | null
  attachments: string | null
  status: 'complete' | 'in_process' | 'interrupted'
}

export interface NewAssistantMessage {
  id: string
  sort: number
  graphPath: string[]
  toolCall?: ToolCall
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
 * assistant line goes out; assistant messages are inserted when they start and completed when they end.
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
  const maxSort = sqlite.query<{ sort: number | null }, [string]>('SELECT MAX(sort) AS sort FROM chat_messages WHERE thread_id = ?')
  const userMessage = sqlite.query<{ threadId: string }, [string, number, number]>(
    `SELECT m.thread_id AS threadId FROM chat_messages m JOIN chat_threads t ON t.id = m.thread_id
      WHERE m.id = ? AND m.role = 'user' AND t.user_id = ? AND t.agent_id = ? LIMIT 1`,
  )
  const messageInThread = sqlite.query<{ id: string }, [string, string]>(
    "SELECT id FROM chat_messages WHERE thread_id = ? AND id = ? AND role = 'user'",
  )
  const insertMessage = sqlite.query<
    never,
    [string, string, number, string, string, string | null, string | null, string | null, string, string | null, number, number]
  >(
    `INSERT INTO chat_messages (thread_id, id, sort, role, content, graph_path, tool_call, attachments, status, run_id, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  )
  const completeMessage = sqlite.query<never, [string, string | null, string | null, string, string | null, number, string, string]>(
    `UPDATE chat_messages SET content = ?, thinking = ?, graph_path = COALESCE(?, graph_path), status = ?, tool_call = COALESCE(?, tool_call), updated_at = ?
      WHERE thread_id = ? AND id = ?`,
  )
  const checkpointMessage = sqlite.query<never, [string, string | null, number, string, string]>(
    "UPDATE chat_messages SET content = ?, thinking = ?, updated_at = ? WHERE thread_id = ? AND id = ? AND status = 'in_process'",
  )
  const insertRun = sqlite.query<never, [string, string, string, string, number]>(
    "INSERT INTO chat_runs (id, thread_id, message_id, branch, status, started_at) VALUES (?, ?, ?, ?, 'running', ?)",
  )
  const endRun = sqlite.query<never, [string, string | null, number, string]>(
    'UPDATE chat_runs SET status = ?, error = ?, ended_at = ? WHERE id = ?',
  )
  const interruptRunMessages = sqlite.query<never, [number, string]>(
    "UPDATE chat_messages SET status = 'interrupted', updated_at = ? WHERE run_id = ? AND status = 'in_process'",
  )
  // A run cut short between messages still has an unfinished answer: its last assistant message says so.
  const interruptLastAnswer = sqlite.query<never, [number, string, string]>(
    `UPDATE chat_messages SET status = 'interrupted', updated_at = ?
      WHERE run_id = ? AND role = 'assistant'
        AND sort = (SELECT MAX(sort) FROM chat_messages WHERE run_id = ? AND role = 'assistant')`,
  )

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
     * Starts a turn in one transaction: the thread (when new), the run and the user message. Returns the user
     * message as stored and the next free `sort`.
     */
    startTurn(turn: {
      thread: ThreadRow
      isNewThread: boolean
      runId: string
      messageId: string
      branch: string
      input: string
      images: ImageAttachment[] | undefined
    }): { userMessage: ThreadMessage; nextSort: number } {
      const now = clock()
      return sqlite
        .transaction(() => {
          const { thread } = turn
          if (turn.isNewThread)
            insertThread.run(thread.id, thread.accountId, thread.deploymentId, thread.agentId, thread.userId, turn.input.slice(0, 200) || null, now, now)
          else touchThread.run(now, thread.id)
          const sort = (maxSort.get(thread.id)?.sort ?? 0) + 1
          insertRun.run(turn.runId, thread.id, turn.messageId, turn.branch, now)
          const attachments = turn.images?.length ? JSON.stringify(turn.images) : null
          insertMessage.run(thread.id, turn.messageId, sort, 'user', turn.input, null, null, attachments, 'complete', turn.runId, now, now)
          const userMessage: ThreadMessage = { id: turn.messageId, role: 'user', content: turn.input, isDelta: false, isInProcess: false, sort }
          if (turn.images?.length) userMessage.images = turn.images
          return { userMessage, nextSort: sort + 1 }
        })
        .immediate()
    },

    startAssistantMessage(threadId: string, runId: string, message: NewAssistantMessage): void {
      const now = clock()
      insertMessage.run(
        threadId,
        message.id,
        message.sort,
        'assistant',
        '',
        JSON.stringify(message.graphPath),
        message.toolCall ? JSON.stringify(message.toolCall) : null,
        null,
        'in_process',
        runId,
        now,
        now,
      )
    },

    completeAssistantMessage(
      threadId: string,
      id: string,
      content: string,
      thinking: string | undefined,
      options: { interrupted?: boolean; graphPath?: string[]; toolCall?: ToolCall } = {},
    ): void {
      completeMessage.run(
        content,
        thinking || null,
        options.graphPath ? JSON.stringify(options.graphPath) : null,
        options.interrupted ? 'interrupted' : 'complete',
        options.toolCall ? JSON.stringify(options.toolCall) : null,
        clock(),
        threadId,
        id,
      )
    },

    /** Saves the partial content of in-process messages in one transaction, so a crash keeps what was streamed. */
    checkpoint(entries: Array<{ threadId: string; id: string; content: string; thinking: string | undefined }>): void {
      if (entries.length === 0) return
      const now = clock()
      sqlite.transaction(() => {
        for (const entry of entries) checkpointMessage.run(entry.content, entry.thinking || null, now, entry.threadId, entry.id)
      })()
    },

    endRun(runId: string, status: 'completed' | 'failed' | 'aborted', error?: string): void {
      const now = clock()
      sqlite.transaction(() => {
        endRun.run(status, error ?? null, now, runId)
        interruptRunMessages.run(now, runId)
        if (status !== 'completed') interruptLastAnswer.run(now, runId, runId)
      })()
    },

    /**
     * Marks the runs left `running` by a process that died as interrupted, and their unfinished messages too, so
     * their threads stay readable and accept new messages. Returns how many runs were recovered.
     */
    recoverInterruptedRuns(): number {
      const now = clock()
      return sqlite.transaction(() => {
        sqlite.run("UPDATE chat_messages SET status = 'interrupted', updated_at = ? WHERE status = 'in_process'", [now])
        sqlite.run(
          `UPDATE chat_messages SET status = 'interrupted', updated_at = ?
            WHERE role = 'assistant' AND run_id IN (SELECT id FROM chat_runs WHERE status = 'running')
              AND sort = (SELECT MAX(m.sort) FROM chat_messages m WHERE m.run_id = chat_messages.run_id AND m.role = 'assistant')`,
          [now],
        )
        return sqlite.run("UPDATE chat_runs SET status = 'interrupted', ended_at = ?, error = 'Interrupted by a server restart' WHERE status = 'running'", [now])
          .changes
      })()
    },
  }
}

export type ThreadStore = ReturnType<typeof createThreadStore>
