import { afterEach, describe, expect, it } from 'bun:test'
import type { Db } from '../../../db/client'
import { D1, managementApp, type ManagementApp } from './helpers'

let app: ManagementApp
afterEach(() => app?.close())

describe('management writes and other transactions', () => {
  it('keeps a folder created while another transaction is open, when that transaction rolls back', async () => {
    app = managementApp()
    const { storage } = app
    let begun!: () => void
    const inside = new Promise<void>((resolve) => (begun = resolve))
    let rollBack!: () => void
    const held = new Promise<void>((resolve) => (rollBack = resolve))
    const other = storage
      .transaction(async () => {
        begun()
        await held
        throw new Error('rolled back on purpose')
      })
      .catch((error: Error) => error.message)
    await inside
    // Told when the request asks for a transaction of its own: on SQLite it then waits for the open one.
    const transaction = storage.transaction.bind(storage)
    let asked!: (value: 'waiting') => void
    const waiting = new Promise<'waiting'>((resolve) => (asked = resolve))
    storage.transaction = <T>(work: (tx: Db) => Promise<T>) => {
      asked('waiting')
      return transaction(work)
    }
    const created = app.call('POST', `${D1}/folders`, { name: 'Kept' })
    // A write made outside a transaction would answer at once, inside the open one, and vanish with it.
    expect(await Promise.race([waiting, created.then(() => 'answered')])).toBe('waiting')
    rollBack()
    expect(await other).toBe('rolled back on purpose')
    expect((await created).status).toBe(201)
    const listed = await app.call('GET', `${D1}/folders`)
    expect(listed.body.items.map((folder: { name: string }) => folder.name)).toEqual(['Kept'])
  })
})
