import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { QUESTIONS } from '../../../../../bench/scenarios/analyst'
import { createSemanticService } from '../../../../../plugins/semantic/semantic-service'
import { createLogger } from '../../../../../lib/logger'
import { apiKey, createTestApp, type TestApp } from '../../../../helpers/app'
import { chatBase, finalAnswer, mergeLines, readLines } from '../../../../helpers/chat'
import { TEST_DEMO_DATA } from '../../../../helpers/demo-data'
import { demoSources } from '../../../../helpers/demo-sources'
import { keys } from '../../../../helpers/fixtures'

// Every demo question the analyst benchmark asks, through the chat, on every source: the answers (tables, totals,
// wording, declines) are the same text as on the built-in demo data, for a user who sees everything and one bound to a
// region.
const apps = new Map<string, TestApp>()

beforeAll(async () => {
  apps.set('built-in', createTestApp())
  for (const source of await demoSources())
    apps.set(
      source.name,
      createTestApp({
        semantic: createSemanticService({
          config: { dbPath: ':memory:', demoDataPath: TEST_DEMO_DATA },
          logger: createLogger('silent'),
          dataSources: new Map([[1, source.config]]),
        }),
      }),
    )
}, 180_000)
afterAll(async () => {
  await Promise.all([...apps.values()].map((app) => app.close()))
}, 30_000)

async function answer(app: TestApp, question: string, settings: Record<string, unknown>): Promise<string> {
  const response = await app.request('POST', `${chatBase()}/stream-chat-state`, {
    headers: apiKey(keys.admin),
    body: { input: question, sessionSettings: settings },
  })
  const text = finalAnswer(mergeLines(await readLines(response)))?.content ?? ''
  // A question asked again is answered from the cache and says so: that line says nothing of the source.
  return text.replace(/\n\n_Answered from the cache: [^\n]*_$/, '')
}

describe('the analyst on every data source', () => {
  it('answers every demo question with the same text as on the built-in data', async () => {
    const users = [
      { externalId: 'everything' },
      { externalId: 'europe', userAttributes: [{ name: 'region', value: 'Europe' }] },
    ]
    for (const question of QUESTIONS)
      for (const settings of users) {
        const expected = await answer(apps.get('built-in') as TestApp, question, settings)
        // A user bound to Europe who names another region gets a decline (no table); everyone else gets a table.
        if (settings.externalId === 'everything') expect(expected).toContain('|')
        else expect(expected.length).toBeGreaterThan(0)
        for (const [name, app] of apps)
          expect({ name, question, answer: await answer(app, question, settings) }).toEqual({
            name,
            question,
            answer: expected,
          })
      }
  }, 120_000)
})
