import { afterEach, describe, expect, it } from 'bun:test'
import { D1, managementApp, type ManagementApp } from './helpers'

let app: ManagementApp
afterEach(() => app?.close())

describe('API versioning (release v0.2.1)', () => {
  it('answers the operations removed in v0.2.0 with 404 saying so', async () => {
    app = managementApp()
    const list = await app.call('GET', '/api/v1/embed-tenants/tenant-one/user-attributes')
    expect(list.status).toBe(404)
    expect(list.body.error).toContain('removed in release v0.2.0')
    const remove = await app.call('DELETE', '/api/v1/embed-tenants/tenant-one/user-attributes/1')
    expect(remove.status).toBe(404)
    expect(remove.body.error).toContain('removed in release v0.2.0')
  })

  it('keeps the deprecated data and count of the renamed list responses (v0.1.0, v0.1.1)', async () => {
    app = managementApp()
    await app.call('POST', `${D1}/folders`, { name: 'F' })
    await app.call('POST', `${D1}/reports`, { name: 'R', query: 'SELECT 1' })
    for (const path of ['folders', 'reports']) {
      const list = await app.call('GET', `${D1}/${path}`)
      expect(list.body).toMatchObject({ count: 1, pageInfo: { hasNextPage: false } })
      expect(list.body.data).toEqual(list.body.items)
    }
  })

  it('documents the management operations of v0.2.1 in the OpenAPI document', async () => {
    app = managementApp()
    const document = (await app.call('GET', '/openapi/json')).body
    for (const path of [
      '/api/v1/deployments/{deploymentId}/dbt-sync',
      '/api/v1/deployments/{deploymentId}/reports/{reportId}/connect-workbook',
      '/api/v1/deployments/{deploymentId}/workbooks/{workbookId}/dashboard/ai-widget-thread',
      '/api/v1/deployments/{deploymentId}/reports',
      '/api/v1/deployments/{deploymentId}/folders',
      '/api/v1/app-config',
      '/api/v1/deployments/{deploymentId}/notifications',
      '/api/v1/deployments/{deploymentId}/workbooks/{workbookId}/duplicate',
    ])
      expect(Object.keys(document.paths)).toContain(path)
    // The document carries the chat API's version (1.0.0); the management release is named in its description.
    expect(document.info.version).toBe('1.0.0')
    expect(document.info.description).toContain('release v0.2.1')
  })
})
