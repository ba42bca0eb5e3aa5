import { and, asc, eq } from 'drizzle-orm'
import type { Storage } from '../../db/client'

/**
 * The chat rows tests check, read through the dialect-free storage API: the same test reads them from SQLite or from
 * Postgres. Ordered as they were written (threads by creation, messages by sort, runs by start).
 */

/** The runs' outcomes, oldest first. */
export function storedRuns(storage: Storage) {
  const { chatRuns } = storage.tables
  return storage.db
    .select({ status: chatRuns.status, error: chatRuns.error })
    .from(chatRuns)
    .orderBy(asc(chatRuns.startedAt), asc(chatRuns.id))
}

/** The messages of one role (of one thread, when given), each thread's in order. */
export function storedMessages(storage: Storage, role: 'user' | 'assistant', threadId?: string) {
  const { chatMessages, chatThreads } = storage.tables
  return storage.db
    .select({
      id: chatMessages.id,
      content: chatMessages.content,
      status: chatMessages.status,
      toolCall: chatMessages.toolCall,
    })
    .from(chatMessages)
    .innerJoin(chatThreads, eq(chatThreads.id, chatMessages.threadId))
    .where(and(eq(chatMessages.role, role), threadId === undefined ? undefined : eq(chatMessages.threadId, threadId)))
    .orderBy(asc(chatThreads.createdAt), asc(chatThreads.id), asc(chatMessages.sort))
}

/** Who owns each thread: the identity and kind of its user. */
export function threadOwners(storage: Storage) {
  const { chatThreads, users } = storage.tables
  return storage.db
    .select({ identity: users.identity, kind: users.kind })
    .from(chatThreads)
    .innerJoin(users, eq(users.id, chatThreads.userId))
    .orderBy(asc(chatThreads.createdAt), asc(chatThreads.id))
}
