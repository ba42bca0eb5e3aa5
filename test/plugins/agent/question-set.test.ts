import { Database } from 'bun:sqlite'
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { readFileSync } from 'node:fs'
import { createTestApp, type TestApp } from '../../helpers/app'
import { answerOf, Tally } from './questions/ask'
import { comparisons } from './questions/comparisons'
import { conversations } from './questions/conversations'
import { rankings } from './questions/rankings'
import { reading } from './questions/reading'
import { expectedRows, score } from './questions/score'
import { threads } from './questions/threads'
import { totals } from './questions/totals'
import type { Question } from './questions/types'

const QUESTIONS: Question[] = [...totals, ...comparisons, ...rankings, ...threads, ...reading, ...conversations]

let test: TestApp
let data: Database

beforeAll(() => {
  test = createTestApp()
  // The reference answers are read from a copy in memory: the same rows, without reading the file's pages again for
  // each of the queries (it halves their time).
  data = Database.deserialize(readFileSync(test.deps.semantic.demoData().path))
}, 60_000)
afterAll(async () => {
  data.close()
  await test.close()
})

const expected = new Map<Question, string[][]>()

/** The rows a question's reference SQL gives on the demo data, computed once for both tests. */
function expectedOf(question: Question): string[][] {
  let rows = expected.get(question)
  if (!rows) expected.set(question, (rows = expectedRows(data, question)))
  return rows
}

describe('the question set', () => {
  it('has at least 120 questions whose expected answers the demo data gives', () => {
    expect(QUESTIONS.length).toBeGreaterThanOrEqual(120)
    expect(
      (data.query('SELECT MAX(created_at) AS latest FROM orders').get() as { latest: string }).latest.slice(0, 10),
    ).toBe('2025-12-31')
    for (const question of QUESTIONS) if (question.sql) expect(expectedOf(question).length).toBeGreaterThan(0)
  }, 60_000)

  it('is answered right at least 95% of the time, and declined rather than answered wrong otherwise', async () => {
    const tally = new Tally()
    for (const [index, question] of QUESTIONS.entries()) {
      const answer = await answerOf(test, question, index)
      const { outcome, why } = score(answer, question.sql ? expectedOf(question) : undefined, question.first)
      tally.add(question, answer, outcome, why)
    }
    tally.report('demo')
    expect(tally.outcomes.right / QUESTIONS.length).toBeGreaterThanOrEqual(0.95)
    expect(tally.outcomes.wrong).toBe(0)
  }, 300_000)
})
