import { and, asc, desc, eq, inArray, sql } from 'drizzle-orm'
import { toThreadMessage, type MessageRow } from '../../../db/repositories/threads'
import { first, type Storage } from '../../../db/client'

/** The error stored on a run whose node stopped while it ran, and the line its joiners get. */
export const NODE_LOST_MESSAGE = 'The server running this answer stopped; the answer was interrupted'

/**
 * Marks one run that its node left unfinished as interrupted, with its unfinished messages and its last answer, so
 * its thread stays readable and takes new messages: what the start-up recovery does for a single process, done by
 * another node for one run. A run that has already ended is left alone. Returns whether the run was marked.
 *
 * The thread's lease epoch is raised first: the run's own node, should it wake, finds every write it still makes
 * refused (fencing), and on Postgres one of its writes under way holds the thread's row until it commits, so the
 * marking comes after it, never between its statements.
 */
export async function markRunInterrupted(
  storage: Storage,
  runId: string,
  now: number,
  end: { error: string; status: 'interrupted' | 'aborted' } = { error: NODE_LOST_MESSAGE, status: 'interrupted' },
): Promise<boolean> {
  const { chatRuns, chatMessages, chatThreads } = storage.tables
  return storage.transaction(async (tx) => {
    await tx
      .update(chatThreads)
      .set({ leaseEpoch: sql`${chatThreads.leaseEpoch} + 1` })
      .where(
        inArray(
          chatThreads.id,
          tx
            .select({ id: chatRuns.threadId })
            .from(chatRuns)
            .where(and(eq(chatRuns.id, runId), eq(chatRuns.status, 'running'))),
        ),
      )
    const ended = await tx
      .update(chatRuns)
      .set({ status: end.status, endedAt: now, error: end.error })
      .where(and(eq(chatRuns.id, runId), eq(chatRuns.status, 'running')))
      .returning({ threadId: chatRuns.threadId })
    const run = ended[0]
    if (!run) return false
    const ofRun = and(eq(chatMessages.threadId, run.threadId), eq(chatMessages.runId, runId))
    await tx
      .update(chatMessages)
      .set({ status: 'interrupted', updatedAt: now })
      .where(and(ofRun, eq(chatMessages.status, 'in_process')))
    // A run cut between two messages still has an unfinished answer: its last one.
    const last = await first(
      tx
        .select({ id: chatMessages.id })
        .from(chatMessages)
        .where(and(ofRun, eq(chatMessages.role, 'assistant')))
        .orderBy(desc(chatMessages.sort))
        .limit(1),
    )
    if (last)
      await tx
        .update(chatMessages)
        .set({ status: 'interrupted', updatedAt: now })
        .where(and(eq(chatMessages.threadId, run.threadId), eq(chatMessages.id, last.id)))
    return true
  })
}

/**
 * A run's lines as storage holds them (its user message, then its answers, each whole), as NDJSON: what a reader
 * that joins a run whose node died before sending any line elsewhere gets in their place.
 */
export async function storedRunLines(storage: Storage, threadId: string, runId: string): Promise<string> {
  const { chatMessages } = storage.tables
  const rows = await storage.db
    .select({
      id: chatMessages.id,
      sort: chatMessages.sort,
      role: chatMessages.role,
      content: chatMessages.content,
      graphPath: chatMessages.graphPath,
      thinking: chatMessages.thinking,
      toolCall: chatMessages.toolCall,
      attachments: chatMessages.attachments,
      status: chatMessages.status,
    })
    .from(chatMessages)
    .where(and(eq(chatMessages.threadId, threadId), eq(chatMessages.runId, runId)))
    .orderBy(asc(chatMessages.sort))
  // The thread store's mapping takes the JSON columns as text, as its raw statements read them.
  const text = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value))
  return rows
    .map((row) => {
      const raw: MessageRow = {
        ...row,
        graphPath: text(row.graphPath),
        toolCall: text(row.toolCall),
        attachments: text(row.attachments),
      }
      return `${JSON.stringify(toThreadMessage(raw, false))}\n`
    })
    .join('')
}

/** The runs storage holds as running, with their threads (to compare with the leases of the nodes alive). */
export async function runningRuns(storage: Storage): Promise<Array<{ id: string; threadId: string }>> {
  const { chatRuns } = storage.tables
  return storage.db
    .select({ id: chatRuns.id, threadId: chatRuns.threadId })
    .from(chatRuns)
    .where(eq(chatRuns.status, 'running'))
}

/** Whether storage holds run `runId` as ended (completed, failed, aborted or interrupted). */
export async function runHasEnded(storage: Storage, runId: string): Promise<boolean> {
  let statement = runStatuses.get(storage)
  if (!statement) runStatuses.set(storage, (statement = runStatus(storage)))
  const [row] = await statement.execute({ runId })
  return row !== undefined && row.status !== 'running'
}

/**
 * A run's status by its id, prepared once per storage: every joiner of a run followed from another node asks it (a
 * thousand in a couple of seconds), and building the query each time cost more than running it.
 */
function runStatus(storage: Storage) {
  const { chatRuns } = storage.tables
  return storage.db
    .select({ status: chatRuns.status })
    .from(chatRuns)
    .where(eq(chatRuns.id, sql.placeholder('runId')))
    .prepare()
}

const runStatuses = new WeakMap<Storage, ReturnType<typeof runStatus>>()
