import { afterAll, afterEach, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { keys } from '../../helpers/fixtures'
import { publishDashboard, type Json } from '../../plugins/web/helpers'
import { join } from 'node:path'
import { chromiumAvailable, ARTIFACTS, launchBrowser, screenshot, watch } from './helpers/browser'
import { startEmbedServer, type EmbedServer } from './helpers/embed-server'

setDefaultTimeout(30_000)

let server: EmbedServer
let browser: Browser
let context: BrowserContext
let dashboard: Json

// Launching the browser outlasts bun's 5 s hook limit on a busy machine.
beforeAll(async () => {
  // Without Chromium the tests below are skipped (saying so); nothing to set up.
  if (!chromiumAvailable) return
  server = await startEmbedServer()
  browser = await launchBrowser()
  context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' })
  context.setDefaultTimeout(10_000)
  dashboard = await publishDashboard(server)
}, 60_000)

afterEach(async () => {
  for (const page of context.pages()) await page.close()
})

afterAll(async () => {
  await browser?.close()
  await server?.stop()
})

async function openFrontDoor(width: number, theme: 'light' | 'dark'): Promise<Page> {
  const page = await context.newPage()
  await page.setViewportSize({ width, height: 900 })
  await page.emulateMedia({ colorScheme: theme })
  await page.goto(`${server.url}/`)
  await page.locator('[data-status="running"]').waitFor()
  return page
}

const layouts = [
  { width: 1280, theme: 'light' },
  { width: 375, theme: 'dark' },
] as const

describe.skipIf(!chromiumAvailable)('GET / in a browser', () => {
  for (const { width, theme } of layouts) {
    it(`shows the status, version and documentation links and nothing about accounts without a key, at ${width} px in ${theme} mode`, async () => {
      const page = await openFrontDoor(width, theme)
      const log = watch(page)
      expect(await page.locator('h1').textContent()).toBe('Analytics chat service')
      expect(await page.locator('.home-status').textContent()).toMatch(/^Status: running · version \d+\.\d+\.\d+/)
      expect(await page.getByRole('link', { name: 'API reference' }).getAttribute('href')).toBe('/openapi')
      expect(await page.getByRole('link', { name: 'Metrics' }).getAttribute('href')).toBe('/metrics')
      expect(await page.getByRole('link', { name: 'Embedded pages' }).getAttribute('href')).toBe(
        '/docs/embedding#embedded-pages',
      )
      const text = (await page.locator('body').textContent()) ?? ''
      for (const secret of ['Sales analytics', 'acme', 'Analyst']) expect(text).not.toContain(secret)
      expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBe(0)
      await screenshot(page, `front-door-${width}-${theme}`)
      expect(log.unexpected()).toEqual([])
    })
  }

  it('opens the chapters of the docs from the front door, served by the service itself', async () => {
    const page = await openFrontDoor(1280, 'light')
    const log = watch(page)
    await page.getByRole('link', { name: 'Embedded pages' }).click()
    const heading = page.locator('h2#embedded-pages')
    await heading.waitFor()
    expect(await heading.textContent()).toBe('Embedded pages')
    await page.waitForFunction(() => {
      const top = document.getElementById('embedded-pages')!.getBoundingClientRect().top
      // Scrolled to the heading, within a pixel: the layout can leave it at a fraction above the top.
      return top > -1 && top < window.innerHeight
    })
    expect(await page.locator('h1').textContent()).toBe('Embedding')
    expect(await page.locator('h2').allTextContents()).toContain('Embed sessions')
    // The visible part only: the whole chapter is a very long picture.
    await page.screenshot({ path: join(ARTIFACTS, 'docs-embedded-pages.png') })
    // The README, one click away, links to every chapter on this server.
    await page.goto(`${server.url}/readme`)
    const chapter = page.getByRole('link', { name: 'Several nodes', exact: true })
    await chapter.waitFor()
    expect(await chapter.getAttribute('href')).toBe(`${server.url}/docs/several-nodes`)
    // A chapter opens in this tab, as a site's links between its pages do; another site's page in a new one.
    expect(await chapter.getAttribute('target')).toBeNull()
    await chapter.click()
    await page.waitForURL(`${server.url}/docs/several-nodes`)
    await page.goto(`${server.url}/docs/embedding`)
    const outside = page.getByRole('link', { name: 'uPlot', exact: true })
    await outside.waitFor()
    expect(await outside.getAttribute('target')).toBe('_blank')
    // Numbered steps with code under them read as three steps, each with its commands in a code block.
    await page.goto(`${server.url}/docs/connecting-a-database`)
    const steps = page.locator('article ol').first().locator(':scope > li')
    await steps.first().waitFor()
    expect(await steps.count()).toBe(3)
    expect(await steps.nth(0).locator('pre code').textContent()).toStartWith('npm run cli -- model generate')
    expect(await steps.nth(1).locator('pre code').textContent()).toStartWith('accounts:\n  - name: acme')
    expect(await page.locator('article').textContent()).not.toContain('```')
    expect(log.unexpected()).toEqual([])
  })

  it('says so when the key is not accepted, and shows nothing', async () => {
    const page = await openFrontDoor(1280, 'light')
    await page.getByLabel(/Admin API key/).fill('ak_not_a_key_0123456789')
    await page.getByRole('button', { name: 'Show deployments' }).click()
    await page.getByRole('alert').waitFor()
    expect(await page.getByRole('alert').textContent()).toBe('That key was not accepted.')
    expect(await page.locator('.deployments').count()).toBe(0)
  })

  for (const { width, theme } of layouts) {
    it(`lists the key's deployments and agents and previews the chat and a dashboard as a chosen user, at ${width} px in ${theme} mode`, async () => {
      const page = await openFrontDoor(width, theme)
      const log = watch(page)
      await page.getByLabel(/Admin API key/).fill(keys.admin)
      await page.getByRole('button', { name: 'Show deployments' }).click()
      await page.locator('.deployments').waitFor()
      const listed = await page.locator('.deployments li').allTextContents()
      expect(listed[0]).toContain('Sales analytics')
      expect(listed[0]).toContain('Analyst (#1)')
      expect(listed.join(' ')).toContain('Support analytics')
      // The key is nowhere but in the page's memory: not in storage, cookies, the address or the page's text.
      const kept = await page.evaluate(() => [
        JSON.stringify({ ...localStorage }),
        JSON.stringify({ ...sessionStorage }),
        document.cookie,
        location.href,
        document.body.innerHTML,
      ])
      for (const place of kept) expect(place).not.toContain(keys.admin)
      expect(await page.getByLabel(/Admin API key/).count()).toBe(0)

      await page.getByLabel('User id (externalId)').fill(`front-door-${width}`)
      await page.getByLabel(/Attributes/).fill('region=Asia')
      const curl = (await page.locator('pre.curl').textContent()) ?? ''
      expect(curl).toContain('/api/v1/embed/generate-session')
      expect(curl).toContain('Authorization: Api-Key $API_KEY')
      expect(curl).toContain(`"externalId":"front-door-${width}"`)
      expect(curl).toContain('"userAttributes":[{"name":"region","value":"Asia"}]')

      // The chat, as that user.
      await page.getByRole('button', { name: 'Open as this user' }).click()
      const chat = page.frameLocator('iframe.preview-frame')
      await chat.getByLabel('Ask a question about your data').waitFor()
      // Starter questions arrive with the model, after the composer: wait for the first before counting.
      const starters = chat.getByRole('list', { name: 'Suggested questions' }).getByRole('button')
      await starters.first().waitFor()
      expect(await starters.count()).toBeGreaterThan(0)
      await screenshot(page, `front-door-preview-chat-${width}-${theme}`)

      // A published dashboard, as that user: row-level security shows Asia's rows only.
      await page.getByRole('radio', { name: 'Dashboard' }).check()
      expect(await page.getByRole('combobox', { name: 'Dashboard' }).inputValue()).toBe(dashboard.publicId)
      await page.getByRole('button', { name: 'Open as this user' }).click()
      const board = page.frameLocator('iframe.preview-frame')
      await board.locator('[data-widget="regions"] tbody tr').first().waitFor()
      expect(await board.locator('[data-widget="regions"] tbody tr td:first-child').allTextContents()).toEqual(['Asia'])
      await screenshot(page, `front-door-preview-dashboard-${width}-${theme}`)
      expect(log.unexpected()).toEqual([])
      expect(log.console.map((entry) => entry.text).join('\n')).not.toContain(keys.admin)
    })
  }
})

describe.skipIf(!chromiumAvailable)('every page with all requests to other origins blocked', () => {
  it('renders the front door, the README, a chapter of the docs, the embedded chat and the embedded dashboard from this origin alone', async () => {
    const offline = await browser.newContext({ viewport: { width: 1280, height: 900 } })
    const blocked: string[] = []
    await offline.route('**/*', (route) => {
      const url = route.request().url()
      if (new URL(url).origin === server.url) return route.continue()
      blocked.push(url)
      return route.abort('internetdisconnected')
    })
    try {
      const page = await offline.newPage()
      const log = watch(page)
      await page.goto(`${server.url}/`)
      await page.locator('[data-status="running"]').waitFor()

      await page.goto(`${server.url}/readme`)
      await page.locator('h2#quick-start').waitFor()
      await page.goto(`${server.url}/docs/configuration`)
      await page.locator('h2#bootstrap-file').waitFor()

      const chatSession = await server.mintSession({
        externalId: 'offline-chat',
        userAttributes: [{ name: 'region', value: 'Europe' }],
      })
      await page.goto(`${server.url}/embed/chat?sessionId=${chatSession}`)
      await page.getByLabel('Ask a question about your data').fill('Revenue by month')
      await page.keyboard.press('Enter')
      await page.locator('[data-final="true"]:not([data-streaming]) [data-chart="line"] canvas').waitFor()

      const boardSession = await server.mintSession({
        externalId: 'offline-board',
        userAttributes: [{ name: 'region', value: 'Europe' }],
      })
      await page.goto(`${server.url}/embed/dashboard/${dashboard.publicId}?session=${boardSession}`)
      await page.locator('[data-widget="status"] canvas').waitFor()
      await page.waitForFunction(() => document.querySelectorAll('.widget[aria-busy="true"]').length === 0)
      expect(await page.locator('.widget-error').count()).toBe(0)
      await screenshot(page, 'offline-dashboard')
      expect(blocked).toEqual([])
      expect(log.unexpected()).toEqual([])
    } finally {
      await offline.close()
    }
  })
})
