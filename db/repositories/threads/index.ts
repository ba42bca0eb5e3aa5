import type { RawRow } from '../../raw-row'
import type { chatMessages, chatRuns, chatThreads } from '../../schema'
import type { ImageAttachment, ThreadMessage } from './thread-message'

export { ImageAttachment, ThreadMessage, ToolCall } from './thread-message'

/** The thread columns a turn needs. */
export type ThreadRow = Pick<
  typeof chatThreads.$inferSelect,
  'id' | 'accountId' | 'deploymentId' | 'agentId' | 'userId'
>

/** A message as the raw statements of both backends read it (JSON columns still text). */
export type MessageRow = Pick<
  RawRow<typeof chatMessages>,
  'id' | 'sort' | 'role' | 'content' | 'graphPath' | 'thinking' | 'toolCall' | 'attachments' | 'status'
>

/** How a run ends from its own point of view (`interrupted` is only set by the recovery). */
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
  /** Whether the history comes back with `thinking` (development branches only). */
  devMode: boolean
  /**
   * Whether the start is refused, with `MessageStored`, when the user already has this message (a client's
   * `messageId`, its idempotency key across its threads) in a thread with this agent: the start answers it, instead of
   * a read before it (see `ThreadStore.startChecksMessage`).
   */
  checkMessage?: boolean
}

/** A turn start refused: the user's message is stored already, in `threadId`; nothing was written. */
export class MessageStored extends Error {
  constructor(readonly threadId: string) {
    super(`the message is stored already, in thread ${threadId}`)
  }
}

/** A stored turn start. */
export interface StartedTurn {
  /** The thread's messages before this turn (read in the same transaction: none of this turn's). */
  history: ThreadMessage[]
  userMessage: ThreadMessage
  /** The `sort` of the turn's first assistant message. */
  nextSort: number
  /**
   * The thread's lease epoch this turn's start raised it to: every later write of the run carries it, and storage
   * refuses the write once the epoch has moved on (another node interrupted the run in its owner's place).
   */
  epoch: number
}

/**
 * An assistant message as a save writes it, taken when the commit runs: inserted the first time (with its whole
 * content), updated after (with the content streamed since, appended: re-sending a long answer's whole text every
 * second, for every running answer, was most of the memory churn of many concurrent runs).
 */
export interface MessageSave {
  threadId: string
  id: string
  sort: number
  /** The whole content for a new row, else what to append. */
  content: string
  thinking: string | null
  /** JSON text. */
  graphPath: string
  /** JSON text. */
  toolCall: string | null
  status: (typeof chatMessages.$inferSelect)['status']
  runId: string
  createdAt: number
  updatedAt: number
  /** The run's lease epoch (see `StartedTurn.epoch`): the save is refused when the thread's has moved on. */
  epoch: number
}

/**
 * The chat's threads, messages and runs: the repository the chat service talks to, one module per backend beside
 * this one (`sqlite.ts`, `postgres.ts`), chosen by the storage when it opens.
 * Writes go through a group commit (every write queued during one turn of the event loop is committed in one
 * transaction, each in its own savepoint so a failing write fails only its own caller); each promise settles once
 * its write is committed, never before.
 */
export interface ThreadStore {
  /**
   * Whether a new thread's turn asks its start to check its message (`NewTurn.checkMessage`) rather than reading
   * `threadOfUserMessage` first: on Postgres a read is a round trip and a statement of its own, while the start's
   * statement checks it by the same index; on SQLite the read costs less than making the `__cutoff__` wait for the
   * start's commit.
   */
  readonly startChecksMessage: boolean
  thread(id: string): Promise<ThreadRow | undefined>
  /** The thread's messages in order, in their wire shape (`thinking` only in development mode). */
  messages(threadId: string, devMode: boolean): Promise<ThreadMessage[]>
  /** The thread holding the user's message `messageId` with this agent, if any. */
  threadOfUserMessage(userId: number, agentId: number, messageId: string): Promise<string | undefined>
  /**
   * Creates a thread without messages (a request that asks for a new thread and sends nothing to it), in the next
   * group commit; its first turn then starts in it as in any thread that exists.
   */
  createThread(thread: ThreadRow): Promise<void>
  /**
   * Starts a turn: the thread (when new), the run and the user message, committed together (in the next group
   * commit), with the thread's history as it stood before.
   */
  startTurn(turn: NewTurn): Promise<StartedTurn>
  /**
   * Ends a run: its status, in the next group commit (its messages' last changes are saved in the same one).
   * Resolves false, writing nothing, when the thread's lease epoch is no longer `epoch`: the run was taken over.
   */
  endRun(runId: string, epoch: number, status: RunOutcome, error: string | undefined): Promise<boolean>
  /**
   * Saves assistant messages in the next group commit: `take` is called when that commit runs and returns the
   * messages as they stand then. Settles once they are committed, with the threads whose messages were refused
   * (their lease epoch had moved on: nothing of those was written; the others were).
   */
  saveMessages(take: () => MessageSave[]): Promise<ReadonlySet<string>>
  /** Commits what is queued now; settles once everything queued before the call is committed (or failed). */
  flushWrites(): Promise<void>
  /**
   * Marks the runs left `running` by a process that died as interrupted, and their unfinished messages too, so
   * their threads stay readable and accept new messages; their threads' lease epochs are raised, so a writer that
   * was still alive is refused. Resolves with how many runs were recovered.
   */
  recoverInterruptedRuns(): Promise<number>
}

/** Maps a stored message to its wire shape; `thinking` only in development mode. */
export function toThreadMessage(row: MessageRow, devMode: boolean): ThreadMessage {
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

/** The user message of a turn as stored. */
export function userMessageOf(turn: NewTurn, sort: number): ThreadMessage {
  const message: ThreadMessage = {
    id: turn.messageId,
    role: 'user',
    content: turn.input,
    isDelta: false,
    isInProcess: false,
    sort,
  }
  if (turn.images?.length) message.images = turn.images
  return message
}

/** A new thread's title: the start of its first message. */
export const threadTitle = (input: string) => input.slice(0, 200) || null

export const RESTART_ERROR = 'Interrupted by a server restart'
