import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import type { Browser } from 'playwright-core'
import { createTestApp, type TestApp } from '../../helpers/app'
import { chromiumAvailable, launchBrowser, screenshot, watch } from './helpers/browser'

let browser: Browser
let test: TestApp
let origin = ''

// Launching the browser outlasts bun's 5 s hook limit on a busy machine.
beforeAll(async () => {
  // Without Chromium the tests below are skipped (saying so); nothing to set up.
  if (!chromiumAvailable) return
  test = createTestApp()
  test.app.listen({ port: 0, hostname: '127.0.0.1', reusePort: false })
  origin = `http://127.0.0.1:${test.app.server!.port}`
  browser = await launchBrowser()
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await test?.app.stop(true)
  await test?.close()
})

describe.skipIf(!chromiumAvailable)('GET /openapi in a browser', () => {
  it('renders the API reference with every request to another origin blocked, and asks for none', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    const log = watch(page)
    const foreign: string[] = []
    await page.route('**/*', (route) => {
      const url = route.request().url()
      if (url.startsWith(`${origin}/`) || url.startsWith('data:') || url.startsWith('blob:')) return route.continue()
      foreign.push(url)
      return route.abort()
    })
    try {
      await page.goto(`${origin}/openapi`)
      // The document's title, its tags and the operations of the first one appear.
      await page
        .getByRole('heading', { name: 'Analytics chat streaming and embed session service' })
        .waitFor({ timeout: 30_000 })
      for (const text of ['Embed tenants', 'Semantic layer', 'Readiness', 'Prometheus metrics'])
        await page.getByText(text).first().waitFor()
      // The vendor's hosted extras are off.
      expect(await page.getByText('Ask AI').count()).toBe(0)
      expect(await page.getByText('Generate MCP').count()).toBe(0)
      await screenshot(page, 'api-reference-offline')
      expect(foreign).toEqual([])
      expect(log.errors).toEqual([])
      // Its icon is the service's own, so the browser does not ask for /favicon.ico (a 404 in the console).
      const icon = await page.locator('link[rel="icon"]').getAttribute('href')
      expect((await page.request.get(`${origin}${icon}`)).status()).toBe(200)
      expect(log.console.filter((entry) => entry.type === 'error')).toEqual([])
    } finally {
      await page.close()
    }
  }, 60_000)

  it("shows credential headers in the examples as the server reads them: the scheme's word, then the secret", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    try {
      await page.goto(`${origin}/openapi`)
      await page.locator('nav, aside').getByText('Embed', { exact: true }).first().click({ timeout: 30_000 })
      await page
        .getByText(/generate.?session/i)
        .first()
        .click()
      const example = () =>
        page
          .locator('pre, code, .cm-content')
          .evaluateAll((elements) =>
            elements
              .map((element) => element.textContent ?? '')
              .find((text) => text.includes('curl') && text.includes('/api/v1/embed/generate-session')),
          )
      await page.waitForFunction(
        () =>
          [...document.querySelectorAll('pre, code, .cm-content')].some((element) =>
            element.textContent?.includes('/api/v1/embed/generate-session \\'),
          ),
        undefined,
        { timeout: 15_000 },
      )
      // A key pasted in place of the placeholder works as copied, where a bare key is refused.
      expect(await example()).toContain("--header 'Authorization: Api-Key YOUR_API_KEY'")
    } finally {
      await page.close()
    }
  }, 60_000)
})
