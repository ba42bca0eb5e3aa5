import { describe, expect, it, setDefaultTimeout } from 'bun:test'
import { loadConfig } from '../../lib/config'
import { DEMO_DASHBOARD_PUBLIC_ID } from '../../src/demo-dashboard'
import { createLogger } from '../../lib/logger'
import { prepareStorage } from '../../src/prepare-storage'
import { createTestApp } from '../helpers/app'
import { TEST_DEMO_DATA } from '../helpers/demo-data'

// The widgets' first queries read the demo data file.
setDefaultTimeout(20_000)

describe('the built-in demo bootstrap', () => {
  it('seeds a published demo dashboard whose every widget loads for an embed viewer', async () => {
    const config = {
      ...loadConfig({ DEMO_API_KEY: 'ak_demo_key_for_tests_0123456789' }),
      dbPath: ':memory:',
      demoDataPath: TEST_DEMO_DATA,
      bootstrapFile: undefined,
    }
    const { storage, demoApiKey } = await prepareStorage(config, createLogger('silent'))
    const app = createTestApp({ storage, bootstrap: { accounts: [] } })
    try {
      const listed = await app.request('GET', '/api/v1/deployments/1/dashboards?published=true', {
        headers: { authorization: `Api-Key ${demoApiKey}` },
      })
      const dashboards = (await listed.json()) as {
        items: Array<{ name: string; publicId: string; widgets: Array<{ id: string }> }>
      }
      expect(dashboards.items.map((item) => [item.name, item.publicId])).toEqual([
        ['Sales overview', DEMO_DASHBOARD_PUBLIC_ID],
      ])
      const session = await app.request('POST', '/api/v1/embed/generate-session', {
        headers: { authorization: `Api-Key ${demoApiKey}` },
        body: { deploymentId: 1, externalId: 'demo-viewer', userAttributes: [{ name: 'region', value: 'Europe' }] },
      })
      const { sessionId } = (await session.json()) as { sessionId: string }
      const token = (
        (await (await app.request('POST', '/api/v1/embed/session/token', { body: { sessionId } })).json()) as {
          token: string
        }
      ).token
      for (const widget of dashboards.items[0].widgets) {
        const response = await app.request(
          'GET',
          `/api/v1/embed/dashboards/${DEMO_DASHBOARD_PUBLIC_ID}/widgets/${widget.id}/data`,
          {
            headers: { authorization: `Embed-Token ${token}` },
          },
        )
        expect([widget.id, response.status]).toEqual([widget.id, 200])
      }
    } finally {
      app.close()
    }
  })
})
