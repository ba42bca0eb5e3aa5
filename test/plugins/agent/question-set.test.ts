import { Database } from 'bun:sqlite'
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { readFileSync } from 'node:fs'
import { apiKey, createTestApp, type TestApp } from '../../helpers/app'
import { chatBase, finalAnswer, mergeLines, readLines } from '../../helpers/chat'
import { keys } from '../../helpers/fixtures'
import { comparisons } from './questions/comparisons'
import { rankings } from './questions/rankings'
import { expectedRows, score, type Outcome } from './questions/score'
import { threads } from './questions/threads'
import { totals } from './questions/totals'
import type { Question } from './questions/types'

const QUESTIONS: Question[] = [...totals, ...comparisons, ...rankings, ...threads]

let test: TestApp
let data: Database

beforeAll(() => {
  test = createTestApp()
  // The reference answers are read from a copy in memory: the same rows, without reading the file's pages again for
  // each of the 175 queries (it halves their time).
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

/** Asks every turn of a question in one thread; returns the last turn's final answer. */
async function answerOf(question: Question, index: number): Promise<string> {
  const turns = Array.isArray(question.ask) ? question.ask : [question.ask]
  const sessionSettings = {
    externalId: `question-${index}`,
    ...(question.region ? { userAttributes: [{ name: 'region', value: question.region }] } : {}),
  }
  let chatId: string | undefined
  let answer = ''
  for (const input of turns) {
    const response = await test.request('POST', `${chatBase()}/stream-chat-state`, {
      headers: apiKey(keys.admin),
      body: { input, sessionSettings, ...(chatId ? { chatId } : {}) },
    })
    const lines = await readLines(response)
    chatId ??= (lines[0]?.state as { chatId?: string } | undefined)?.chatId
    answer = finalAnswer(mergeLines(lines))?.content ?? ''
  }
  return answer
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
    const outcomes: Record<Outcome, number> = { right: 0, declined: 0, wrong: 0 }
    const byKind = new Map<string, { right: number; total: number }>()
    const misses: string[] = []
    for (const [index, question] of QUESTIONS.entries()) {
      const answer = await answerOf(question, index)
      const { outcome, why } = score(answer, question.sql ? expectedOf(question) : undefined, question.first)
      outcomes[outcome]++
      const kind = byKind.get(question.kind) ?? { right: 0, total: 0 }
      kind.total++
      if (outcome === 'right') kind.right++
      byKind.set(question.kind, kind)
      if (outcome !== 'right')
        misses.push(
          `${outcome.padEnd(8)} ${JSON.stringify(question.ask)}: ${why}\n    ${answer.split('\n')[0].slice(0, 160)}`,
        )
    }
    if (process.env.QUESTION_SET_REPORT) {
      console.log(misses.join('\n'))
      console.log([...byKind].map(([kind, entry]) => `${kind}: ${entry.right}/${entry.total}`).join(', '))
      console.log(`right ${outcomes.right}/${QUESTIONS.length}, declined ${outcomes.declined}, wrong ${outcomes.wrong}`)
    }
    expect(outcomes.right / QUESTIONS.length).toBeGreaterThanOrEqual(0.95)
    expect(outcomes.wrong).toBe(0)
  }, 300_000)
})
