import { afterAll, afterEach, beforeAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { asc, eq } from 'drizzle-orm'
import type { Browser, BrowserContext, Page, Request } from 'playwright-core'
import { chromiumAvailable, launchBrowser, screenshot, watch, type PageLog } from './helpers/browser'
import { startEmbedServer, type EmbedServer } from './helpers/embed-server'
import type { Json } from '../../plugins/web/helpers'

setDefaultTimeout(30_000)

let server: EmbedServer
let browser: Browser
let context: BrowserContext

// Launching the browser outlasts bun's 5 s hook limit on a busy machine.
beforeAll(async () => {
  // Without Chromium the tests below are skipped (saying so); nothing to set up.
  if (!chromiumAvailable) return
  server = await startEmbedServer({ analystDelayMs: 10 })
  browser = await launchBrowser()
  context = await browser.newContext({ viewport: { width: 1100, height: 900 }, locale: 'en-US' })
  // Well under the test's own limit, so a page that never gets there fails with the locator it waited for.
  context.setDefaultTimeout(10_000)
}, 60_000)

afterEach(async () => {
  for (const page of context.pages()) await page.close()
})

afterAll(async () => {
  await browser?.close()
  await server?.stop()
})

const europe = { userAttributes: [{ name: 'region', value: 'Europe' }], userProfile: { displayName: 'Eva Europa' } }

async function openChat(session: Json): Promise<{ page: Page; log: PageLog; sessionId: string }> {
  const sessionId = await server.mintSession(session)
  const page = await context.newPage()
  const log = watch(page)
  await page.goto(`${server.url}/embed/chat?sessionId=${sessionId}`)
  await page.getByLabel('Ask a question about your data').waitFor()
  return { page, log, sessionId }
}

async function ask(page: Page, question: string): Promise<void> {
  await page.getByLabel('Ask a question about your data').fill(question)
  await page.keyboard.press('Enter')
}

const finished = (page: Page) => page.locator('[data-final="true"]:not([data-streaming])').waitFor()
const isStream = (request: Request) => request.url().endsWith('/chat/stream-chat-state') && request.method() === 'POST'

/** Rows of the thread as stored, for checks of what really happened on the server. */
function storedMessages(chatId: string) {
  const { chatMessages } = server.storage.tables
  return server.storage.db
    .select({
      id: chatMessages.id,
      role: chatMessages.role,
      status: chatMessages.status,
      graphPath: chatMessages.graphPath,
    })
    .from(chatMessages)
    .where(eq(chatMessages.threadId, chatId))
    .orderBy(asc(chatMessages.sort))
}

describe.skipIf(!chromiumAvailable)('GET /embed/chat in a browser', () => {
  it("streams the offline analyst's answer as it arrives: tool calls with their SQL and results, then the final answer", async () => {
    // A session that hides the dashboard chat: the standalone chat must not care.
    const { page, log } = await openChat({ externalId: 'eva', ...europe, settings: { showDashboardChat: false } })
    await page.evaluate(() => {
      // Records every length the final answer shows, to prove it grew piece by piece.
      const lengths: number[] = []
      ;(window as unknown as { answerLengths: number[] }).answerLengths = lengths
      new MutationObserver(() => {
        const answer = document.querySelector('[data-final="true"]')
        const length = answer?.textContent?.length ?? 0
        if (length > 0 && lengths[lengths.length - 1] !== length) lengths.push(length)
      }).observe(document.body, { subtree: true, childList: true, characterData: true })
    })
    // Held once, right after the first piece of the final answer, for a picture of the page mid-stream.
    const held = server.control.pauseNext()
    await ask(page, 'What is the revenue by status?')
    await held.reached
    await page.locator('[data-final="true"][data-streaming="true"]').waitFor()
    await screenshot(page, 'chat-streaming')
    held.release()
    await finished(page)
    await screenshot(page, 'chat-final-answer')

    // Many intermediate states (the text can shrink for a moment when a table's separator row turns lines into a table).
    const lengths = await page.evaluate(() => (window as unknown as { answerLengths: number[] }).answerLengths)
    expect(lengths.length).toBeGreaterThanOrEqual(3)
    expect(lengths[0]).toBeLessThan(lengths[lengths.length - 1])

    expect(await page.locator('.msg-user .bubble').textContent()).toContain('What is the revenue by status?')
    // The steps: one closed line; opened, the query's SQL (the lookups of region and status values are not shown).
    const steps = page.locator('details.steps')
    expect(await steps.locator('summary').textContent()).toMatch(/^1 query, (\d+ ms|\d+\.\d s)$/)
    expect(await steps.getAttribute('open')).toBeNull()
    await steps.locator('summary').click()
    const query = page.locator('.tool[data-tool="serviceSqlApi"]')
    expect(await query.count()).toBe(1)
    expect(await query.locator('pre code').textContent()).toContain('MEASURE(orders.total_amount)')
    expect(await query.locator('pre code').isVisible()).toBe(true)
    // A few categories: the answer draws bars, with the one table one click away.
    const answer = page.locator('[data-final="true"]')
    // Charts are drawn after the answer renders: wait for the canvas, then count.
    await answer.locator('[data-chart="bar"] canvas').first().waitFor()
    expect(await answer.locator('[data-chart="bar"] canvas').count()).toBe(1)
    expect(await answer.locator('[data-chart="bar"] [role="img"]').getAttribute('aria-label')).toMatch(
      /^Bar chart: .*5 bars; highest completed/,
    )
    // No result table until asked for: not in the steps, not in the answer's text (uPlot's legend is a table too).
    const visibleTables = () =>
      page
        .locator('table:not(.u-legend)')
        .evaluateAll((tables) => tables.filter((table) => !table.closest('.sr-only')).length)
    expect(await visibleTables()).toBe(0)
    await answer.getByRole('button', { name: 'Show table' }).click()
    expect(await visibleTables()).toBe(1)
    // The answer's own table: headed as the answer names its columns, not by the result's column names.
    expect(await answer.locator('.answer-figure table tbody tr').count()).toBe(5)
    expect(await answer.locator('.answer-figure table thead th').allTextContents()).toEqual(['Status', 'Revenue'])
    expect(await answer.getByRole('button', { name: 'Show chart' }).getAttribute('aria-pressed')).toBe('true')
    expect(await answer.locator('strong').first().textContent()).toBe('Revenue by Status, all time')
    // The avatar of the user's message: no picture, so the initials.
    expect(await page.locator('.msg-user .avatar').textContent()).toBe('EE')
    expect(log.unexpected()).toEqual([])
  })

  for (const { width, theme } of [
    { width: 1280, theme: 'light' },
    { width: 1280, theme: 'dark' },
    { width: 375, theme: 'light' },
    { width: 375, theme: 'dark' },
  ] as const) {
    it(`offers starter questions from the model and answers a trend with a line chart at ${width} px in ${theme} mode, by keyboard`, async () => {
      const page = await context.newPage()
      await page.setViewportSize({ width, height: 800 })
      await page.emulateMedia({ colorScheme: theme })
      const log = watch(page)
      const sessionId = await server.mintSession({ externalId: `starter-${width}-${theme}`, ...europe })
      await page.goto(`${server.url}/embed/chat?sessionId=${sessionId}`)
      const starters = page.getByRole('list', { name: 'Suggested questions' }).getByRole('button')
      await starters.first().waitFor()
      // Eva sees Europe only: no breakdown by region (one bar), the next one instead.
      expect(await starters.allTextContents()).toEqual([
        'Revenue by month',
        'Revenue by status',
        'Number of orders by city',
        'Number of orders by month',
      ])
      await screenshot(page, `chat-empty-${width}-${theme}`)
      // Keyboard only: the first starter is reachable and Enter asks it.
      await starters.first().focus()
      await page.keyboard.press('Enter')
      await finished(page)
      expect(await page.locator('.msg-user .bubble').textContent()).toContain('Revenue by month')
      const answer = page.locator('[data-final="true"]')
      // Charts are drawn after the answer renders: wait for the canvas, then count.
      await answer.locator('[data-chart="line"] canvas').first().waitFor()
      expect(await answer.locator('[data-chart="line"] canvas').count()).toBe(1)
      expect(await answer.locator('[role="img"]').getAttribute('aria-label')).toMatch(
        /^Line chart: .* from 2021-01 to 2025-12/,
      )
      // The conversation is announced politely, and only once complete (busy while streaming).
      expect(await page.locator('.chat-log').getAttribute('aria-live')).toBe('polite')
      expect(await page.locator('.chat-log').getAttribute('aria-busy')).toBe('false')
      // The page itself never scrolls: the conversation scrolls inside its log, the composer stays in view.
      expect(
        await page.evaluate(() => [
          document.documentElement.scrollWidth - window.innerWidth,
          document.documentElement.scrollHeight - window.innerHeight,
        ]),
      ).toEqual([0, 0])
      const paint = await page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime)
      console.log(`chat first contentful paint at ${width} px ${theme}: ${Math.round(paint ?? -1)} ms`)
      const background = await page.evaluate(
        () => getComputedStyle(document.querySelector('.chat-main')!).backgroundColor,
      )
      expect(background).toBe(theme === 'dark' ? 'rgb(27, 36, 49)' : 'rgb(255, 255, 255)')
      await screenshot(page, `chat-line-chart-${width}-${theme}`)
      expect(log.unexpected()).toEqual([])
    })
  }

  it("opens with the dashboard's session parameter too (?session=), a link easily mixed up", async () => {
    const sessionId = await server.mintSession({ externalId: 'mixed-link' })
    const page = await context.newPage()
    const log = watch(page)
    await page.goto(`${server.url}/embed/chat?session=${sessionId}`)
    await page.getByLabel('Ask a question about your data').waitFor()
    // The address is put right, so a reload reads the page's own parameter.
    expect(new URL(page.url()).searchParams.get('sessionId')).toBe(sessionId)
    expect(log.unexpected()).toEqual([])
    await page.close()
  })

  it('takes its theme from the theme parameter over the system setting', async () => {
    const page = await context.newPage()
    await page.emulateMedia({ colorScheme: 'light' })
    const sessionId = await server.mintSession({ externalId: 'theme-param', ...europe })
    await page.goto(`${server.url}/embed/chat?sessionId=${sessionId}&theme=dark`)
    await page.getByLabel('Ask a question about your data').waitFor()
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark')
    expect(await page.evaluate(() => getComputedStyle(document.querySelector('.chat-main')!).backgroundColor)).toBe(
      'rgb(27, 36, 49)',
    )
    // The parameter survives the page replacing the one-time session id in its address.
    expect(new URL(page.url()).searchParams.get('theme')).toBe('dark')
  })

  it('follows the stream to the bottom, and offers "New messages" instead when the reader scrolled up', async () => {
    const { page, log } = await openChat({ externalId: 'scroller', ...europe })
    await page.setViewportSize({ width: 1280, height: 600 })
    const atBottom = () =>
      page
        .locator('.chat-log')
        .evaluate((element) => element.scrollHeight - element.scrollTop - element.clientHeight < 48)
    for (const question of ['Revenue by month', 'Revenue by status', 'Number of orders by region']) {
      await ask(page, question)
      await page.waitForFunction(
        (count) => document.querySelectorAll('.msg-final:not([data-streaming])').length === count,
        ['Revenue by month', 'Revenue by status', 'Number of orders by region'].indexOf(question) + 1,
      )
      await page.waitForTimeout(100)
      expect(await atBottom()).toBe(true)
    }
    // A long conversation scrolls inside its log: the page itself (and its composer) stays put.
    expect(await page.evaluate(() => document.documentElement.scrollHeight - window.innerHeight)).toBe(0)
    await screenshot(page, 'chat-followed-to-bottom')
    // Held mid-answer, the reader scrolls up: the page stops following and offers the new messages.
    const held = server.control.pauseNext()
    await ask(page, 'Revenue by month')
    await held.reached
    await page.locator('.chat-log').evaluate((element) => element.scrollTo(0, 0))
    await page.mouse.move(640, 200)
    await page.mouse.wheel(0, -400)
    held.release()
    await page.waitForFunction(() => document.querySelectorAll('.msg-final:not([data-streaming])').length === 4)
    const button = page.getByRole('button', { name: /New messages/ })
    await button.waitFor()
    expect(await atBottom()).toBe(false)
    await screenshot(page, 'chat-new-messages-button')
    await button.click()
    expect(await atBottom()).toBe(true)
    expect(await button.count()).toBe(0)
    expect(log.unexpected()).toEqual([])
  })

  it('rejoins the running turn with the same messageId after a reload mid-answer', async () => {
    const { page, log } = await openChat({ externalId: 'rex', ...europe })
    const held = server.control.pauseNext()
    const firstRequest = page.waitForRequest(isStream)
    await ask(page, 'Orders by region')
    const sent = (await firstRequest).postDataJSON() as Json
    expect(sent.input).toBe('Orders by region')
    expect(sent.messageId).toMatch(/^\d{13,}-message$/)
    await held.reached
    await page.locator('[data-final="true"][data-streaming="true"]').waitFor()
    const partial = (await page.locator('[data-final="true"]').textContent()) ?? ''
    expect(partial.length).toBeGreaterThan(0)

    const rejoin = page.waitForResponse(
      (response) =>
        isStream(response.request()) && (response.request().postDataJSON() as Json).messageId === sent.messageId,
    )
    await page.reload()
    const rejoined = await rejoin
    const body = rejoined.request().postDataJSON() as Json
    // The question goes again with its messageId: the server joins its run (it never runs one message twice).
    expect(body).toEqual({ chatId: expect.any(String), messageId: sent.messageId, input: 'Orders by region' })
    // The run is still held: the page shows the replayed partial answer, still streaming, and the question once.
    await page.locator('[data-final="true"][data-streaming="true"]').waitFor()
    expect(await page.locator('[data-final="true"]').textContent()).toBe(partial)
    expect(await page.locator('.msg-user').count()).toBe(1)
    await screenshot(page, 'chat-reload-rejoined-mid-answer')

    held.release()
    await finished(page)
    // The replayed tool call arrived in one burst with its result: no duration is made up from that.
    expect(await page.locator('details.steps summary').first().textContent()).toBe('1 query')
    const lines = (await rejoined.text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Json)
    expect(lines[0]).toEqual({ id: '__cutoff__', sort: 0, state: { chatId: body.chatId, isStreaming: true } })
    expect(lines[lines.length - 1].id).toBe('__state__')
    await screenshot(page, 'chat-reload-finished')

    // One turn on the server: the question stored once, answered once, nothing run twice.
    const stored = await storedMessages(body.chatId)
    expect(stored.filter((message) => message.role === 'user').map((message) => message.id)).toEqual([sent.messageId])
    expect(stored.filter((message) => JSON.stringify(message.graphPath) === '["final"]').length).toBe(1)
    expect(stored.every((message) => message.status === 'complete')).toBe(true)
    const { chatRuns } = server.storage.tables
    const runs = await server.storage.db.select().from(chatRuns).where(eq(chatRuns.threadId, body.chatId))
    expect(runs.length).toBe(1)
    expect(log.unexpected()).toEqual([])
  })

  it('in a second tab of the thread: a refused question stays in the box, and a reload follows the running answer', async () => {
    const { page, log } = await openChat({ externalId: 'two-tabs', ...europe })
    await ask(page, 'Orders by status')
    await finished(page)
    // A copy of the tab (its session storage copied: the same thread and token), idle while the first one asks.
    const [copy] = await Promise.all([
      context.waitForEvent('page'),
      page.evaluate(() => void window.open(window.location.href)),
    ])
    const copyLog = watch(copy)
    await copy.locator('.msg-user').first().waitFor()
    const held = server.control.pauseNext()
    await ask(page, 'Orders by region')
    await held.reached

    await ask(copy, 'Revenue by month in 2024')
    await copy.locator('.msg-error').waitFor()
    expect(await copy.locator('.msg-error').textContent()).toBe(
      'This conversation is still answering another question (in another tab?). Send yours once it is done.',
    )
    expect(await copy.getByLabel('Ask a question about your data').inputValue()).toBe('Revenue by month in 2024')

    // Reloaded, the copy follows the first tab's running answer instead of showing it cut off.
    await copy.reload()
    await copy.locator('[data-final="true"][data-streaming="true"]').waitFor()
    expect(await copy.locator('.msg-user').count()).toBe(2)
    held.release()
    await finished(copy)
    await finished(page)
    expect(await copy.locator('.msg-flag').count()).toBe(0)

    // Also while the model has not written a line yet: the copy, reloaded, follows the question it sees unanswered.
    const waiting = server.control.pauseNext('start')
    await ask(page, 'Orders by status in 2024')
    await waiting.reached
    await copy.reload()
    await copy.locator('.msg-user').nth(2).waitFor()
    await copy.locator('button.button-stop').waitFor()
    waiting.release()
    // The answer comes in and ends: the Stop button goes, and the copy shows the three turns.
    await copy.locator('button.button-stop').waitFor({ state: 'detached' })
    await finished(copy)
    expect(await copy.locator('.msg-user').count()).toBe(3)
    expect(await copy.locator('.msg-flag').count()).toBe(0)
    expect(log.unexpected()).toEqual([])
    expect(copyLog.unexpected()).toEqual([])
  })

  it('stops a running answer with the Stop button (POST .../chat/abort) and keeps the partial answer', async () => {
    const { page, log } = await openChat({ externalId: 'sam', ...europe })
    const held = server.control.pauseNext()
    await ask(page, 'Revenue by month in 2024')
    await held.reached
    const stop = page.getByRole('button', { name: 'Stop' })
    await page.locator('button.button-stop:not([disabled])').waitFor()
    const [abort] = await Promise.all([
      page.waitForResponse((response) => response.url().endsWith('/chat/abort')),
      stop.click(),
    ])
    expect(abort.status()).toBe(204)
    await page.locator('.msg-stopped').waitFor()
    expect(await page.locator('.msg-stopped').textContent()).toBe('Stopped.')
    expect(await page.locator('.msg-flag').textContent()).toBe('This answer was interrupted.')
    expect(await page.getByRole('button', { name: 'Stop' }).count()).toBe(0)
    await screenshot(page, 'chat-stopped')
    expect(log.unexpected()).toEqual([])
  })

  it('says access was revoked as soon as the app revokes the session mid-answer', async () => {
    const { page, sessionId } = await openChat({ externalId: 'rea', ...europe })
    const held = server.control.pauseNext()
    await ask(page, 'Revenue by month in 2024')
    await held.reached
    await server.call('POST', '/api/v1/embed/session/revoke', { sessionId })
    // Without another request: the stream being read ends with the revocation, and the page shows it.
    await page.locator('h1', { hasText: 'Access was revoked' }).waitFor()
    held.release()
    await screenshot(page, 'chat-revoked-mid-answer')
  })

  it('shows an error line of the stream as an alert, and the chat goes on', async () => {
    const { page, log } = await openChat({ externalId: 'eli', ...europe })
    server.control.failNext()
    await ask(page, 'Orders by status')
    await page.locator('.msg-error').waitFor()
    expect(await page.locator('.msg-error').textContent()).toBe('The model provider failed (HTTP 503)')
    expect(await page.locator('.msg-error').getAttribute('role')).toBe('alert')
    await screenshot(page, 'chat-error-line')
    await ask(page, 'Orders by status')
    await finished(page)
    expect(log.unexpected()).toEqual([])
  })

  it('tells the host frame before the token expires and takes a new session from it without a reload', async () => {
    // The server lives 24 hours minus 2 minutes in the past: the token it issues expires 2 minutes from now.
    server.setClockOffset(-(24 * 3600_000 - 2 * 60_000))
    const firstSession = await server.mintSession({ externalId: 'hana', ...europe })
    const embedUrl = `${server.url}/embed/chat?sessionId=${firstSession}`
    const host = startHostApp(embedUrl, () => {
      server.setClockOffset(0)
      return server.mintSession({ externalId: 'hana' })
    })
    try {
      const page = await context.newPage()
      const log = watch(page)
      await page.goto(`http://localhost:${host.port}/`)
      await hostReceived(page, 'embed:session-expiring')
      const frame = page.frames().find((candidate) => candidate.url().startsWith(server.url))!
      await frame.getByLabel('Ask a question about your data').waitFor()
      await frame.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true))

      // A session that does not work is refused and leaves the page as it was.
      await page.evaluate(() => (window as unknown as { send(sessionId: string): void }).send('es_not_a_session'))
      await hostReceived(page, 'embed:session-rejected')
      expect(await frame.getByLabel('Ask a question about your data').isVisible()).toBe(true)

      await page.evaluate(() => (window as unknown as { renew(): Promise<void> }).renew())
      await hostReceived(page, 'embed:session-accepted')
      const received = await page.evaluate(() =>
        (window as unknown as { received: Json[] }).received.map((message) => message.type),
      )
      expect(received).toEqual([
        'embed:ready',
        'embed:session-expiring',
        'embed:session-rejected',
        'embed:session-accepted',
      ])
      expect(await frame.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true)
      const newSession = new URL(frame.url()).searchParams.get('sessionId')
      expect(newSession).not.toBe(firstSession)

      // The new token works: a question gets its answer.
      await frame.getByLabel('Ask a question about your data').fill('Orders by region')
      await frame.getByLabel('Ask a question about your data').press('Enter')
      await frame.locator('[data-final="true"]:not([data-streaming])').waitFor()
      await screenshot(page, 'host-frame-session-renewed')
      // The refused session's exchange is the only failed request.
      expect(log.unexpected([`${server.url}/api/v1/embed/session/token`])).toEqual([])
    } finally {
      server.setClockOffset(0)
      await host.stop(true)
    }
  })
})

describe.skipIf(!chromiumAvailable)('GET /embed/chat after its session was revoked', () => {
  it('answers the refused question once the host frame hands over a new session, without a reload', async () => {
    const firstSession = await server.mintSession({ externalId: 'ines', ...europe })
    const embedUrl = `${server.url}/embed/chat?sessionId=${firstSession}`
    const host = startHostApp(embedUrl, () => server.mintSession({ externalId: 'ines' }))
    try {
      const page = await context.newPage()
      const log = watch(page)
      await page.goto(`http://localhost:${host.port}/`)
      const frame = page.frames().find((candidate) => candidate.url().startsWith(server.url))!
      await frame.getByLabel('Ask a question about your data').waitFor()
      await server.call('POST', '/api/v1/embed/session/revoke', { sessionId: firstSession })

      // Refused with the session: the page tells the host, which hands over a new one.
      await frame.getByLabel('Ask a question about your data').fill('Orders by status')
      await frame.getByLabel('Ask a question about your data').press('Enter')
      await hostReceived(page, 'embed:session-expired')
      await page.evaluate(() => (window as unknown as { renew(): Promise<void> }).renew())

      // The question is asked again with its messageId, and answered: not a request with nothing to do.
      await frame.locator('[data-final="true"]:not([data-streaming])').waitFor()
      expect(await frame.locator('.msg-error').count()).toBe(0)
      expect(await frame.getByText('Orders by status').count()).toBeGreaterThan(0)
      await screenshot(page, 'host-frame-session-after-revocation')
      // The only failed request is the question refused with the revoked session.
      expect(log.unexpected([`${server.url}/api/v1/public/`])).toEqual([])
    } finally {
      await host.stop(true)
    }
  })
})

/**
 * The host app: another origin, with a backend that mints sessions (as a customer's would): its page frames
 * `embedUrl`, and `/new-session` answers with `newSession()`.
 */
function startHostApp(embedUrl: string, newSession: () => Promise<string>) {
  return Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: async (request) => {
      if (new URL(request.url).pathname === '/new-session') return Response.json({ sessionId: await newSession() })
      return new Response(hostPage(embedUrl, server.url), { headers: { 'content-type': 'text/html; charset=utf-8' } })
    },
  })
}

/** Resolves once the host page has received a message of `type` from the framed chat. */
function hostReceived(page: Page, type: string) {
  return page.waitForFunction(
    (wanted) => (window as unknown as { received: Json[] }).received.some((message) => message.type === wanted),
    type,
  )
}

/** The host app's page: frames the chat and answers `embed:session-expiring` with a new session when asked to. */
function hostPage(embedUrl: string, embedOrigin: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Host app</title>
<style>body{font-family:system-ui,sans-serif;margin:16px;background:#eef2f7}iframe{width:100%;height:720px;border:1px solid #9aa5b1;border-radius:8px;background:#fff}</style>
</head><body>
<h1>Customer app</h1>
<iframe id="embed" title="Embedded chat" src="${embedUrl}"></iframe>
<script>
window.received = []
window.addEventListener('message', (event) => {
  if (event.origin !== ${JSON.stringify(embedOrigin)}) return
  window.received.push(event.data)
})
window.send = (sessionId) => document.getElementById('embed').contentWindow.postMessage({ type: 'embed:session', sessionId }, ${JSON.stringify(embedOrigin)})
window.renew = async () => window.send((await (await fetch('/new-session')).json()).sessionId)
</script>
</body></html>`
}
