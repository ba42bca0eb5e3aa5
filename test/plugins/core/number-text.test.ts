import { afterEach, describe, expect, it } from 'bun:test'
import { apiKey, createTestApp, type TestApp } from '../../helpers/app'
import { keys } from '../../helpers/fixtures'

let test: TestApp
afterEach(() => test?.close())

const admin = apiKey(keys.admin)

describe('numbers written in paths and queries', () => {
  it('reads an id only as decimal digits: 0x1, 1e0, +1 or a padded id name no resource, nor does a rounded one', async () => {
    test = createTestApp()
    const created = await test.request('POST', '/api/v1/deployments/1/folders', { headers: admin, body: { name: 'F' } })
    const { id } = await created.json()
    expect(id).toBe(1)
    const read = await test.request('GET', '/api/v1/deployments/1/folders/1', { headers: admin })
    expect(read.status).toBe(200)
    for (const written of ['0x1', '1e0', '+1', '%201', '1.0', '9007199254740993']) {
      const response = await test.request('GET', `/api/v1/deployments/1/folders/${written}`, { headers: admin })
      expect({ written, status: response.status, code: (await response.json()).code }).toEqual({
        written,
        status: 400,
        code: 'VALIDATION_FAILED',
      })
    }
    // A page size too: 1e1 is not ten.
    const page = await test.request('GET', '/api/v1/deployments/1/reports?first=1e1', { headers: admin })
    expect(page.status).toBe(400)
    expect((await test.request('GET', '/api/v1/deployments/1/reports?first=10', { headers: admin })).status).toBe(200)
  })

  it('names no agent by 1e0 or 0x1 in the chat address', async () => {
    test = createTestApp()
    for (const written of ['1e0', '0x1']) {
      const response = await test.request('POST', `/api/v1/public/acme/agents/${written}/chat/stream-chat-state`, {
        headers: admin,
        body: { chatId: 'x' },
      })
      expect({ written, status: response.status, body: await response.json() }).toEqual({
        written,
        status: 404,
        body: { error: `Agent ${written} not found`, code: 'AGENT_NOT_FOUND' },
      })
    }
  })
})
