import { describe, expect, it } from 'bun:test'
import { SQL } from 'bun'
import type { Storage } from '../../../../../db/client'
import { openPostgresStorage } from '../../../../../db/postgres/postgres-storage'
import type { MessageSave } from '../../../../../db/repositories/threads'
import { postgresAvailable, warnSkipped } from '../../../../helpers/database-servers'
import { POSTGRES_START_MS, throwawayPostgresDatabase } from '../../../../helpers/postgres-databases'
import { postgresThreadStores, seedThreadOwner } from '../../../../helpers/thread-stores'
import { threadStoreContract } from '../../../../db/repositories/threads/thread-store-contract'

// On SQLite: test/db/repositories/threads/thread-store.test.ts.
if (postgresAvailable) threadStoreContract('Postgres', postgresThreadStores)
else warnSkipped('ThreadStore on Postgres')

/** A thread store on `storage` with one user's first turn started: thread `thread-1`, run `run-1`. */
async function firstTurn(storage: Storage) {
  const store = storage.repositories.threads(() => 1)
  const owner = await seedThreadOwner(storage)
  const started = await store.startTurn({
    thread: { id: 'thread-1', ...owner },
    isNewThread: true,
    runId: 'run-1',
    messageId: 'message-1',
    branch: 'main',
    input: 'Hello',
    images: undefined,
    devMode: false,
  })
  return { store, owner, started }
}

describe.skipIf(!postgresAvailable)('ThreadStore on Postgres, beside a node taking a thread over', () => {
  it(
    'refuses a save that reached the thread while the takeover was under way, once that commits',
    async () => {
      const database = await throwawayPostgresDatabase()
      const storage = await openPostgresStorage(database.url, { poolSize: 4 })
      const other = new SQL(database.url, { max: 1 })
      try {
        const { store, owner, started } = await firstTurn(storage)
        const save = (content: string): MessageSave => ({
          threadId: 'thread-1',
          id: 'answer',
          sort: 2,
          content,
          thinking: null,
          graphPath: '[]',
          toolCall: null,
          status: 'in_process',
          runId: 'run-1',
          createdAt: 1,
          updatedAt: 1,
          epoch: started.epoch,
        })
        await store.saveMessages(() => [save('Half ')])

        // Another node raises the epoch and marks the answer, in a transaction still open when the owner's save comes.
        const takeover = await other.reserve()
        let late: Promise<ReadonlySet<string>> | undefined
        let settled = false
        try {
          await takeover`BEGIN`
          await takeover`UPDATE chat_threads SET lease_epoch = lease_epoch + 1 WHERE id = 'thread-1'`
          late = store.saveMessages(() => [save('and more')]).finally(() => (settled = true))
          await Bun.sleep(200)
          // It waits for the takeover: it read the epoch before it, but may not write on the strength of that.
          expect(settled).toBe(false)
          await takeover`UPDATE chat_messages SET status = 'interrupted' WHERE thread_id = 'thread-1' AND id = 'answer'`
          await takeover`COMMIT`
        } finally {
          takeover.release()
        }
        expect([...((await late) ?? [])]).toEqual(['thread-1'])
        const [row]: Array<{ content: string; status: string }> =
          await other`SELECT content, status FROM chat_messages WHERE id = 'answer'`
        expect(row).toEqual({ content: 'Half ', status: 'interrupted' })
      } finally {
        await other.close()
        await storage.close()
        await database.drop()
      }
    },
    POSTGRES_START_MS,
  )
})

describe.skipIf(!postgresAvailable)('ThreadStore on Postgres, saving a long answer', () => {
  it(
    'leaves a long answer stored as it is when a save has nothing to append (its end): it is not written again',
    async () => {
      const database = await throwawayPostgresDatabase()
      const storage = await openPostgresStorage(database.url, { poolSize: 2 })
      const other = new SQL(database.url, { max: 1 })
      try {
        const { store, owner, started } = await firstTurn(storage)
        // About 20 KB that compresses poorly, as an answer's text does: stored out of line (TOAST).
        const answer = Array.from(
          { length: 20_000 },
          () => 'abcdefghijklmnopqrstuvwxyz'[Math.floor(Math.random() * 26)],
        ).join('')
        const save = (content: string, status: MessageSave['status']): MessageSave => ({
          threadId: 'thread-1',
          id: 'answer',
          sort: 2,
          content,
          thinking: null,
          graphPath: '[]',
          toolCall: null,
          status,
          runId: 'run-1',
          createdAt: 1,
          updatedAt: 1,
          epoch: started.epoch,
        })
        await store.saveMessages(() => [save(answer, 'in_process')])
        const lsn = async () =>
          ((await other`SELECT pg_current_wal_insert_lsn()::text AS lsn`)[0] as { lsn: string }).lsn
        const before = await lsn()
        await store.saveMessages(() => [save('', 'complete')])
        const [{ written }]: Array<{ written: number }> =
          await other`SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), ${before}::pg_lsn)::int AS written`
        const [row]: Array<{ content: string; status: string }> =
          await other`SELECT content, status FROM chat_messages WHERE id = 'answer'`
        expect(row).toEqual({ content: answer, status: 'complete' })
        // The row's new version and the commit: a few hundred bytes, not the answer's 20 KB again.
        expect(written).toBeLessThan(4_000)
      } finally {
        await other.close()
        await storage.close()
        await database.drop()
      }
    },
    POSTGRES_START_MS,
  )
})
