import { afterEach, describe, expect, it } from 'bun:test'
import { eq } from 'drizzle-orm'
import { first } from '../../../../db/client'
import { QUEUED_MS, RUNNING_MS } from '../../../../plugins/management/settings/dbt-sync'
import { keys } from '../../../helpers/fixtures'
import { D1, D2, managementApp, type ManagementApp, apiKeyId } from '../helpers'

let app: ManagementApp
afterEach(() => app?.close())

describe('POST /api/v1/deployments/:deploymentId/dbt-sync', () => {
  it('creates a job on the default branch and returns branchName, syncJobId and workflowId', async () => {
    app = managementApp()
    const started = await app.call('POST', `${D1}/dbt-sync`)
    expect(started.status).toBe(201)
    expect(started.body).toEqual({
      branchName: 'main',
      syncJobId: expect.stringMatching(/^dbtsync_/),
      workflowId: expect.stringMatching(/^wf_/),
    })
  })

  it('syncs a named branch and refuses an unknown one with 400', async () => {
    app = managementApp()
    expect((await app.call('POST', `${D1}/dbt-sync`, { branchName: 'dev' })).body.branchName).toBe('dev')
    const unknown = await app.call('POST', `${D1}/dbt-sync`, { branchName: 'feature-x' })
    expect(unknown).toMatchObject({ status: 400, body: { code: 'UNKNOWN_BRANCH' } })
    expect(unknown.body.error).toContain('main, dev')
  })

  it('refuses a second sync of a branch while one is queued or running (409), and allows it after', async () => {
    app = managementApp()
    const first = await app.call('POST', `${D1}/dbt-sync`, { branchName: 'main' })
    const again = await app.call('POST', `${D1}/dbt-sync`, { branchName: 'main' })
    expect(again).toMatchObject({ status: 409, body: { code: 'DBT_SYNC_IN_PROGRESS' } })
    expect(again.body.error).toContain(first.body.syncJobId)
    expect((await app.call('POST', `${D1}/dbt-sync`, { branchName: 'dev' })).status).toBe(201)
    app.clock.advance(QUEUED_MS + RUNNING_MS)
    expect((await app.call('POST', `${D1}/dbt-sync`, { branchName: 'main' })).status).toBe(201)
  })

  it('needs the DbtSync permission', async () => {
    app = managementApp()
    const memberKeyId = await apiKeyId(app, 'member')
    await app.call('PUT', `/api/v1/api-keys/${memberKeyId}/policy`, { role: 'viewer' })
    expect((await app.call('POST', `${D1}/dbt-sync`, {}, keys.member)).status).toBe(403)
  })
})

describe('GET /api/v1/deployments/:deploymentId/dbt-sync/:syncJobId', () => {
  it('moves the job from queued to running to succeeded as time passes', async () => {
    app = managementApp()
    const { syncJobId, workflowId } = (await app.call('POST', `${D1}/dbt-sync`, { branchName: 'dev' })).body
    const read = async () => (await app.call('GET', `${D1}/dbt-sync/${syncJobId}`)).body
    expect(await read()).toEqual({
      syncJobId,
      workflowId,
      branchName: 'dev',
      status: 'queued',
      createdAt: '2026-07-20T12:00:00.000Z',
      startedAt: null,
      finishedAt: null,
    })
    app.clock.advance(QUEUED_MS)
    expect(await read()).toMatchObject({ status: 'running', startedAt: '2026-07-20T12:00:01.000Z', finishedAt: null })
    app.clock.advance(RUNNING_MS)
    expect(await read()).toMatchObject({
      status: 'succeeded',
      startedAt: '2026-07-20T12:00:01.000Z',
      finishedAt: '2026-07-20T12:00:05.000Z',
    })
    const { dbtSyncJobs } = app.storage.tables
    const stored = await first(
      app.storage.db.select({ status: dbtSyncJobs.status }).from(dbtSyncJobs).where(eq(dbtSyncJobs.id, syncJobId)),
    )
    expect(stored?.status).toBe('succeeded')
  })

  it("answers 404 for an unknown job and for another deployment's job", async () => {
    app = managementApp()
    const { syncJobId } = (await app.call('POST', `${D1}/dbt-sync`)).body
    expect((await app.call('GET', `${D1}/dbt-sync/dbtsync_nope`)).body.code).toBe('DBT_SYNC_JOB_NOT_FOUND')
    expect((await app.call('GET', `${D2}/dbt-sync/${syncJobId}`)).status).toBe(404)
  })
})
