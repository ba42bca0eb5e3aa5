import { afterEach, describe, expect, it } from 'bun:test'
import { D1, D2, managementApp, type ManagementApp } from '../helpers'

let app: ManagementApp
afterEach(() => app?.close())

async function report() {
  return (
    await app.call('POST', `${D1}/reports`, {
      name: 'Revenue',
      query: 'SELECT MEASURE(orders.total_amount) FROM orders',
    })
  ).body
}

describe('POST /api/v1/deployments/:deploymentId/reports/:reportId/snapshots', () => {
  it("freezes the report's query with fillMissingRows, unchanged by later edits of the report", async () => {
    app = managementApp()
    const { id } = await report()
    const fillMissingRows = { member: 'orders.created_at', excludedDimensions: ['customers.region'] }
    const snapshot = await app.call('POST', `${D1}/reports/${id}/snapshots`, { name: 'Q2 close', fillMissingRows })
    expect(snapshot.status).toBe(201)
    expect(snapshot.body).toEqual({
      id: expect.any(Number),
      reportId: id,
      name: 'Q2 close',
      query: 'SELECT MEASURE(orders.total_amount) FROM orders',
      fillMissingRows,
      createdAt: '2026-07-20T12:00:00.000Z',
      updatedAt: '2026-07-20T12:00:00.000Z',
    })
    await app.call('PATCH', `${D1}/reports/${id}`, { query: 'SELECT 2' })
    expect((await app.call('GET', `${D1}/reports/${id}/snapshots/${snapshot.body.id}`)).body.query).toBe(
      'SELECT MEASURE(orders.total_amount) FROM orders',
    )
  })

  it('takes a snapshot without a body, named after the report', async () => {
    app = managementApp()
    const { id } = await report()
    const snapshot = await app.call('POST', `${D1}/reports/${id}/snapshots`)
    expect(snapshot.status).toBe(201)
    expect(snapshot.body).toMatchObject({ name: 'Revenue (2026-07-20T12:00:00.000Z)', fillMissingRows: null })
  })

  it("cuts a long report's name in the default name to the limit a name has, so the name read can be sent back", async () => {
    app = managementApp()
    const long = await app.call('POST', `${D1}/reports`, {
      name: `${'a'.repeat(170)}${'📈'.repeat(15)}`,
      query: 'SELECT 1',
    })
    const snapshot = await app.call('POST', `${D1}/reports/${long.body.id}/snapshots`)
    expect(snapshot.status).toBe(201)
    const name: string = snapshot.body.name
    expect(name.length).toBeLessThanOrEqual(200)
    expect(name).toEndWith('… (2026-07-20T12:00:00.000Z)')
    expect(name).toStartWith(`${'a'.repeat(170)}📈`)
    expect(name.isWellFormed()).toBe(true) // no emoji split in half
    const renamed = await app.call('PATCH', `${D1}/reports/${long.body.id}/snapshots/${snapshot.body.id}`, { name })
    expect(renamed).toMatchObject({ status: 200, body: { name } })
  })

  it('returns 400 for fillMissingRows without excludedDimensions and 404 for an unknown report', async () => {
    app = managementApp()
    const { id } = await report()
    const bad = await app.call('POST', `${D1}/reports/${id}/snapshots`, {
      fillMissingRows: { member: 'orders.created_at' },
    })
    expect(bad.status).toBe(400)
    expect(bad.body.error).toContain('fillMissingRows')
    expect((await app.call('POST', `${D1}/reports/999/snapshots`, {})).body.code).toBe('REPORT_NOT_FOUND')
    expect((await app.call('POST', `${D2}/reports/${id}/snapshots`, {})).status).toBe(404)
  })
})

describe('GET/PATCH/DELETE /api/v1/deployments/:deploymentId/reports/:reportId/snapshots/:snapshotId', () => {
  it('lists, updates and deletes snapshots, then answers 404', async () => {
    app = managementApp()
    const { id } = await report()
    const first = await app.call('POST', `${D1}/reports/${id}/snapshots`, { name: 'one' })
    app.clock.advance(1000)
    await app.call('POST', `${D1}/reports/${id}/snapshots`, { name: 'two' })
    const page = await app.call('GET', `${D1}/reports/${id}/snapshots?first=1`)
    expect(page.body.items.map((snapshot: { name: string }) => snapshot.name)).toEqual(['one'])
    const next = await app.call('GET', `${D1}/reports/${id}/snapshots?first=1&after=${page.body.pageInfo.endCursor}`)
    expect(next.body.items.map((snapshot: { name: string }) => snapshot.name)).toEqual(['two'])
    expect(next.body.pageInfo.hasNextPage).toBe(false)
    const updated = await app.call('PATCH', `${D1}/reports/${id}/snapshots/${first.body.id}`, {
      fillMissingRows: { member: 'orders.created_at', excludedDimensions: [] },
    })
    expect(updated.body).toMatchObject({
      name: 'one',
      fillMissingRows: { member: 'orders.created_at', excludedDimensions: [] },
    })
    expect((await app.call('DELETE', `${D1}/reports/${id}/snapshots/${first.body.id}`)).status).toBe(204)
    expect((await app.call('GET', `${D1}/reports/${id}/snapshots/${first.body.id}`)).body.code).toBe(
      'SNAPSHOT_NOT_FOUND',
    )
  })

  it('deletes snapshots with their report', async () => {
    app = managementApp()
    const { id } = await report()
    await app.call('POST', `${D1}/reports/${id}/snapshots`, {})
    await app.call('DELETE', `${D1}/reports/${id}`)
    expect(await app.storage.db.select().from(app.storage.tables.reportSnapshots)).toEqual([])
  })
})
