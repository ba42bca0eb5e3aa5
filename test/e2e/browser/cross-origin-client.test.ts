import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import type { Server } from 'bun'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { createTestApp, type TestApp } from '../../helpers/app'
import { keys } from '../../helpers/fixtures'
import { chromiumAvailable, launchBrowser, watch } from './helpers/browser'

const root = join(import.meta.dir, '..', '..', '..')

/** A page that loads the bundled client and runs `script` with `createPlatformClient` and `api` in scope. */
function pageServer(clientScript: string, api: () => string): Server<unknown> {
  return Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    reusePort: false,
    fetch(request) {
      const { pathname } = new URL(request.url)
      if (pathname === '/client.js')
        return new Response(clientScript, { headers: { 'content-type': 'text/javascript' } })
      return new Response(
        `<!doctype html><title>app</title><script type="module">window.api = ${JSON.stringify(api())}</script>`,
        {
          headers: { 'content-type': 'text/html' },
        },
      )
    },
  })
}

let browser: Browser
let test: TestApp
let appOrigin: Server<unknown>
let otherOrigin: Server<unknown>
let apiUrl = ''

// Launching the browser outlasts bun's 5 s hook limit on a busy machine.
beforeAll(async () => {
  // Without Chromium the tests below are skipped (saying so); nothing to set up.
  if (!chromiumAvailable) return
  // The client, bundled for browsers from its own folder alone.
  const built = await Bun.build({ entrypoints: [join(root, 'client', 'index.ts')], target: 'browser', format: 'esm' })
  expect(built.success).toBe(true)
  const clientScript = await built.outputs[0].text()
  appOrigin = pageServer(clientScript, () => apiUrl)
  otherOrigin = pageServer(clientScript, () => apiUrl)
  test = createTestApp({ config: { corsOrigins: [`http://127.0.0.1:${appOrigin.port}`] } })
  test.app.listen({ port: 0, hostname: '127.0.0.1', reusePort: false })
  apiUrl = `http://127.0.0.1:${test.app.server!.port}`
  browser = await launchBrowser()
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await test?.app.stop(true)
  await test?.close()
  appOrigin?.stop(true)
  otherOrigin?.stop(true)
})

/** In a page of `origin`: an admin mints a session, the viewer exchanges it and asks the chat, all through the client. */
async function runClient(origin: Server<unknown>) {
  const page = await browser.newPage()
  const log = watch(page)
  try {
    await page.goto(`http://127.0.0.1:${origin.port}/`)
    return {
      log,
      result: await page.evaluate(async (adminKey) => {
        const clientUrl: string = '/client.js'
        const { createPlatformClient } = (await import(clientUrl)) as typeof import('../../../client')
        const baseUrl = (window as unknown as { api: string }).api
        try {
          const admin = createPlatformClient({ baseUrl, apiKey: adminKey })
          const { sessionId } = await admin.embed.generateSession({ deploymentId: 1, externalId: 'browser-viewer' })
          const { token } = await createPlatformClient({ baseUrl }).embed.exchangeSession(sessionId)
          const viewer = createPlatformClient({ baseUrl, embedToken: token })
          const run = viewer.chat.stream({ accountName: 'acme', agentId: 1, input: 'How many orders are there?' })
          let lines = 0
          for await (const _event of run) lines++
          return { ok: true, lines, answer: run.finalAnswer?.content ?? '' }
        } catch (error) {
          return { ok: false, error: String(error) }
        }
      }, keys.admin),
    }
  } finally {
    await page.close()
  }
}

describe.skipIf(!chromiumAvailable)('the TypeScript client in a browser on another origin', () => {
  it('mints a session, exchanges it and streams a chat answer when the origin is in CORS_ORIGINS', async () => {
    const { result } = await runClient(appOrigin)
    expect(result).toMatchObject({ ok: true })
    expect(result.lines).toBeGreaterThan(3)
    expect(result.answer).toMatch(/\d/)
  }, 60_000)

  it('is refused by the browser on an origin that is not listed', async () => {
    const { result, log } = await runClient(otherOrigin)
    expect(result.ok).toBe(false)
    expect(log.console.some((entry) => entry.text.includes('CORS policy'))).toBe(true)
  }, 60_000)
})
