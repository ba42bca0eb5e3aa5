import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { SQL } from 'bun'
import { createPostgresWriteBatch, type PostgresWriteBatch } from '../../../../db/postgres/postgres-write-batch'
import { postgresAvailable, warnSkipped } from '../../../helpers/database-servers'
import {
  POSTGRES_START_MS,
  postgresStarted,
  throwawayPostgresDatabase,
  type ThrowawayDatabase,
} from '../../../helpers/postgres-databases'

let database: ThrowawayDatabase
let client: SQL
let batch: PostgresWriteBatch

if (!postgresAvailable) warnSkipped('the Postgres group commit tests')
else
  describe('createPostgresWriteBatch().gather', () => {
    beforeAll(async () => {
      await postgresStarted()
      database = await throwawayPostgresDatabase()
      client = new SQL(database.url, { max: 2 })
      await client`CREATE TABLE items (id integer PRIMARY KEY, label text NOT NULL)`
      batch = createPostgresWriteBatch(client)
    }, POSTGRES_START_MS)
    afterAll(async () => {
      await client?.close()
      await database?.drop()
    })

    /** Inserts every gathered item in one statement; an odd id is refused alone, as a fenced write is. */
    function insertGathered() {
      const calls: number[][] = []
      const insert = batch.gather(async (tx, ids: number[]) => {
        calls.push(ids)
        const kept = ids.filter((id) => id % 2 === 0)
        await tx`INSERT INTO items (id, label) SELECT id, 'gathered' FROM unnest(${`{${kept.join(',')}}`}::int[]) AS id`
        return ids.map((id) => (id % 2 === 0 ? id * 10 : new Error(`odd ${id}`)))
      })
      return { insert, calls }
    }
    const stored = async (ids: number[]) =>
      (await client`SELECT id FROM items WHERE id IN ${client(ids)} ORDER BY id`).map((row: { id: number }) => row.id)

    it('writes the calls of one commit with one work, and fails only the caller its outcome refuses', async () => {
      const { insert, calls } = insertGathered()
      const outcomes = await Promise.allSettled([insert(2), insert(3), insert(4)])
      expect(calls).toEqual([[2, 3, 4]])
      expect(outcomes.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : 'refused'))).toEqual([
        20,
        'refused',
        40,
      ])
      expect(await stored([2, 3, 4])).toEqual([2, 4])
    })

    it('settles each call once its commit is in, and sends a call made during a commit to the next one', async () => {
      const { insert, calls } = insertGathered()
      const first = insert(6)
      // Queued while the first commit is under way (its statements sent, its answer not yet back).
      await Bun.sleep(0)
      await new Promise((resolve) => setImmediate(resolve))
      const second = insert(8)
      expect(await first).toBe(60)
      expect(await stored([6])).toEqual([6])
      expect(await second).toBe(80)
      expect(calls).toEqual([[6], [8]])
    })

    it('fails every call of a work that throws, and leaves nothing of it', async () => {
      const failing = batch.gather(async (tx, ids: number[]) => {
        await tx`INSERT INTO items (id, label) SELECT id, 'doomed' FROM unnest(${`{${ids.join(',')}}`}::int[]) AS id`
        throw new Error('the whole statement failed')
      })
      const outcomes = await Promise.allSettled([failing(10), failing(12)])
      expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected'])
      expect(await stored([10, 12])).toEqual([])
    })
  })
