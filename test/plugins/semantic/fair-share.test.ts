import { afterAll, describe, expect, it } from 'bun:test'
import { apiKey, createTestApp } from '../../helpers/app'
import { keys } from '../../helpers/fixtures'
import { demoService } from './helpers'

// One SQLite query process, one query at a time per account, two queries waiting per account at most.
const semantic = demoService({ workers: 1, fairShare: { perAccount: 1, queuePerAccount: 2 } })
const test = createTestApp({ semantic })
afterAll(() => test.close())

/** A query over every line item, different for each `n` so no cache or shared execution answers it. */
const heavy = (n: number) =>
  `SELECT customers.city, products.category, MEASURE(line_items.total_revenue) FROM line_items WHERE line_items.quantity <> ${n} GROUP BY 1, 2`

async function waitUntil(condition: () => boolean): Promise<void> {
  for (let tries = 0; tries < 2_000 && !condition(); tries++) await Bun.sleep(5)
  expect(condition()).toBe(true)
}

describe('POST /api/v1/deployments/:id/sql shared by two accounts', () => {
  it("admits a bystander's query ahead of another account's queued ones, and refuses that account past its queue with 429", async () => {
    const finished: string[] = []
    const ask = (name: string, key: string, deploymentId: number, query: string) =>
      test
        .request('POST', `/api/v1/deployments/${deploymentId}/sql`, { headers: apiKey(key), body: { query } })
        .then(async (response) => {
          finished.push(name)
          return {
            status: response.status,
            retryAfter: response.headers.get('retry-after'),
            body: await response.json(),
          }
        })
    // Account acme fills the one process and its queue.
    const noisy = [1, 2, 3].map((n) => ask(`acme ${n}`, keys.admin, 1, heavy(n)))
    await waitUntil(() => semantic.queriesWaiting() === 2)
    const refused = await ask('acme 4', keys.admin, 1, heavy(4))
    expect(refused).toEqual({
      status: 429,
      retryAfter: '1',
      body: { error: expect.stringContaining('Too many of your queries'), code: 'TOO_MANY_QUERIES' },
    })
    // Account other asks one small question: it goes next, before acme's two waiting queries.
    const bystander = await ask('other 1', keys.otherAdmin, 3, 'SELECT MEASURE(products.count) FROM products')
    expect(bystander.status).toBe(200)
    expect(bystander.body.data).toEqual([['120']])
    const answers = await Promise.all(noisy)
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200])
    // The refused one first, then the one acme was running, then the bystander, then acme's two waiting ones (which of
    // acme's three ran first depends on when each request got past its credentials, on Postgres too).
    expect(finished[0]).toBe('acme 4')
    expect(finished[1]).toStartWith('acme ')
    expect(finished[2]).toBe('other 1')
    expect(
      finished
        .slice(1)
        .filter((name) => name !== 'other 1')
        .sort(),
    ).toEqual(['acme 1', 'acme 2', 'acme 3'])
  }, 60_000)
})
