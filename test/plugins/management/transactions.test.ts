import { afterEach, describe, expect, it } from 'bun:test'
import { eq } from 'drizzle-orm'
import type { Db } from '../../../db/client'
import type { ManagementContext } from '../../../plugins/management/access/context'
import { updateDashboard } from '../../../plugins/management/dashboards/dashboards'
import { startDbtSync } from '../../../plugins/management/settings/dbt-sync'
import { createFolder } from '../../../plugins/management/workbooks/folders'
import { createNotification } from '../../../plugins/management/reports/notifications'
import { deleteReport } from '../../../plugins/management/reports/reports'
import { updateAIEngineerSettings } from '../../../plugins/management/settings/settings'
import { chatThread, D1, managementApp, workbookWithDashboard, type ManagementApp } from './helpers'

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

/**
 * Makes another writer's change land between a transaction's reads and its first update of `table`. On Postgres
 * the change commits on a connection of its own, as another node's would; on SQLite, whose transactions run one at
 * a time so the race never happens by itself, the stand-in runs on the one connection, inside the transaction.
 */
function changeBeforeFirstUpdate(app: ManagementApp, table: object, change: () => PromiseLike<unknown>) {
  const { storage } = app
  const transaction = storage.transaction.bind(storage)
  let changed = false
  storage.transaction = <T>(work: (tx: Db) => Promise<T>) =>
    transaction((tx) => {
      const interleaved = new Proxy(tx, {
        get(target, property) {
          if (property !== 'update') return Reflect.get(target, property, target)
          return (updated: object) => {
            const builder = target.update(updated as never)
            if (updated !== table || changed) return builder
            changed = true
            return runningFirst(builder, change)
          }
        },
      })
      return work(interleaved)
    })
}

/** A query builder whose chained calls stay builders, and which runs `before` first when it is awaited. */
function runningFirst<Builder extends object>(builder: Builder, before: () => PromiseLike<unknown>): Builder {
  return new Proxy(builder, {
    get(target, property) {
      const value = Reflect.get(target, property, target)
      if (property === 'then')
        return (resolve: (value: unknown) => unknown, reject: (reason: unknown) => unknown) =>
          Promise.resolve(before()).then(
            () => (target as unknown as PromiseLike<unknown>).then(resolve, reject),
            reject,
          )
      if (typeof value !== 'function') return value
      return (...args: unknown[]) => {
        const result = value.apply(target, args)
        return typeof result === 'object' && result !== null ? runningFirst(result, before) : result
      }
    },
  })
}

/** Another writer renaming the dashboard (deliberately outside any transaction of this request). */
function renameElsewhere(app: ManagementApp, id: number) {
  const { dashboards } = app.storage.tables
  return () =>
    app.storage.db.update(dashboards).set({ name: 'Theirs', checksum: 'theirs' }).where(eq(dashboards.id, id))
}

describe('dashboard edits racing another writer', () => {
  it('answers 409 to an update with a checksum when the dashboard changes between its read and its write', async () => {
    app = managementApp()
    const { dashboard } = await workbookWithDashboard(app)
    changeBeforeFirstUpdate(app, app.storage.tables.dashboards, renameElsewhere(app, dashboard.id))
    const mine = await app.call('PATCH', `${D1}/dashboards/${dashboard.id}`, {
      name: 'Mine',
      checksum: dashboard.checksum,
    })
    expect(mine).toMatchObject({ status: 409, body: { code: 'STALE_CHECKSUM' } })
    // On SQLite the stand-in for the other writer ran inside the refused transaction, so it is rolled back with it.
    expect((await app.call('GET', `${D1}/dashboards/${dashboard.id}`)).body.name).toBe(
      app.storage.dialect === 'sqlite' ? 'Sales board' : 'Theirs',
    )
  })

  it("makes an edit without checksum again on the newer dashboard, keeping the other writer's change", async () => {
    app = managementApp()
    const { workbook, dashboard } = await workbookWithDashboard(app, { published: true })
    const threadId = await chatThread(app)
    changeBeforeFirstUpdate(app, app.storage.tables.dashboards, renameElsewhere(app, dashboard.id))
    const path = `${D1}/workbooks/${workbook.id}/dashboard/ai-widget-thread`
    const attached = await app.call('POST', path, { threadId, widgetId: 'w1' })
    expect(attached.status).toBe(200)
    expect(attached.body).toMatchObject({ name: 'Theirs', aiWidgetThreads: [{ widgetId: 'w1', threadId }] })
    expect((await app.call('GET', `${D1}/dashboards/${dashboard.id}`)).body).toMatchObject({
      name: 'Theirs',
      aiWidgetThreads: [{ widgetId: 'w1', threadId }],
    })
  })
})

describe('management operations refused by the key policy', () => {
  it('reject their promise instead of throwing before returning one', async () => {
    app = managementApp()
    const viewer: ManagementContext = {
      storage: app.storage,
      db: app.storage.db,
      now: app.clock(),
      deploymentId: 1,
      actor: { accountId: 1, keyId: 1, deploymentScope: null, actions: new Set(['ContentRead']) },
    }
    // A caller chaining `.catch()` (or collecting promises for Promise.all) sees the refusal only as a rejection.
    const refused = [
      () => createFolder(viewer, { name: 'Kept' }),
      () => deleteReport(viewer, 1),
      () => updateDashboard(viewer, 1, { name: 'Renamed' }),
      () => createNotification(viewer, { dashboardId: 1, name: 'n', schedule: { frequency: 'daily' }, recipients: [] }),
      () => startDbtSync(viewer, ['main'], {}),
      () => updateAIEngineerSettings(viewer, { instructions: 'x' }),
    ]
    for (const operation of refused)
      expect(await operation().catch((error: { code: string }) => error.code)).toBe('PERMISSION_DENIED')
  })
})
