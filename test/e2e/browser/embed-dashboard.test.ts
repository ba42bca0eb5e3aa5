import { afterAll, afterEach, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { eq } from 'drizzle-orm'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { chromiumAvailable, launchBrowser, screenshot, watch, type PageLog } from './helpers/browser'
import { startEmbedServer, type EmbedServer } from './helpers/embed-server'
import { demoWidgets, publishDashboard, quietAdminKey, type Json } from '../../plugins/web/helpers'
import { keys } from '../../helpers/fixtures'

setDefaultTimeout(30_000)

let server: EmbedServer
let browser: Browser
/** One context for the file: every page (tab) still has its own sessionStorage, as in a real browser. */
let context: BrowserContext
let dashboard: Json
/** One cheap widget, for the cases about the page around the charts (chat, avatar, sessions). */
let small: Json

// Launching the browser outlasts bun's 5 s hook limit on a busy machine.
beforeAll(async () => {
  // Without Chromium the tests below are skipped (saying so); nothing to set up.
  if (!chromiumAvailable) return
  server = await startEmbedServer()
  browser = await launchBrowser()
  context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' })
  // Well under the test's own limit, so a page that never gets there fails with the locator it waited for.
  context.setDefaultTimeout(10_000)
  dashboard = await publishDashboard(server)
  small = await publishDashboard(server, { widgets: [demoWidgets[0]] })
}, 60_000)

afterEach(async () => {
  for (const page of context.pages()) await page.close()
})

afterAll(async () => {
  await browser?.close()
  await server?.stop()
})

/** A fresh tab (its own sessionStorage) on the dashboard, opened with a newly minted session. */
async function openDashboard(
  session: Json,
  options: { key?: string; publicId?: string } = {},
): Promise<{ page: Page; log: PageLog; sessionId: string }> {
  const sessionId = await server.mintSession(session, options.key)
  const page = await context.newPage()
  const log = watch(page)
  await page.goto(`${server.url}/embed/dashboard/${options.publicId ?? dashboard.publicId}?session=${sessionId}`)
  return { page, log, sessionId }
}

/** Waits until the dashboard and every one of its widgets have drawn their data. */
async function widgetsDrawn(page: Page): Promise<void> {
  await page.locator('.widget').first().waitFor()
  await page.waitForFunction(() => document.querySelectorAll('.widget[aria-busy="true"]').length === 0)
}

const kpi = (page: Page) => page.locator('[data-widget="orders"] .kpi-value').getAttribute('data-value')

describe.skipIf(!chromiumAvailable)('GET /embed/dashboard/:publicId in a browser', () => {
  it("draws every widget kind with the viewer's row-level security: two regions, two sets of numbers", async () => {
    const numbers: Record<string, Json> = {}
    for (const region of ['Europe', 'Asia']) {
      const { page, log } = await openDashboard({
        externalId: `viewer-${region.toLowerCase()}`,
        userAttributes: [{ name: 'region', value: region }],
        userProfile: { displayName: `${region} Viewer` },
      })
      await widgetsDrawn(page)
      expect(await page.locator('h1').textContent()).toBe('Sales overview')
      expect(
        await page
          .locator('.widget')
          .evaluateAll((widgets) => widgets.map((widget) => widget.getAttribute('data-kind'))),
      ).toEqual(['number', 'bar', 'line', 'table'])
      // Charts are drawn by uPlot on a canvas, each with its numbers as a hidden table for screen readers.
      // Charts are drawn after the answer renders: wait for the canvas, then count.
      await page.locator('[data-widget="status"] [data-chart="bar"] canvas').first().waitFor()
      expect(await page.locator('[data-widget="status"] [data-chart="bar"] canvas').count()).toBe(1)
      expect(await page.locator('[data-widget="status"] .chart .sr-only tbody tr').count()).toBe(5)
      // Charts are drawn after the answer renders: wait for the canvas, then count.
      await page.locator('[data-widget="monthly"] [data-chart="line"] canvas').first().waitFor()
      expect(await page.locator('[data-widget="monthly"] [data-chart="line"] canvas').count()).toBe(1)
      const tableRegions = await page.locator('[data-widget="regions"] tbody tr td:first-child').allTextContents()
      expect(tableRegions).toEqual([region])
      numbers[region] = {
        orders: await kpi(page),
        tableOrders: await page.locator('[data-widget="regions"] tbody tr td:nth-child(2)').textContent(),
        bars: await page.locator('[data-widget="status"] .chart .sr-only tbody td').allTextContents(),
      }
      expect(Number(numbers[region].orders).toLocaleString('en-US')).toBe(numbers[region].tableOrders)
      await screenshot(page, `dashboard-viewer-${region.toLowerCase()}`)
      expect(log.unexpected()).toEqual([])
    }
    expect(numbers.Europe.orders).not.toBe(numbers.Asia.orders)
    expect(numbers.Europe.bars).not.toEqual(numbers.Asia.bars)
  })

  for (const { width, theme } of [
    { width: 1280, theme: 'light' },
    { width: 1280, theme: 'dark' },
    { width: 375, theme: 'light' },
    { width: 375, theme: 'dark' },
  ] as const) {
    it(`fits ${width} px in ${theme} mode: compact KPIs with the full value on hover, model titles, legends, nothing spills or is covered`, async () => {
      const { page, log } = await openDashboard({
        externalId: `layout-${width}-${theme}`,
        userAttributes: [{ name: 'region', value: 'Europe' }],
      })
      await page.setViewportSize({ width, height: 900 })
      await page.emulateMedia({ colorScheme: theme })
      await widgetsDrawn(page)
      const background = await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor)
      expect(background).toBe(theme === 'dark' ? 'rgb(17, 24, 39)' : 'rgb(245, 247, 250)')
      // The KPI: short on the card, exact in its title.
      const value = page.locator('[data-widget="orders"] .kpi-value')
      expect(await value.textContent()).toMatch(/^\d+(\.\d)?K$/)
      expect(await value.getAttribute('title')).toMatch(/^\d{2},\d{3}$/)
      // Screen readers get the label and the exact value as text (a label on a plain span is not read).
      expect(await page.locator('[data-widget="orders"] .kpi-item').evaluate((item) => item.textContent)).toMatch(
        /: \d{2},\d{3}/,
      )
      expect(
        await page
          .getByRole('paragraph')
          .filter({ hasText: /^Number of orders: \d{2},\d{3}/ })
          .count(),
      ).toBeGreaterThan(0)
      // Titles from the model: the table's `MEASURE(orders.count) AS orders` column is "Number of orders".
      expect(await page.locator('[data-widget="regions"] thead th').allTextContents()).toEqual([
        'Region',
        'Number of orders',
        'Revenue',
      ])
      // The legend names the series, visibly.
      const legend = page.locator('[data-widget="status"] .u-legend .u-series')
      expect(await legend.textContent()).toBe('Revenue')
      expect(await legend.isVisible()).toBe(true)
      // A tooltip under the cursor names the bar and its value.
      const canvas = page.locator('[data-widget="status"] .u-over')
      const box = (await canvas.boundingBox())!
      await page.mouse.move(box.x + box.width * 0.1, box.y + box.height * 0.6)
      await page.locator('[data-widget="status"] .chart-tooltip:not([hidden])').waitFor()
      expect(await page.locator('[data-widget="status"] .chart-tooltip').textContent()).toMatch(/^completed: [\d,.]+$/)
      // Nothing wider than the page, every widget inside the viewport's width, the launcher clear of every widget.
      const layout = await page.evaluate(() => {
        const launcher = document.querySelector('.launcher')!.getBoundingClientRect()
        const widgets = [...document.querySelectorAll('.widget')].map((widget) => widget.getBoundingClientRect())
        const kpis = [...document.querySelectorAll('.kpi-value')].map((element) => [
          element.getBoundingClientRect(),
          element.closest('.widget')!.getBoundingClientRect(),
        ])
        return {
          overflow: document.documentElement.scrollWidth - window.innerWidth,
          widgetsInside: widgets.every((rect) => rect.right <= window.innerWidth + 0.5),
          launcherClear: widgets.every(
            (rect) =>
              launcher.bottom <= rect.top ||
              launcher.top >= rect.bottom ||
              launcher.right <= rect.left ||
              launcher.left >= rect.right,
          ),
          kpisInside: kpis.every(([value, card]) => value.right <= card.right && value.left >= card.left),
        }
      })
      expect(layout).toEqual({ overflow: 0, widgetsInside: true, launcherClear: true, kpisInside: true })
      await page.mouse.move(0, 0)
      await screenshot(page, `dashboard-${width}-${theme}`)
      // Scrolled down, the launcher stays in the header, still clear of the widgets.
      await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight))
      const launcherVisible = await page.locator('.launcher').isVisible()
      expect(launcherVisible).toBe(true)
      expect(log.unexpected()).toEqual([])
    })
  }

  for (const { width, theme } of [
    { width: 1280, theme: 'light' },
    { width: 375, theme: 'dark' },
  ] as const) {
    it(`applies the dashboard's filters and time grains, lets the viewer change them and shows the session's locked values, at ${width} px in ${theme} mode`, async () => {
      const board = await publishDashboard(server, {
        widgets: [demoWidgets[1], demoWidgets[2]],
        filters: [{ member: 'orders.status', operator: 'equals', values: ['completed'] }],
        timeGrains: [{ member: 'orders.created_at', granularity: 'quarter' }],
      })
      const { page, log } = await openDashboard(
        { externalId: `controls-${width}`, userAttributes: [{ name: 'region', value: 'Europe' }] },
        { publicId: board.publicId },
      )
      await page.setViewportSize({ width, height: 900 })
      await page.emulateMedia({ colorScheme: theme })
      await widgetsDrawn(page)
      const bars = () => page.locator('[data-widget="status"] .chart .sr-only tbody th').allTextContents()
      const points = () => page.locator('[data-widget="monthly"] .chart .sr-only tbody tr').count()
      expect(await bars()).toEqual(['completed'])
      expect(await points()).toBe(20)
      const status = page.getByLabel('Status is')
      expect(await status.inputValue()).toBe('completed')
      const locked = page.locator('.control-locked')
      expect(await locked.textContent()).toContain('Region: Europe')
      expect(await locked.textContent()).toContain('locked by your session')
      await screenshot(page, `dashboard-controls-${width}-${theme}`)

      // The viewer picks another status and a coarser grain: every widget follows.
      await status.selectOption('shipped')
      await page.waitForFunction(
        () => document.querySelector('[data-widget="status"] .chart .sr-only tbody th')?.textContent === 'shipped',
      )
      await page.getByLabel('Order date by').selectOption('year')
      await page.waitForFunction(
        () => document.querySelectorAll('[data-widget="monthly"] .chart .sr-only tbody tr').length === 5,
      )
      await status.selectOption('')
      await page.waitForFunction(
        () => document.querySelectorAll('[data-widget="status"] .chart .sr-only tbody tr').length === 5,
      )
      expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBe(0)
      await screenshot(page, `dashboard-controls-changed-${width}-${theme}`)
      expect(log.unexpected()).toEqual([])
    })
  }

  it('says what is wrong with a date range it cannot apply, and keeps the figures of the range in force', async () => {
    const board = await publishDashboard(server, {
      widgets: [demoWidgets[0]],
      filters: [{ member: 'orders.created_at', operator: 'inDateRange', values: ['2024-01-01', '2024-12-31'] }],
    })
    const { page, log } = await openDashboard({ externalId: 'date-range' }, { publicId: board.publicId })
    await widgetsDrawn(page)
    const year = await kpi(page)
    const field = page.getByLabel('Order date between')
    expect(await field.inputValue()).toBe('2024-01-01 to 2024-12-31')
    for (const [typed, problem] of [
      ['garbage', 'Write two dates: 2024-01-01 to 2024-12-31'],
      ['2024-02-30 to 2024-03-01', 'Write two dates: 2024-01-01 to 2024-12-31'],
      ['2024-12-31 to 2024-01-01', 'The first date comes after the second'],
    ]) {
      await field.fill(typed)
      await field.press('Enter')
      expect(await page.getByRole('alert').textContent()).toBe(problem)
      expect(await field.getAttribute('aria-invalid')).toBe('true')
      // Nothing was sent: the KPI still shows the range the widgets apply.
      expect(await kpi(page)).toBe(year)
    }
    await screenshot(page, 'dashboard-date-range-problem')
    await field.fill('2024-01-01 to 2024-06-30')
    await field.press('Enter')
    await page.waitForFunction(
      (before) => document.querySelector('[data-widget="orders"] .kpi-value')?.getAttribute('data-value') !== before,
      year,
    )
    expect(Number(await kpi(page))).toBeLessThan(Number(year))
    expect(await page.getByRole('alert').count()).toBe(0)
    expect(await field.getAttribute('aria-invalid')).toBeNull()
    expect(log.unexpected()).toEqual([])
  })

  it('shows a plain "This chart could not be loaded" with the request id when a widget query fails, never the query error', async () => {
    // Saving refuses such a widget now; one saved before that check (or broken by a model change) is still shown plainly.
    const broken = await publishDashboard(server, { widgets: [demoWidgets[0], demoWidgets[1]] })
    const widgets = [demoWidgets[0], { ...demoWidgets[1], query: 'SELECT orders.no_such_member FROM orders' }]
    const { dashboards } = server.storage.tables
    await server.storage.transaction((tx) =>
      tx.update(dashboards).set({ widgets }).where(eq(dashboards.publicId, broken.publicId)),
    )
    const { page, log } = await openDashboard({ externalId: 'broken-viewer' }, { publicId: broken.publicId })
    await widgetsDrawn(page)
    const error = page.locator('[data-widget="status"] .widget-error')
    expect(await error.getAttribute('role')).toBe('alert')
    expect(await error.locator('p').first().textContent()).toBe('This chart could not be loaded.')
    expect(await error.locator('.request-id code').textContent()).toMatch(/\S{8,}/)
    expect(await error.textContent()).not.toContain('no_such_member')
    expect(await page.locator('[data-widget="orders"] .kpi-value').count()).toBe(1)
    await screenshot(page, 'dashboard-widget-failed')
    expect(log.unexpected([`${server.url}/api/v1/embed/dashboards/${broken.publicId}/widgets/status/data`])).toEqual([])
  })

  const launcherCases: Array<{ name: string; account: 'acme' | 'quiet'; sessionValue?: boolean; shown: boolean }> = [
    {
      name: 'hidden by showDashboardChat false with the account setting on',
      account: 'acme',
      sessionValue: false,
      shown: false,
    },
    {
      name: 'shown by showDashboardChat true with the account setting off',
      account: 'quiet',
      sessionValue: true,
      shown: true,
    },
    { name: 'shown when the session says nothing and the account setting is on', account: 'acme', shown: true },
    { name: 'hidden when the session says nothing and the account setting is off', account: 'quiet', shown: false },
  ]
  for (const { name, account, sessionValue, shown } of launcherCases) {
    it(`has the AI chat launcher and panel ${name}`, async () => {
      const quiet = account === 'quiet'
      const board = quiet
        ? await publishDashboard(server, { deploymentId: 5, key: quietAdminKey, widgets: [demoWidgets[0]] })
        : small
      const settings = sessionValue === undefined ? {} : { settings: { showDashboardChat: sessionValue } }
      const { page, log } = await openDashboard(
        { deploymentId: quiet ? 5 : 1, externalId: `launcher-${account}-${String(sessionValue)}`, ...settings },
        { key: quiet ? quietAdminKey : keys.admin, publicId: board.publicId },
      )
      await widgetsDrawn(page)
      expect(await page.locator('button.launcher').count()).toBe(shown ? 1 : 0)
      expect(await page.locator('#agent-panel').count()).toBe(shown ? 1 : 0)
      if (shown) {
        // Keyboard: the launcher opens the panel and focuses its question box; Escape closes it and returns focus.
        await page.locator('button.launcher').focus()
        await page.keyboard.press('Enter')
        await page.locator('#agent-panel textarea').waitFor()
        await page.waitForFunction(() => document.activeElement?.id === 'dashboard-chat-input')
        expect(await page.locator('button.launcher').getAttribute('aria-expanded')).toBe('true')
      }
      await screenshot(
        page,
        `dashboard-chat-${shown ? 'shown' : 'hidden'}-${account}-session-${sessionValue ?? 'absent'}`,
      )
      if (shown) {
        await page.keyboard.press('Escape')
        await page.locator('#agent-panel').waitFor({ state: 'hidden' })
        await page.waitForFunction(() => document.activeElement?.className === 'launcher')
      }
      expect(log.unexpected()).toEqual([])
    })
  }

  for (const width of [1280, 375])
    it(`keeps keyboard focus on what can be seen while the agent panel is open, at ${width} px`, async () => {
      const { page } = await openDashboard({ externalId: `focus-${width}` }, { publicId: small.publicId })
      await page.setViewportSize({ width, height: 800 })
      await widgetsDrawn(page)
      await page.locator('button.launcher').click()
      await page.waitForFunction(() => document.activeElement?.id === 'dashboard-chat-input')
      const covered: string[] = []
      for (let press = 0; press < 12; press++) {
        await page.keyboard.press('Tab')
        const seen = await page.evaluate(() => {
          const focused = document.activeElement as HTMLElement | null
          if (!focused || focused === document.body) return { ok: true, name: 'body' }
          const panel = document.getElementById('agent-panel')!
          if (panel.contains(focused)) return { ok: true, name: 'panel' }
          // Outside the panel: the point at its middle must be the focused control, not the panel over it.
          focused.scrollIntoView({ block: 'nearest' })
          const rect = focused.getBoundingClientRect()
          const top = document.elementFromPoint(rect.left + rect.width / 2, rect.top + rect.height / 2)
          const name = `${focused.tagName.toLowerCase()}.${focused.className} ${focused.getAttribute('aria-label') ?? ''}`
          return { ok: top !== null && (focused === top || focused.contains(top)), name }
        })
        if (!seen.ok) covered.push(seen.name)
      }
      expect(covered).toEqual([])
    })

  it('opens the AI chat again after a reload mid-answer, following the answer still running', async () => {
    const { page, log } = await openDashboard({ externalId: 'panel-reload' }, { publicId: small.publicId })
    await widgetsDrawn(page)
    await page.locator('button.launcher').click()
    const held = server.control.pauseNext()
    await page.locator('#dashboard-chat-input').fill('Orders by region')
    await page.keyboard.press('Enter')
    await held.reached
    await page.locator('#agent-panel [data-final="true"][data-streaming="true"]').waitFor()
    const partial = await page.locator('#agent-panel [data-final="true"]').textContent()

    await page.reload()
    // The panel is open where the reader left it, with the question once and the partial answer still streaming.
    await page.locator('#agent-panel [data-final="true"][data-streaming="true"]').waitFor()
    expect(await page.locator('button.launcher').getAttribute('aria-expanded')).toBe('true')
    expect(await page.locator('#agent-panel').isVisible()).toBe(true)
    expect(await page.locator('#agent-panel [data-final="true"]').textContent()).toBe(partial)
    expect(await page.locator('#agent-panel .msg-user').count()).toBe(1)
    held.release()
    await page.locator('#agent-panel [data-final="true"]:not([data-streaming])').waitFor()
    expect(await page.locator('#agent-panel .msg-flag').count()).toBe(0)

    // Closed, it stays closed at the next reload.
    await page.locator('button.launcher').click()
    await page.locator('#agent-panel').waitFor({ state: 'hidden' })
    await page.reload()
    await widgetsDrawn(page)
    expect(await page.locator('button.launcher').getAttribute('aria-expanded')).toBe('false')
    expect(await page.locator('#agent-panel').isHidden()).toBe(true)
    expect(log.unexpected()).toEqual([])
  })

  it("offers a CSV download of the viewer's rows, and none when the dashboard restricts data download", async () => {
    const { page, log } = await openDashboard({
      externalId: 'viewer-europe',
      userAttributes: [{ name: 'region', value: 'Europe' }],
    })
    await widgetsDrawn(page)
    expect(await page.getByRole('button', { name: /as CSV$/ }).count()).toBe(4)
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download Orders by region as CSV' }).click(),
    ])
    expect(download.suggestedFilename()).toBe('Orders_by_region.csv')
    const csv = await Bun.file((await download.path())!).text()
    expect(csv.split('\r\n')[1]).toStartWith('Europe,')
    expect(log.unexpected()).toEqual([])

    const restricted = await publishDashboard(server, { restrictDataDownload: true })
    const viewer = await openDashboard({ externalId: 'viewer-europe' }, { publicId: restricted.publicId })
    await widgetsDrawn(viewer.page)
    expect(await viewer.page.getByRole('button', { name: /CSV/ }).count()).toBe(0)
    await screenshot(viewer.page, 'dashboard-restricted-download')
    expect(viewer.log.unexpected()).toEqual([])
  })

  it('shows the initials of displayName when the picture fails to load, and the picture when it loads', async () => {
    const broken = `${server.url}/no-such-picture.png`
    const { page, log } = await openDashboard(
      { externalId: 'eva', userProfile: { displayName: 'Eva Europa', picture: broken } },
      { publicId: small.publicId },
    )
    await widgetsDrawn(page)
    const avatar = page.locator('.page-header .avatar')
    await page.locator('.page-header .avatar[data-avatar="failed"]').waitFor()
    expect(await avatar.textContent()).toBe('EE')
    expect(await avatar.getAttribute('aria-label')).toBe('Eva Europa')
    // No broken-image icon: the failed <img> is gone, not merely hidden.
    expect(await avatar.locator('img').count()).toBe(0)
    await screenshot(page, 'avatar-initials-for-broken-picture')
    // Without a name: a person's outline, not a "?" that reads as a help button.
    const anonymous = await openDashboard({ externalId: 'no-name' }, { publicId: small.publicId })
    await widgetsDrawn(anonymous.page)
    const outline = anonymous.page.locator('.page-header .avatar')
    expect(await outline.textContent()).toBe('')
    expect(await outline.locator('svg').count()).toBe(1)
    expect(await outline.getAttribute('aria-label')).toBe('User')
    // The browser notes the failed request itself; the page adds no error of its own.
    expect(log.unexpected([broken])).toEqual([])
    expect(log.console.filter((entry) => entry.url === broken).length).toBeGreaterThan(0)

    const picture = 'https://pictures.example.test/eva.svg'
    const good = await browser.newContext()
    await good.route(picture, (route) =>
      route.fulfill({
        contentType: 'image/svg+xml',
        body: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><rect width="10" height="10" fill="#0a7d5a"/></svg>',
      }),
    )
    const pictured = await good.newPage()
    const pictureLog = watch(pictured)
    const sessionId = await server.mintSession({ externalId: 'eva', userProfile: { picture } })
    await pictured.goto(`${server.url}/embed/dashboard/${small.publicId}?session=${sessionId}`)
    await pictured.locator('.page-header .avatar[data-avatar="loaded"] img').waitFor()
    expect(pictureLog.unexpected()).toEqual([])
    await good.close()
  })

  it('explains an expired, an already used and a revoked session instead of showing the dashboard', async () => {
    // Expired: the one-time link is opened more than five minutes after it was minted.
    const expiredId = await server.mintSession({ externalId: 'late' })
    server.setClockOffset(6 * 60_000)
    const late = await context.newPage()
    const lateLog = watch(late)
    // The page exchanges the session from its script, which may run after goto() resolves: keep the clock moved
    // until the exchange has been answered.
    const exchanged = late.waitForResponse((response) => response.url().endsWith('/api/v1/embed/session/token'))
    await late.goto(`${server.url}/embed/dashboard/${small.publicId}?session=${expiredId}`)
    expect((await exchanged).status()).toBe(401)
    server.setClockOffset(0)
    await late.getByRole('alert').waitFor()
    expect(await late.locator('h1').textContent()).toBe('This link has expired')
    expect(await late.locator('.widget').count()).toBe(0)
    await screenshot(late, 'session-expired')
    expect(lateLog.unexpected([`${server.url}/api/v1/embed/session/token`])).toEqual([])

    // Already used: the same link in another tab, which does not have the token the first tab keeps.
    const { page, sessionId } = await openDashboard({ externalId: 'twice' }, { publicId: small.publicId })
    await widgetsDrawn(page)
    const second = await context.newPage()
    await second.goto(`${server.url}/embed/dashboard/${small.publicId}?session=${sessionId}`)
    await second.getByRole('alert').waitFor()
    expect(await second.locator('h1').textContent()).toBe('This link has expired')

    // A reload of the first tab still works (the token is kept per tab)...
    await page.reload()
    await widgetsDrawn(page)
    // ...until the app revokes the session.
    await server.call('POST', '/api/v1/embed/session/revoke', { sessionId })
    await page.reload()
    await page.getByRole('alert').waitFor()
    expect(await page.locator('h1').textContent()).toBe('Access was revoked')
    expect(await page.locator('.problem p').textContent()).toContain('ended this session')
    await screenshot(page, 'session-revoked')
  })

  it('notices a session revoked while the page sits idle, without the viewer doing anything', async () => {
    const { page, sessionId } = await openDashboard({ externalId: 'idle-viewer' }, { publicId: small.publicId })
    await widgetsDrawn(page)
    await server.call('POST', '/api/v1/embed/session/revoke', { sessionId })
    // The page looks every half minute while shown, and at once when it is shown again: the latter, here.
    await page.evaluate(() => document.dispatchEvent(new Event('visibilitychange')))
    await page.getByRole('alert').waitFor()
    expect(await page.locator('h1').textContent()).toBe('Access was revoked')
    expect(await page.locator('.widget').count()).toBe(0)
  })

  it('explains a link without a session and a dashboard that is not published', async () => {
    const page = await context.newPage()
    const log = watch(page)
    await page.goto(`${server.url}/embed/dashboard/${dashboard.publicId}`)
    await page.getByRole('alert').waitFor()
    expect(await page.locator('h1').textContent()).toBe('This link is incomplete')
    expect(log.unexpected()).toEqual([])

    const { page: missing } = await openDashboard({ externalId: 'lost' }, { publicId: 'no-such-dashboard' })
    await missing.getByRole('alert').waitFor()
    expect(await missing.locator('h1').textContent()).toBe('Dashboard not found')
  })
})
