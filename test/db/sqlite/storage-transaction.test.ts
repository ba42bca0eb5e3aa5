import { describe, expect, it } from 'bun:test'
import { Database } from 'bun:sqlite'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { eq } from 'drizzle-orm'
import { first } from '../../../db/client'
import { openStorage, type SqliteStorage } from '../../../db/sqlite/sqlite-storage'
import { writeBatchOf } from '../../../db/sqlite/write-batch'

describe('storage.transaction on SQLite', () => {
  it('commits everything the work wrote, across its awaits', async () => {
    const storage = openStorage(':memory:')
    const { accounts } = storage.tables
    await storage.transaction(async (tx) => {
      await tx.insert(accounts).values({ name: 'one', plan: 'free', createdAt: 1 })
      await tx.insert(accounts).values({ name: 'two', plan: 'free', createdAt: 1 })
    })
    expect((await storage.db.select().from(accounts)).map((row) => row.name).sort()).toEqual(['one', 'two'])
    await storage.close()
  })

  it('rolls back everything when the work throws, and rethrows', async () => {
    const storage = openStorage(':memory:')
    const { accounts } = storage.tables
    const failing = storage.transaction(async (tx) => {
      await tx.insert(accounts).values({ name: 'kept?', plan: 'free', createdAt: 1 })
      throw new Error('no')
    })
    expect(failing).rejects.toThrow('no')
    await failing.catch(() => undefined)
    expect(await first(storage.db.select().from(accounts).where(eq(accounts.name, 'kept?')))).toBeUndefined()
    await storage.close()
  })

  it('runs concurrent transactions one after the other, and a group commit waits for the open one', async () => {
    const storage = openStorage(':memory:')
    const { accounts } = storage.tables
    const order: string[] = []
    const slow = storage.transaction(async (tx) => {
      order.push('slow begins')
      await tx.insert(accounts).values({ name: 'slow', plan: 'free', createdAt: 1 })
      await new Promise((resolve) => setTimeout(resolve, 20))
      order.push('slow ends')
    })
    const batched = writeBatchOf(storage).run(() => {
      order.push('batch')
      storage.sqlite.run("INSERT INTO accounts (name, plan, created_at) VALUES ('batched', 'free', 1)")
    })
    const second = storage.transaction(async (tx) => {
      order.push('second')
      await tx.insert(accounts).values({ name: 'second', plan: 'free', createdAt: 1 })
    })
    await Promise.all([slow, batched, second])
    expect(order.slice(0, 2)).toEqual(['slow begins', 'slow ends'])
    expect((await storage.db.select().from(accounts)).length).toBe(3)
    await storage.close()
  })

  it('commits transactions and writes started together once, each rolled back alone when it fails', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'group-commit-'))
    const storage = openStorage(join(dir, 'service.db'))
    // Another connection's data_version moves once per commit of this one.
    const observer = new Database(join(dir, 'service.db'))
    const version = () => observer.query<{ data_version: number }, []>('PRAGMA data_version').get()!.data_version
    try {
      const { accounts } = storage.tables
      const before = version()
      const outcomes = await Promise.allSettled([
        ...Array.from({ length: 6 }, (_, index) =>
          storage.transaction(async (tx) => {
            await tx.insert(accounts).values({ name: `account ${index}`, plan: 'free', createdAt: 1 })
            if (index === 2) throw new Error('this one fails')
          }),
        ),
        writeBatchOf(storage).run(() => {
          storage.sqlite.run("INSERT INTO accounts (name, plan, created_at) VALUES ('batched', 'free', 1)")
        }),
      ])
      expect(outcomes.map((outcome) => outcome.status)).toEqual([
        'fulfilled',
        'fulfilled',
        'rejected',
        'fulfilled',
        'fulfilled',
        'fulfilled',
        'fulfilled',
      ])
      expect(version() - before).toBe(1)
      const names = (await storage.db.select().from(accounts)).map((row) => row.name).sort()
      expect(names).toEqual(['account 0', 'account 1', 'account 3', 'account 4', 'account 5', 'batched'])
    } finally {
      observer.close()
      await storage.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('SQLite writers while another process holds the write lock', () => {
  /** Two storages on one file, as two WORKERS processes have; `other` holds the write lock until `release`. */
  async function onOneFile(test: (mine: SqliteStorage, other: SqliteStorage) => Promise<void>) {
    const dir = mkdtempSync(join(tmpdir(), 'write-lock-test-'))
    const mine = openStorage(join(dir, 'service.db'))
    const other = openStorage(join(dir, 'service.db'))
    try {
      await test(mine, other)
    } finally {
      await mine.close()
      await other.close()
      rmSync(dir, { recursive: true, force: true })
    }
  }
  const insert = (storage: SqliteStorage, name: string) =>
    storage.sqlite.run('INSERT INTO accounts (name, plan, created_at) VALUES (?, ?, 1)', [name, 'free'])

  it('a group commit waits on timers, the event loop serving meanwhile, and commits once the lock is free', () =>
    onOneFile(async (mine, other) => {
      other.sqlite.run('BEGIN IMMEDIATE')
      const order: string[] = []
      const committed = writeBatchOf(mine)
        .run(() => insert(mine, 'batched'))
        .then(() => order.push('committed'))
      // Timers fire while the lock is held: the process is not stuck in SQLite's busy handler.
      await new Promise((resolve) => setTimeout(resolve, 20))
      order.push('timer')
      const queuedMeanwhile = writeBatchOf(mine).run(() => insert(mine, 'queued meanwhile'))
      other.sqlite.run('COMMIT')
      await Promise.all([committed, queuedMeanwhile])
      expect(order).toEqual(['timer', 'committed'])
      expect(other.sqlite.query('SELECT name FROM accounts ORDER BY name').values()).toEqual([
        ['batched'],
        ['queued meanwhile'],
      ])
    }))

  it('a transaction waits for the lock on timers too', () =>
    onOneFile(async (mine, other) => {
      other.sqlite.run('BEGIN IMMEDIATE')
      const order: string[] = []
      const done = mine
        .transaction(async () => {
          insert(mine, 'in a transaction')
        })
        .then(() => order.push('committed'))
      await new Promise((resolve) => setTimeout(resolve, 20))
      order.push('timer')
      other.sqlite.run('COMMIT')
      await done
      expect(order).toEqual(['timer', 'committed'])
      expect(other.sqlite.query('SELECT name FROM accounts').values()).toEqual([['in a transaction']])
    }))
})
