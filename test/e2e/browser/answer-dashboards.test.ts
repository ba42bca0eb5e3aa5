import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import type { Browser, Page } from 'playwright-core'
import { launchBrowser, screenshot, watch } from './helpers/browser'
import { startEmbedServer, type EmbedServer } from './helpers/embed-server'
import { keys } from '../../helpers/fixtures'
import type { Json } from '../../plugins/web/helpers'

setDefaultTimeout(90_000)

let server: EmbedServer
let browser: Browser

beforeAll(async () => {
  server = await startEmbedServer({ analystDelayMs: 1 })
  browser = await launchBrowser()
})

afterAll(async () => {
  await browser?.close()
  await server?.stop()
})

const creatorSession = (externalId: string, region: string) => ({
  externalId,
  creatorMode: true,
  embedTenantName: 'tenant-one',
  userAttributeDefinitions: [{ name: 'region', type: 'string' }],
  userAttributes: [{ name: 'region', value: region }],
})
const viewerSession = (externalId: string, region: string) => ({
  externalId,
  embedTenantName: 'tenant-one',
  userAttributes: [{ name: 'region', value: region }],
})

/** An embed token of a new session, for the calls the test makes itself. */
async function tokenOf(session: Json): Promise<string> {
  const sessionId = await server.mintSession(session)
  const response = await server.request('POST', '/api/v1/embed/session/token', { body: { sessionId } })
  return ((await response.json()) as Json).token as string
}

async function ask(page: Page, question: string, answers: number): Promise<void> {
  await page.getByLabel('Ask a question about your data').fill(question)
  await page.getByRole('button', { name: 'Send' }).click()
  await page.waitForFunction(
    (count) => document.querySelectorAll('li.msg-final:not([data-streaming]) .pin-answer').length >= count,
    answers,
  )
}

async function widgetsDrawn(page: Page, count: number): Promise<void> {
  await page.waitForFunction((expected) => document.querySelectorAll('.widget').length === expected, count)
  await page.waitForFunction(() => document.querySelectorAll('.widget[aria-busy="true"]').length === 0)
}

const titles = (page: Page) => page.locator('.widget h2').allTextContents()

for (const width of [1280, 375]) {
  describe(`dashboards built from answers at ${width} px`, () => {
    let publicId: string
    let chatNumber: string

    it('pins two answers from the chat to a new dashboard', async () => {
      const context = await browser.newContext({ viewport: { width, height: 900 }, locale: 'en-US' })
      const page = await context.newPage()
      const log = watch(page)
      const sessionId = await server.mintSession(creatorSession(`cara-${width}`, 'Europe'))
      await page.goto(`${server.url}/embed/chat?sessionId=${sessionId}`)

      await ask(page, 'revenue by status', 1)
      const first = page.locator('li.msg-final').nth(0)
      await first.getByRole('button', { name: 'Add to dashboard' }).click()
      await first.getByLabel('New dashboard').fill(`Board ${width}`)
      await first.getByRole('button', { name: 'Create and add' }).click()
      expect(await first.locator('.pin-done').textContent()).toBe(
        `Added “Revenue by Status, all time” to “Board ${width}”.`,
      )

      await ask(page, 'how many orders', 2)
      const second = page.locator('li.msg-final').nth(1)
      chatNumber = (await second.locator('td').last().textContent())!.replace(/,/g, '')
      await second.getByRole('button', { name: 'Add to dashboard' }).click()
      await second.getByRole('button', { name: new RegExp(`^Board ${width}`) }).click()
      await second.locator('.pin-done').waitFor()
      await screenshot(page, `answer-dashboards-chat-${width}`)
      expect(log.unexpected()).toEqual([])
      await context.close()

      const list = (await (
        await server.request('GET', '/api/v1/embed/dashboards', {
          headers: { authorization: `Embed-Token ${await tokenOf(viewerSession(`eva-${width}`, 'Europe'))}` },
        })
      ).json()) as Json
      publicId = list.items.find((item: Json) => item.title === `Board ${width}`).publicId
      expect(publicId).toMatch(/^pd_/)
    })

    it("arranges the widgets: the answer's numbers, rename, keyboard move, resize, remove and undo", async () => {
      const context = await browser.newContext({ viewport: { width, height: 900 }, locale: 'en-US' })
      const page = await context.newPage()
      const log = watch(page)
      const sessionId = await server.mintSession(creatorSession(`cara-${width}`, 'Europe'))
      await page.goto(`${server.url}/embed/dashboard/${publicId}?session=${sessionId}`)
      await widgetsDrawn(page, 2)
      expect(await titles(page)).toEqual(['Revenue by Status, all time', 'Number of orders, all time'])
      // The KPI shows the number the chat answered.
      expect(await page.locator('.kpi-value').getAttribute('data-value')).toBe(chatNumber)

      const status = page.locator('.widget').nth(0)
      await status.getByRole('button', { name: 'Rename' }).click()
      await status.locator('.widget-rename input').fill('Revenue by status')
      await status.getByRole('button', { name: 'Save' }).click()
      await page.getByText('Renamed “Revenue by Status, all time” to “Revenue by status”.').waitFor()
      expect(await titles(page)).toEqual(['Revenue by status', 'Number of orders, all time'])

      // Moved by keyboard: the focused KPI goes one place earlier, and keeps the focus.
      await page.locator('.widget').nth(1).focus()
      await page.keyboard.press('ArrowLeft')
      await page.getByText('Moved “Number of orders, all time” to place 1 of 2.').waitFor()
      expect(await titles(page)).toEqual(['Number of orders, all time', 'Revenue by status'])
      expect(await page.evaluate(() => document.activeElement?.querySelector('h2')?.textContent)).toBe(
        'Number of orders, all time',
      )

      // Dragged onto another widget, a widget takes its place (and back again).
      await page.locator('.widget').nth(0).dragTo(page.locator('.widget').nth(1))
      await page.getByText('Moved “Number of orders, all time” to place 2 of 2.').waitFor()
      expect(await titles(page)).toEqual(['Revenue by status', 'Number of orders, all time'])
      await page.locator('.widget').nth(1).dragTo(page.locator('.widget').nth(0))
      await page.getByText('Moved “Number of orders, all time” to place 1 of 2.').waitFor()
      expect(await titles(page)).toEqual(['Number of orders, all time', 'Revenue by status'])

      const bars = page.locator('.widget').nth(1)
      await bars.getByRole('button', { name: 'Wide' }).click()
      await page.getByText('Made “Revenue by status” wide.').waitFor()
      expect(await bars.getAttribute('class')).toContain('widget-size-wide')
      expect(await bars.getByRole('button', { name: 'Wide' }).getAttribute('aria-pressed')).toBe('true')

      await page.getByRole('button', { name: 'Remove Revenue by status' }).click()
      await widgetsDrawn(page, 1)
      await page.getByRole('button', { name: 'Undo: Removed “Revenue by status”' }).click()
      await page.getByText('Undid: Removed “Revenue by status”.').waitFor()
      await widgetsDrawn(page, 2)
      expect(await titles(page)).toEqual(['Number of orders, all time', 'Revenue by status'])
      expect(await page.locator('.widget').nth(1).getAttribute('class')).toContain('widget-size-wide')
      await screenshot(page, `answer-dashboards-creator-${width}`)

      // Someone else saves meanwhile: the next change is refused, and the page shows their version and says so.
      const other = await tokenOf(creatorSession(`carl-${width}`, 'Asia'))
      const current = (await (
        await server.request('GET', `/api/v1/embed/dashboards/${publicId}`, {
          headers: { authorization: `Embed-Token ${other}` },
        })
      ).json()) as Json
      await server.request('PATCH', `/api/v1/embed/dashboards/${publicId}/widgets/${current.widgets[0].id}`, {
        headers: { authorization: `Embed-Token ${other}` },
        body: { checksum: current.checksum, title: 'Orders (renamed by Carl)' },
      })
      await page.locator('.widget').nth(1).getByRole('button', { name: 'Wide' }).click()
      await page.getByRole('alert').filter({ hasText: 'Someone else changed this dashboard meanwhile' }).waitFor()
      expect(await titles(page)).toEqual(['Orders (renamed by Carl)', 'Revenue by status'])
      expect(log.unexpected([`${server.url}/api/v1/embed/dashboards/`])).toEqual([])
      await context.close()
    })

    it("pins an answer from the dashboard's own chat panel, and the widget appears on the dashboard", async () => {
      const context = await browser.newContext({ viewport: { width, height: 900 }, locale: 'en-US' })
      const page = await context.newPage()
      const log = watch(page)
      const sessionId = await server.mintSession(creatorSession(`cara-${width}`, 'Europe'))
      await page.goto(`${server.url}/embed/dashboard/${publicId}?session=${sessionId}`)
      await widgetsDrawn(page, 2)
      await page.getByRole('button', { name: 'Ask Analyst' }).click()
      await ask(page, 'revenue by month', 1)
      const answer = page.locator('.agent-panel li.msg-final').last()
      await answer.getByRole('button', { name: 'Add to dashboard' }).click()
      await answer.getByRole('button', { name: new RegExp(`^Board ${width}`) }).click()
      await answer.locator('.pin-done').waitFor()
      // The dashboard is the page itself: no link to open it.
      expect(await answer.locator('.pin-open').count()).toBe(0)
      await page.keyboard.press('Escape')
      await widgetsDrawn(page, 3)
      expect((await titles(page))[2]).toBe('Revenue by month, all time')
      expect(await page.locator('.widget').nth(2).getAttribute('data-kind')).toBe('line')
      expect(log.unexpected()).toEqual([])
      await context.close()
    })

    it("shows a viewer of another region the dashboard read-only, with that region's numbers", async () => {
      const context = await browser.newContext({ viewport: { width, height: 900 }, locale: 'en-US' })
      const page = await context.newPage()
      const log = watch(page)
      const sessionId = await server.mintSession(viewerSession(`ann-${width}`, 'Asia'))
      await page.goto(`${server.url}/embed/dashboard/${publicId}?session=${sessionId}`)
      await widgetsDrawn(page, 3)
      expect(await titles(page)).toEqual([
        'Orders (renamed by Carl)',
        'Revenue by status',
        'Revenue by month, all time',
      ])
      expect(await page.locator('.widget-tools, .dashboard-edit-bar, .widget[tabindex]').count()).toBe(0)
      expect(await page.getByRole('button', { name: /Rename|Remove|Undo/ }).count()).toBe(0)
      const asia = await page.locator('.kpi-value').getAttribute('data-value')
      expect(Number(asia)).toBeGreaterThan(0)
      expect(asia).not.toBe(chatNumber)
      await screenshot(page, `answer-dashboards-viewer-${width}`)
      expect(log.unexpected()).toEqual([])
      await context.close()
    })
  })
}

describe('names a creator typed, with markup and long words', () => {
  const markup = '<img src=x onerror="document.title=`pwned`">'
  const dashboardTitle = `${markup}Quarterly_revenue_by_region_and_status_for_the_board`
  const widgetTitle = `${markup}Revenue_by_month_for_the_last_six_months_${'x'.repeat(60)}`
  let publicId: string

  beforeAll(async () => {
    const token = await tokenOf(creatorSession('nina', 'Europe'))
    const headers = { authorization: `Embed-Token ${token}` }
    const stream = await server.request('POST', '/api/v1/public/acme/agents/1/chat/stream-chat-state', {
      headers,
      body: { input: 'revenue by month' },
    })
    const lines = (await stream.text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Json)
    const messages = lines.at(-1)!.state.messages as Json[]
    const created = await server.request('POST', '/api/v1/embed/dashboards', {
      headers,
      body: { title: dashboardTitle },
    })
    publicId = ((await created.json()) as Json).publicId
    const pinned = await server.request('POST', `/api/v1/embed/dashboards/${publicId}/widgets`, {
      headers,
      body: { chatId: lines[0].state.chatId, messageId: messages.at(-1)!.id, title: widgetTitle },
    })
    expect(pinned.status).toBe(201)
  })

  for (const width of [1280, 375])
    for (const [who, session] of [
      ['creator', creatorSession('nina', 'Europe')],
      ['viewer', viewerSession(`vic-${width}`, 'Asia')],
    ] as const)
      it(`shows them as text and keeps them inside the page for a ${who} at ${width} px`, async () => {
        const context = await browser.newContext({ viewport: { width, height: 900 }, locale: 'en-US' })
        const page = await context.newPage()
        const log = watch(page)
        await page.goto(`${server.url}/embed/dashboard/${publicId}?session=${await server.mintSession(session)}`)
        await widgetsDrawn(page, 1)
        expect(await page.locator('h1').textContent()).toBe(dashboardTitle)
        expect(await titles(page)).toEqual([widgetTitle])
        expect(await page.locator('img[src="x"]').count()).toBe(0)
        expect(await page.title()).not.toBe('pwned')
        // Nothing sticks out to the right: no sideways scrolling, the header's buttons and the widget's inside.
        expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBe(0)
        for (const selector of ['.launcher', '.user-chip', '.widget h2', '.widget-header button'])
          for (const box of await page
            .locator(selector)
            .evaluateAll((nodes) => nodes.map((node) => node.getBoundingClientRect().right)))
            expect(box).toBeLessThanOrEqual(width)
        const card = await page.locator('.widget').boundingBox()
        const heading = await page.locator('.widget h2').boundingBox()
        expect(heading!.x + heading!.width).toBeLessThanOrEqual(card!.x + card!.width)
        await screenshot(page, `answer-dashboards-long-names-${who}-${width}`)
        expect(log.unexpected()).toEqual([])
        await context.close()
      })

  it('cuts a long display name short at 375 px, so the title keeps its room, on the dashboard and in the chat', async () => {
    const displayName = `${markup}Maximiliana Bartholomew-Featherstonehaugh`
    const context = await browser.newContext({ viewport: { width: 375, height: 900 }, locale: 'en-US' })
    for (const [page, path] of [
      ['dashboard', `/embed/dashboard/${publicId}?session=`],
      ['chat', '/embed/chat?sessionId='],
    ] as const) {
      const tab = await context.newPage()
      const log = watch(tab)
      const session = { ...viewerSession('long-name', 'Asia'), userProfile: { displayName } }
      await tab.goto(`${server.url}${path}${await server.mintSession(session)}`)
      await tab.locator('.user-name').waitFor()
      if (page === 'dashboard') await widgetsDrawn(tab, 1)
      expect(await tab.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBe(0)
      const name = tab.locator('.user-name')
      expect(await name.textContent()).toBe(displayName)
      expect(await name.getAttribute('title')).toBe(displayName)
      expect(await tab.locator('.user-name img').count()).toBe(0)
      const nameBox = (await name.boundingBox())!
      expect(nameBox.x + nameBox.width).toBeLessThanOrEqual(375)
      // The title is laid out in words, not one letter a line beside the name.
      const title = (await tab.locator('h1').boundingBox())!
      if (page === 'dashboard') expect(title.width).toBeGreaterThanOrEqual(100)
      // The agent's name ("Analyst") on one line, where it broke before its last letter.
      else expect(title.height).toBeLessThan(40)
      await screenshot(tab, `answer-dashboards-long-user-name-${page}-375`)
      expect(log.unexpected()).toEqual([])
    }
    await context.close()
  })
})

describe('a removal on the embedded dashboard', () => {
  it('shows a change someone else saved while the removal was being read back', async () => {
    const token = await tokenOf(creatorSession('rosa', 'Europe'))
    const headers = { authorization: `Embed-Token ${token}` }
    const stream = await server.request('POST', '/api/v1/public/acme/agents/1/chat/stream-chat-state', {
      headers,
      body: { input: 'how many orders' },
    })
    const lines = (await stream.text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Json)
    const source = { chatId: lines[0].state.chatId, messageId: lines.at(-1)!.state.messages.at(-1).id }
    const created = await server.request('POST', '/api/v1/embed/dashboards', { headers, body: { title: 'Rosa' } })
    const publicId = ((await created.json()) as Json).publicId
    for (const title of ['One', 'Two'])
      await server.request('POST', `/api/v1/embed/dashboards/${publicId}/widgets`, {
        headers,
        body: { ...source, title },
      })

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' })
    const page = await context.newPage()
    const log = watch(page)
    await page.goto(
      `${server.url}/embed/dashboard/${publicId}?session=${await server.mintSession(creatorSession('rosa', 'Europe'))}`,
    )
    await widgetsDrawn(page, 2)

    // The page's next read of the dashboard (the one after the removal) waits until Otto has saved.
    let held: () => void = () => undefined
    const reached = new Promise<void>((resolve) => {
      let first = true
      void page.route(`${server.url}/api/v1/embed/dashboards/${publicId}`, async (route) => {
        if (!first || route.request().method() !== 'GET') return route.continue()
        first = false
        resolve()
        await new Promise<void>((release) => (held = release))
        await route.continue()
      })
    })
    await page.getByRole('button', { name: 'Remove One' }).click()
    await reached
    const otto = { authorization: `Embed-Token ${await tokenOf(creatorSession('otto', 'Asia'))}` }
    const current = (await (
      await server.request('GET', `/api/v1/embed/dashboards/${publicId}`, { headers: otto })
    ).json()) as Json
    const renamed = await server.request(
      'PATCH',
      `/api/v1/embed/dashboards/${publicId}/widgets/${current.widgets[0].id}`,
      {
        headers: otto,
        body: { checksum: current.checksum, title: 'Two (renamed by Otto)' },
      },
    )
    expect(renamed.status).toBe(200)
    held()
    await page.getByText('Removed “One”.').waitFor()
    await widgetsDrawn(page, 1)
    expect(await titles(page)).toEqual(['Two (renamed by Otto)'])
    expect(log.unexpected()).toEqual([])
    await context.close()
  })
})

describe("the front door's embed preview", () => {
  it('opens the dashboard a creator just made in the preview, then shows it to a viewer of another region', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 1400 }, locale: 'en-US' })
    const page = await context.newPage()
    const log = watch(page)
    await page.goto(`${server.url}/`)
    await page.getByLabel(/Admin API key/).fill(keys.admin)
    await page.getByRole('button', { name: 'Show deployments' }).click()
    await page.getByLabel('User id (externalId)').fill('paula')
    await page.getByLabel(/Attributes/).fill('region=Europe')
    await page.getByLabel(/Embed tenant/).fill('tenant-one')
    await page.getByLabel(/Creator mode/).check()
    await page.getByRole('button', { name: 'Open as this user' }).click()

    const chat = page.frameLocator('iframe.preview-frame')
    await chat.getByLabel('Ask a question about your data').fill('how many orders')
    await chat.getByRole('button', { name: 'Send' }).click()
    const answer = chat.locator('li.msg-final').first()
    await answer.getByRole('button', { name: 'Add to dashboard' }).click()
    await answer.getByLabel('New dashboard').fill('Paula board')
    await answer.getByRole('button', { name: 'Create and add' }).click()
    await answer.locator('.pin-done').waitFor()

    // Choosing "Dashboard" reads the list again: the dashboard made in the frame is there without another opening.
    await page.getByRole('radio', { name: 'Dashboard' }).check()
    await page.getByRole('combobox', { name: 'Dashboard' }).selectOption({ label: 'Paula board' }, { timeout: 5_000 })
    await page.getByLabel(/Creator mode/).uncheck()
    await page.getByLabel('User id (externalId)').fill('pete')
    await page.getByLabel(/Attributes/).fill('region=Asia')
    await page.getByRole('button', { name: 'Open as this user' }).click()
    const board = page.frameLocator('iframe.preview-frame')
    await board.locator('h1', { hasText: 'Paula board' }).waitFor()
    await board.locator('.kpi-value').waitFor()
    expect(await board.locator('.widget h2').allTextContents()).toEqual(['Number of orders, all time'])
    expect(await board.getByRole('button', { name: /Rename|Remove|Undo/ }).count()).toBe(0)
    expect(log.unexpected()).toEqual([])
    await context.close()
  })
})

describe('a dashboard made in the standalone chat', () => {
  it('opens from the chat in the same tab with the same session, and Back returns to the thread', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' })
    const page = await context.newPage()
    const log = watch(page)
    const sessionId = await server.mintSession(creatorSession('opal', 'Europe'))
    await page.goto(`${server.url}/embed/chat?sessionId=${sessionId}&theme=dark`)
    await ask(page, 'revenue by status', 1)
    const answer = page.locator('li.msg-final').first()
    await answer.getByRole('button', { name: 'Add to dashboard' }).click()
    await answer.getByLabel('New dashboard').fill('Board from the chat')
    await answer.getByRole('button', { name: 'Create and add' }).click()
    const open = answer.getByRole('link', { name: 'Open “Board from the chat”' })
    await open.waitFor()
    expect(await open.getAttribute('target')).toBeNull()

    await open.click()
    await page.waitForURL(/\/embed\/dashboard\/pd_[^?]+\?session=/)
    const address = new URL(page.url())
    expect(address.searchParams.get('session')).toBe(sessionId)
    expect(address.searchParams.get('theme')).toBe('dark')
    await widgetsDrawn(page, 1)
    expect(await page.locator('h1').textContent()).toBe('Board from the chat')
    expect(await titles(page)).toEqual(['Revenue by Status, all time'])
    // Nothing to undo yet: the button looks it, not only to a screen reader.
    const look = (name: RegExp) =>
      page.getByRole('button', { name }).evaluate((button) => getComputedStyle(button).color)
    expect(await page.getByRole('button', { name: 'Undo' }).isDisabled()).toBe(true)
    expect(await look(/^Undo$/)).not.toBe(await look(/^Download /))

    await page.goBack()
    await page.locator('li.msg-final:not([data-streaming]) .pin-answer').waitFor()
    expect(await page.locator('.msg-user .bubble').textContent()).toContain('revenue by status')
    expect(log.unexpected()).toEqual([])
    await context.close()
  })
})
