import { describe, expect, it } from 'bun:test'
import type { ChatMessage } from '../../../client/chat-stream'
import { queriesOf, stepsSummary, turnsOf } from '../../../plugins/web/client/chat-steps'

let sort = 0
const message = (fields: Partial<ChatMessage>): ChatMessage => ({
  id: `m${++sort}`,
  role: 'assistant',
  content: '',
  isDelta: false,
  isInProcess: false,
  sort,
  ...fields,
})
const query = (sqlQuery: string, queryTitle: string, result: unknown = { schema: [], data: [], totalRows: 0 }) =>
  message({
    toolCall: {
      name: 'serviceSqlApi',
      input: JSON.stringify({ sqlQuery, queryTitle }),
      result: JSON.stringify(result),
    },
  })

describe('turnsOf and queriesOf', () => {
  it('splits a thread into turns: the question, its steps and its final answer', () => {
    const thread = [
      message({ role: 'user', content: 'Revenue by status' }),
      message({ toolCall: { name: 'serviceMeta', input: '{}', result: '{"cubes":[]}' } }),
      query('SELECT orders.status FROM orders GROUP BY 1 ORDER BY 1 LIMIT 201', 'Values of Status'),
      query('SELECT orders.status, MEASURE(orders.total_amount) FROM orders GROUP BY 1', 'Revenue by status'),
      message({ content: 'Revenue by status: …', graphPath: ['final'] }),
      message({ role: 'user', content: 'And by region?' }),
      message({ content: 'Thinking', isInProcess: true, graphPath: ['final'] }),
    ]
    const turns = turnsOf(thread)
    expect(turns.map((turn) => [turn.question?.content, turn.steps.length, turn.answer?.content])).toEqual([
      ['Revenue by status', 3, 'Revenue by status: …'],
      ['And by region?', 0, 'Thinking'],
    ])
    // The value lookup and the model read are plumbing: one query is shown.
    expect(queriesOf(turns[0].steps).map((step) => step.title)).toEqual(['Revenue by status'])
  })

  it('says how many queries ran, how many failed and how long they took', () => {
    const steps = [
      query('SELECT MEASURE(orders.count) FROM orders', 'Orders'),
      query('SELECT MEASURE(nope.count) FROM nope', 'Broken', { error: 'Unknown cube nope' }),
    ]
    expect(stepsSummary(queriesOf(steps), steps, 312)).toBe('2 queries, 1 failed, 0.3 s')
    expect(stepsSummary(queriesOf(steps.slice(0, 1)), steps.slice(0, 1), 42)).toBe('1 query, 42 ms')
    expect(stepsSummary(queriesOf(steps.slice(0, 1)), steps.slice(0, 1), undefined)).toBe('1 query')
    const running = [
      message({
        toolCall: { name: 'serviceSqlApi', input: '{"sqlQuery":"SELECT MEASURE(orders.count) FROM orders"}' },
        isInProcess: true,
      }),
    ]
    expect(stepsSummary(queriesOf(running), running, undefined)).toBe('Running a query…')
  })
})
