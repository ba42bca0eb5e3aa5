import { describe, expect, it } from 'bun:test'
import { eq } from 'drizzle-orm'
import { first, openStorage } from '../../db/client'
import { writeBatchOf } from '../../db/write-batch'

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
})
