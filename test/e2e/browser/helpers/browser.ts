import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { chromium, type Browser, type ConsoleMessage, type Page } from 'playwright-core'
import { programAvailable } from '../../../helpers/programs'

/** Where the screenshots go (ignored by git): the evidence, kept after the run. */
export const ARTIFACTS = join(import.meta.dir, '..', '..', '..', '..', 'test-artifacts', 'browser')

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

/** Whether Chromium is here: missing, the browser tests skip, saying so, and fail in CI (`CI=true`). */
export const chromiumAvailable = programAvailable(
  `Chromium (${CHROMIUM})`,
  existsSync(CHROMIUM),
  'apt-get install -y chromium, or set CHROMIUM_PATH',
)

/**
 * Debian's chromium, headless, with the flags CI uses. Playwright gives it a fresh temporary profile
 * (`--user-data-dir`) and deletes it on close.
 */
export async function launchBrowser(): Promise<Browser> {
  mkdirSync(ARTIFACTS, { recursive: true })
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
}

/** Everything a page reported: console messages (with the URL they name) and uncaught errors. */
export interface PageLog {
  console: Array<{ type: string; text: string; url: string }>
  errors: string[]
  /** Console entries other than the browser's own "Failed to load resource" notes for `expectedFailures` URLs. */
  unexpected(expectedFailures?: string[]): string[]
}

export function watch(page: Page): PageLog {
  const log: PageLog = {
    console: [],
    errors: [],
    unexpected(expectedFailures = []) {
      const entries = log.console
        .filter(
          (entry) =>
            !(
              entry.text.startsWith('Failed to load resource') &&
              expectedFailures.some((url) => entry.url.startsWith(url))
            ),
        )
        .map((entry) => `${entry.type}: ${entry.text} (${entry.url})`)
      return [...entries, ...log.errors.map((error) => `pageerror: ${error}`)]
    },
  }
  page.on('console', (message: ConsoleMessage) =>
    log.console.push({ type: message.type(), text: message.text(), url: message.location().url }),
  )
  page.on('pageerror', (error) => log.errors.push(error.message))
  return log
}

/** Saves a full-page screenshot under `test-artifacts/browser/<name>.png`. */
export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true })
}
