import { afterEach, describe, expect, it } from 'bun:test'
import { keys } from '../../../helpers/fixtures'
import { managementApp, type ManagementApp } from '../helpers'

let app: ManagementApp
afterEach(() => app?.close())

describe('GET /api/v1/deployments', () => {
  it("lists the key's account's deployments with their agents and branches", async () => {
    app = managementApp()
    const listed = await app.call('GET', '/api/v1/deployments')
    expect(listed.status).toBe(200)
    expect(listed.body.items.map((deployment: { id: number }) => deployment.id)).toEqual([1, 2])
    expect(listed.body.items[0]).toEqual({
      id: 1,
      name: 'Sales analytics',
      branches: expect.arrayContaining([expect.any(String)]),
      defaultBranch: expect.any(String),
      agents: [{ id: 1, name: 'Analyst', kind: 'analyst' }],
    })
    expect(listed.body.items[0].branches[0]).toBe(listed.body.items[0].defaultBranch)
  })

  it("lists only the deployments in a scoped key's scope", async () => {
    app = managementApp()
    const listed = await app.call('GET', '/api/v1/deployments', undefined, keys.scoped)
    expect(listed.body.items.map((deployment: { id: number }) => deployment.id)).toEqual([2])
  })

  it("never shows another account's deployments", async () => {
    app = managementApp()
    const listed = await app.call('GET', '/api/v1/deployments', undefined, keys.otherAdmin)
    expect(listed.status).toBe(200)
    expect(listed.body.items.map((deployment: { id: number }) => deployment.id)).not.toContain(1)
    expect(listed.body.items.map((deployment: { id: number }) => deployment.id)).not.toContain(2)
  })

  it('returns 401 without a key and for a revoked key, with the error body', async () => {
    app = managementApp()
    const missing = await app.call('GET', '/api/v1/deployments', undefined, '')
    expect(missing).toMatchObject({ status: 401, body: { code: 'MISSING_CREDENTIALS' } })
    const revoked = await app.call('GET', '/api/v1/deployments', undefined, keys.revoked)
    expect(revoked.status).toBe(401)
    expect(revoked.body.error).toEqual(expect.any(String))
  })
})
