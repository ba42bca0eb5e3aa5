import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { SQL } from 'bun'
import { sql } from 'drizzle-orm'
import { withDeadline } from '../../../../db/postgres/postgres-deadline'
import { postgresStorage } from '../../../../db/postgres/postgres-storage'
import { StorageUnavailableError } from '../../../../lib/errors'
import { postgresAvailable, warnSkipped } from '../../../helpers/database-servers'
import { throwawayPostgresDatabase, type ThrowawayDatabase } from '../../../helpers/postgres-databases'

if (!postgresAvailable) warnSkipped('the Postgres deadline tests')

/**
 * The deadline on the service's Postgres pool, against a real server: a row lock held by another connection stands
 * for a server that does not answer (the statement waits, as on a frozen one).
 */
describe.skipIf(!postgresAvailable)('withDeadline', () => {
  let database: ThrowawayDatabase
  let pool: SQL
  let other: SQL
  let timed: SQL
  beforeAll(async () => {
    database = await throwawayPostgresDatabase()
    pool = new SQL(database.url, { max: 4 })
    other = new SQL(database.url, { max: 1 })
    timed = withDeadline(pool, 300)
    await pool.unsafe('CREATE TABLE items (id INTEGER PRIMARY KEY, label TEXT)')
    await pool.unsafe("INSERT INTO items VALUES (1, 'one')")
  }, 60_000)
  afterAll(async () => {
    await pool?.close()
    await other?.close()
    await database?.drop()
  })

  /** Holds item 1's row lock in another connection for `ms`, then rolls back. */
  async function holdingRow(ms: number, during: () => Promise<void>): Promise<void> {
    let locked!: () => void
    const held = new Promise<void>((resolve) => (locked = resolve))
    const holder = other
      .begin(async (tx) => {
        await tx`SELECT id FROM items WHERE id = 1 FOR UPDATE`
        locked()
        await Bun.sleep(ms)
        throw new Error('rolled back on purpose')
      })
      .catch(() => undefined)
    await held
    try {
      await during()
    } finally {
      await holder
    }
  }

  it('fails a statement unanswered past the deadline as StorageUnavailableError, and cancels it', async () => {
    await holdingRow(1000, async () => {
      const started = Date.now()
      const error = await timed`UPDATE items SET label = 'late' WHERE id = 1`.catch((caught: unknown) => caught)
      expect(error).toBeInstanceOf(StorageUnavailableError)
      expect(Date.now() - started).toBeLessThan(900)
    })
    await Bun.sleep(200)
    // Cancelled: it did not run once the lock was released.
    expect(await pool`SELECT label FROM items WHERE id = 1`).toEqual([{ label: 'one' }])
  })

  it('rolls back a transaction past its deadline, even when its work goes on afterwards', async () => {
    await holdingRow(1000, async () => {
      const error = await timed
        .begin(async (tx) => {
          await tx`INSERT INTO items VALUES (2, 'two')`
          await tx`UPDATE items SET label = 'changed' WHERE id = 1`
        })
        .catch((caught: unknown) => caught)
      expect(error).toBeInstanceOf(StorageUnavailableError)
    })
    // The work resumed once the lock was released; it was rolled back, not committed.
    await Bun.sleep(300)
    expect(await pool`SELECT id, label FROM items ORDER BY id`).toEqual([{ id: 1, label: 'one' }])
  })

  it('leaves answered statements, result modes, helpers and transactions as they were', async () => {
    expect(await timed.unsafe('SELECT 1 AS one').values()).toEqual([[1]])
    expect(await timed`SELECT ${'x'}::text AS value`).toEqual([{ value: 'x' }])
    const rows = [{ id: 3, label: 'three' }]
    await timed`INSERT INTO items ${timed(rows)}`
    const result = await timed.begin(async (tx) => {
      await tx`UPDATE items SET label = 'THREE' WHERE id = 3`
      return 'done'
    })
    expect(result).toBe('done')
    expect(await timed`SELECT label FROM items WHERE id = 3`).toEqual([{ label: 'THREE' }])
    // A failure of the statement itself is its own error, not the deadline's.
    expect(await timed`SELECT * FROM missing_table`.catch((error: Error) => error.constructor.name)).not.toBe(
      'StorageUnavailableError',
    )
  })

  it("spares the storage's exclusive transactions, which wait on purpose (start-up under an advisory lock)", async () => {
    const storage = postgresStorage(new SQL(database.url, { max: 2 }), database.url, 300)
    try {
      const slow = (tx: { execute(query: unknown): Promise<unknown> }) => tx.execute(sql`SELECT pg_sleep(0.6)`)
      await expect(storage.transaction((tx) => slow(tx as never), { exclusive: true })).resolves.toBeDefined()
      await expect(storage.transaction((tx) => slow(tx as never))).rejects.toBeInstanceOf(StorageUnavailableError)
    } finally {
      await storage.close()
    }
  })
})
