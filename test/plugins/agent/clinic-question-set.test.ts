import { Database } from 'bun:sqlite'
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { join } from 'node:path'
import { createTestApp, type TestApp } from '../../helpers/app'
import { clinicFolder } from '../../fixtures/clinic/make-data'
import { testBootstrap } from '../../helpers/fixtures'
import { answerOf, Tally } from './questions/ask'
import { clinic } from './questions/clinic'
import { expectedRows, score } from './questions/score'

// The clinic model and its data: a schema the analyst was not grown on.
let test: TestApp
let data: Database

beforeAll(() => {
  const folder = clinicFolder()
  const bootstrap = testBootstrap()
  bootstrap.accounts[0].deployments![0].model = folder
  test = createTestApp({ bootstrap })
  data = new Database(join(folder, 'data.db'), { readonly: true })
}, 60_000)
afterAll(async () => {
  data.close()
  await test.close()
})

describe('the clinic question set', () => {
  it('is answered right at least 90% of the time, and declined rather than answered wrong otherwise', async () => {
    for (const question of clinic) if (question.sql) expect(expectedRows(data, question).length).toBeGreaterThan(0)
    const tally = new Tally()
    for (const [index, question] of clinic.entries()) {
      const answer = await answerOf(test, question, index)
      const { outcome, why } = score(answer, question.sql ? expectedRows(data, question) : undefined, question.first)
      tally.add(question, answer, outcome, why)
    }
    tally.report('clinic')
    expect(tally.outcomes.right / clinic.length).toBeGreaterThanOrEqual(0.9)
    expect(tally.outcomes.wrong).toBe(0)
  }, 120_000)
})
