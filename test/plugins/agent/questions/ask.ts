import { apiKey, type TestApp } from '../../../helpers/app'
import { chatBase, finalAnswer, mergeLines, readLines } from '../../../helpers/chat'
import { keys } from '../../../helpers/fixtures'
import type { Outcome } from './score'
import type { Question } from './types'

/** Asks every turn of a question in one thread of agent 1; returns the last turn's final answer. */
export async function answerOf(test: TestApp, question: Question, index: number): Promise<string> {
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

/** Outcomes of a set, by outcome and by kind, with a line per miss; printed with QUESTION_SET_REPORT set. */
export class Tally {
  readonly outcomes: Record<Outcome, number> = { right: 0, declined: 0, wrong: 0 }
  private readonly byKind = new Map<string, { right: number; total: number }>()
  private readonly misses: string[] = []
  total = 0

  add(question: Question, answer: string, outcome: Outcome, why: string): void {
    this.total++
    this.outcomes[outcome]++
    const kind = this.byKind.get(question.kind) ?? { right: 0, total: 0 }
    kind.total++
    if (outcome === 'right') kind.right++
    this.byKind.set(question.kind, kind)
    if (outcome !== 'right')
      this.misses.push(
        `${outcome.padEnd(8)} ${JSON.stringify(question.ask)}: ${why}\n    ${answer.split('\n')[0].slice(0, 160)}`,
      )
  }

  report(name: string): void {
    if (!process.env.QUESTION_SET_REPORT) return
    console.log(this.misses.join('\n'))
    console.log([...this.byKind].map(([kind, entry]) => `${kind}: ${entry.right}/${entry.total}`).join(', '))
    console.log(
      `${name}: right ${this.outcomes.right}/${this.total}, declined ${this.outcomes.declined}, wrong ${this.outcomes.wrong}`,
    )
  }
}
