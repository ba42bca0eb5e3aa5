import { afterAll, afterEach, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { keys } from '../../helpers/fixtures'
import { demoWidgets, publishDashboard, type Json } from '../../plugins/web/helpers'
import { launchBrowser, screenshot, watch } from './helpers/browser'
import { startEmbedServer, type EmbedServer } from './helpers/embed-server'

setDefaultTimeout(60_000)

let server: EmbedServer
let browser: Browser
let context: BrowserContext
let dashboard: Json

beforeAll(async () => {
  server = await startEmbedServer({ analystDelayMs: 0 })
  browser = await launchBrowser()
  context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' })
  context.setDefaultTimeout(15_000)
  dashboard = await publishDashboard(server, {
    widgets: [
      { id: 'revenue', kind: 'number', title: 'Revenue', query: 'SELECT MEASURE(orders.total_amount) FROM orders' },
      ...demoWidgets,
    ],
  })
})

afterEach(async () => {
  for (const page of context.pages()) await page.close()
})

afterAll(async () => {
  await browser?.close()
  await server?.stop()
})

const layouts = [
  { width: 1280, theme: 'light' },
  { width: 375, theme: 'dark' },
  { width: 1280, theme: 'dark' },
  { width: 375, theme: 'light' },
] as const

const europe = [{ name: 'region', value: 'Europe' }]

async function open(path: string, width: number, theme: 'light' | 'dark'): Promise<Page> {
  const page = await context.newPage()
  await page.setViewportSize({ width, height: 900 })
  await page.emulateMedia({ colorScheme: theme })
  await page.goto(`${server.url}${path}`)
  return page
}

async function openChat(externalId: string, width: number, theme: 'light' | 'dark'): Promise<Page> {
  const sessionId = await server.mintSession({ externalId, userAttributes: europe })
  const page = await open(`/embed/chat?sessionId=${sessionId}`, width, theme)
  await page.getByLabel('Ask a question about your data').waitFor()
  return page
}

/** Asks and waits for the answer to finish; the latest answer's element. */
async function ask(page: Page, question: string) {
  const before = await page.locator('.msg-final').count()
  await page.getByLabel('Ask a question about your data').fill(question)
  await page.keyboard.press('Enter')
  await page.waitForFunction(
    (count) => document.querySelectorAll('.msg-final').length > count && !document.querySelector('[data-streaming]'),
    before,
  )
  return page.locator('.msg-final').last()
}

/** A chart's hidden table (its own numbers, as screen readers get them): headings and rows of cells. */
async function chartTable(answer: ReturnType<Page['locator']>) {
  const table = answer.locator('figure.chart .sr-only table')
  return {
    headings: await table.locator('thead th').allTextContents(),
    rows: await table
      .locator('tbody tr')
      .evaluateAll((rows) => rows.map((row) => [...row.children].map((cell) => cell.textContent ?? ''))),
  }
}

/** Moves the chart's keyboard cursor until the tooltip names `label`; the tooltip's text. */
async function focusPoint(page: Page, scope: ReturnType<Page['locator']>, label: string): Promise<string> {
  await scope.locator('.chart-canvas').focus()
  await page.keyboard.press('Home')
  for (let step = 0; step < 13; step++) {
    const text = (await scope.locator('.chart-tooltip').textContent()) ?? ''
    if (text.startsWith(label)) return text
    await page.keyboard.press('ArrowRight')
  }
  return ''
}

/** Nothing wider than the page; each given element's scroll box inside its card. */
async function fitsThePage(page: Page): Promise<void> {
  expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0)
}

describe('an answer in the embedded chat shows what its text says', () => {
  for (const { width, theme } of layouts) {
    it(`draws every period of a comparison and the change, and the shares of a share answer, at ${width} px in ${theme} mode`, async () => {
      const page = await openChat(`answers-${width}-${theme}`, width, theme)
      const log = watch(page)
      // A user who sees Europe only is not offered a breakdown by region (one bar).
      const starters = await page.locator('.starters').textContent()
      expect(starters).toContain('Revenue by month')
      expect(starters).not.toContain('by region')

      const comparison = await ask(page, 'Compare revenue by product category in 2023 vs 2024')
      expect(await comparison.locator('figure.chart').getAttribute('data-series')).toBe(
        'Product revenue 2023|Product revenue 2024|Change',
      )
      // The legend names each series as the table does.
      expect(await comparison.locator('.u-legend .u-series').allTextContents()).toEqual([
        'Product revenue 2023',
        'Product revenue 2024',
        'Change',
      ])
      const drawn = await chartTable(comparison)
      expect(drawn.headings).toEqual(['Category', 'Product revenue 2023', 'Product revenue 2024', 'Change'])
      expect(drawn.rows).toHaveLength(8)
      // The full label and every number of its row, written as the table writes them, on keyboard focus.
      const tip = await focusPoint(page, comparison, 'Home & Kitchen')
      const kitchen = drawn.rows.find((row) => row[0] === 'Home & Kitchen')!
      expect(tip).toBe(
        `Home & Kitchen\nProduct revenue 2023: ${kitchen[1]}\nProduct revenue 2024: ${kitchen[2]}\nChange: ${kitchen[3]}\nChange %: ${tip.split('Change %: ')[1]}`,
      )
      expect(tip).toMatch(/Change %: [+-]\d+\.\d%$/)
      await screenshot(page, `answer-comparison-chart-${width}-${theme}`)

      await comparison.getByRole('button', { name: 'Show table' }).click()
      const table = comparison.locator('.answer-figure table')
      expect(await table.locator('thead th').allTextContents()).toEqual([
        'Category',
        'Product revenue 2023',
        'Product revenue 2024',
        'Change',
        'Change %',
      ])
      const shown = await table
        .locator('tbody tr')
        .evaluateAll((rows) => rows.map((row) => [...row.children].map((cell) => cell.textContent ?? '')))
      // The table and the chart hold the same numbers in the same format (2 decimals: 391,744.90).
      expect(shown.map((row) => row.slice(0, 4))).toEqual(drawn.rows)
      for (const row of shown) for (const cell of row.slice(1, 3)) expect(cell).toMatch(/^[\d,]+\.\d\d$/)
      // Wide on a phone: it scrolls sideways inside its card, the page does not.
      const scroller = await comparison.locator('.answer-figure .table-scroll').evaluate((element) => ({
        inside: element.getBoundingClientRect().right <= element.closest('.msg-final')!.getBoundingClientRect().right,
        scrolls: getComputedStyle(element).overflowX,
      }))
      expect(scroller).toEqual({ inside: true, scrolls: 'auto' })
      await fitsThePage(page)
      await screenshot(page, `answer-comparison-table-${width}-${theme}`)

      const share = await ask(page, 'What share of orders had a discount by category?')
      expect(await share.locator('figure.chart').getAttribute('data-series')).toBe('Share')
      const shares = await chartTable(share)
      const values = shares.rows.map((row) => Number(row[1].replace('%', '')))
      const tallest = shares.rows[values.indexOf(Math.max(...values))][0]
      // What the text calls highest is the tallest bar.
      expect(await share.locator('p strong').nth(1).textContent()).toBe(tallest)
      await screenshot(page, `answer-share-${width}-${theme}`)
      expect(log.unexpected()).toEqual([])
    })
  }

  it('shows text from the data and the model as written: identifiers keep their underscores, no member ids', async () => {
    const page = await openChat('answers-text', 1280, 'light')
    const declined = await ask(page, 'What is the flux_capacitor_rate by region?')
    const text = (await declined.textContent()) ?? ''
    expect(text).toContain('"flux_capacitor"')
    expect(await declined.locator('em').count()).toBe(0)
    // What it can answer is listed by title: Revenue, never orders.total_amount.
    expect(text).toContain('Revenue')
    expect(text).not.toMatch(/\b[a-z_]+\.[a-z_]+\b/)
    const listing = await ask(page, 'Top 5 customers by revenue in 2025 with their city')
    expect(await listing.locator('p strong').first().textContent()).toStartWith(
      'Revenue by Customer and City, top 5, 2025',
    )
    expect(await listing.locator('figure.chart .sr-only thead th').allTextContents()).toEqual([
      'Customer · City',
      'Revenue',
    ])
    await listing.getByRole('button', { name: 'Show table' }).click()
    expect(await listing.locator('.answer-figure thead th').allTextContents()).toEqual([
      'Customer id',
      'Customer',
      'City',
      'Revenue',
    ])
  })
})

describe('the embedded dashboard on phones and desktops', () => {
  for (const { width, theme } of layouts) {
    it(`keeps tables inside their cards, labels every bar and downloads CSV as shown, at ${width} px in ${theme} mode`, async () => {
      const sessionId = await server.mintSession({ externalId: `board-${width}-${theme}`, userAttributes: europe })
      const page = await open(`/embed/dashboard/${dashboard.publicId}?session=${sessionId}`, width, theme)
      const log = watch(page)
      await page.locator('.widget').first().waitFor()
      await page.waitForFunction(() => document.querySelectorAll('.widget[aria-busy="true"]').length === 0)
      // The revenue card says "Revenue" once (its title), the orders card names its number.
      expect(await page.locator('[data-widget="revenue"] .kpi-label').count()).toBe(0)
      expect(await page.locator('[data-widget="orders"] .kpi-label').textContent()).toBe('Number of orders')
      // Every column of the table inside its card, the page no wider than the screen.
      const regions = page.locator('[data-widget="regions"]')
      expect(await regions.locator('thead th').allTextContents()).toEqual(['Region', 'Number of orders', 'Revenue'])
      const box = await regions.locator('.table-scroll').evaluate((element) => ({
        inside: element.getBoundingClientRect().right <= element.closest('.widget')!.getBoundingClientRect().right,
        hidden: element.scrollWidth - element.clientWidth,
      }))
      expect(box.inside).toBe(true)
      if (width >= 375) expect(box.hidden).toBe(0)
      await fitsThePage(page)
      // A bar's label, shortened on a phone, is whole in the tooltip on keyboard focus.
      const status = page.locator('[data-widget="status"]')
      expect(await focusPoint(page, status, 'cancelled')).toMatch(/^cancelled: [\d,]+\.\d\d$/)
      await screenshot(page, `dashboard-phones-${width}-${theme}`)

      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'Download Revenue by month as CSV' }).click(),
      ])
      const lines = (await Bun.file((await download.path())!).text()).trim().split('\r\n')
      expect(lines[0]).toBe('Order date (month),Revenue')
      expect(lines[1]).toMatch(/^\d{4}-\d{2},\d+(\.\d+)?$/)
      expect(log.unexpected()).toEqual([])
    })
  }
})

describe('the embed preview on the front page', () => {
  for (const { width, theme } of layouts) {
    it(`shows the <iframe> to paste beside the backend's curl, at ${width} px in ${theme} mode`, async () => {
      const page = await open('/', width, theme)
      const log = watch(page)
      await page.getByLabel(/Admin API key/).fill(keys.admin)
      await page.getByRole('button', { name: 'Show deployments' }).click()
      const iframe = page.getByLabel('iframe to paste')
      await iframe.waitFor()
      const curl = page.getByLabel('generate-session as curl')
      expect(await curl.textContent()).toContain(`${server.url}/api/v1/embed/generate-session`)
      expect(await iframe.textContent()).toBe(
        `<iframe src="${server.url}/embed/chat?sessionId=SESSION_ID"\n  title="Ask our data" width="100%" height="720" style="border: 0"></iframe>`,
      )
      await page.getByLabel('Dashboard', { exact: true }).first().check()
      expect(await iframe.textContent()).toContain(`${server.url}/embed/dashboard/`)
      expect(await iframe.textContent()).toContain('?session=SESSION_ID')
      const [curlBox, iframeBox] = [(await curl.boundingBox())!, (await iframe.boundingBox())!]
      // Side by side on a wide screen, one above the other on a phone.
      if (width >= 1000) expect(Math.abs(curlBox.y - iframeBox.y)).toBeLessThan(2)
      else expect(iframeBox.y).toBeGreaterThan(curlBox.y + curlBox.height)
      expect(await page.getByRole('button', { name: 'Copy iframe' }).isVisible()).toBe(true)
      await fitsThePage(page)
      await iframe.scrollIntoViewIfNeeded()
      await screenshot(page, `front-door-snippets-${width}-${theme}`)
      expect(log.unexpected()).toEqual([])
    })
  }
})
