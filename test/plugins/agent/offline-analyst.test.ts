import { Database } from 'bun:sqlite'
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { formatValue } from '../../../plugins/agent/offline/format'
import type { MetaMember } from '../../../plugins/agent/offline/meta-index'
import { apiKey, createTestApp, type TestApp } from '../../helpers/app'
import { chatBase, finalAnswer, mergeLines, readLines, type Line } from '../../helpers/chat'
import { keys } from '../../helpers/fixtures'
import { writeDecline } from '../../../plugins/agent/offline/decline'
import { indexMeta } from '../../../plugins/agent/offline/meta-index'

/** How a measure's numbers are written (the analyst's own formatting, applied to what the test computes). */
const kinds = {
  count: { type: 'count' },
  money: { type: 'sum', format: 'currency' },
  avgMoney: { type: 'avg', format: 'currency' },
  minMoney: { type: 'min', format: 'currency' },
  maxMoney: { type: 'max', format: 'currency' },
  sum: { type: 'sum' },
} as const
const member = (kind: keyof typeof kinds) =>
  ({ path: '', cube: '', name: '', title: '', kind: 'measure', primaryKey: false, ...kinds[kind] }) as MetaMember

const REGION = 'FROM orders o JOIN customers c ON c.id = o.customer_id JOIN regions r ON r.id = c.region_id'
const QUARTER = "strftime('%Y', o.created_at) || ' Q' || ((CAST(strftime('%m', o.created_at) AS INTEGER) + 2) / 3)"

interface Case {
  question: string
  /** Hand-written SQL on the demo tables: label columns first, the number last. */
  sql: string | ((latest: string) => string)
  kind: keyof typeof kinds
}

const cases: Case[] = [
  {
    question: 'How many orders were placed in 2024?',
    sql: "SELECT COUNT(*) FROM orders WHERE created_at >= '2024-01-01' AND created_at < '2025-01-01'",
    kind: 'count',
  },
  {
    question: 'What was the total revenue in 2023?',
    sql: "SELECT SUM(amount) FROM orders WHERE created_at >= '2023-01-01' AND created_at < '2024-01-01'",
    kind: 'money',
  },
  {
    question: 'What was the revenue by region?',
    sql: `SELECT r.name, SUM(o.amount) ${REGION} GROUP BY 1`,
    kind: 'money',
  },
  {
    question: 'Average order value by month in 2023',
    sql: "SELECT strftime('%Y-%m', created_at), AVG(amount) FROM orders WHERE created_at >= '2023-01-01' AND created_at < '2024-01-01' GROUP BY 1",
    kind: 'avgMoney',
  },
  {
    question: 'Top 5 products by revenue',
    sql: 'SELECT p.name, SUM(li.amount) FROM line_items li JOIN products p ON p.id = li.product_id GROUP BY p.id ORDER BY 2 DESC LIMIT 5',
    kind: 'money',
  },
  {
    question: 'Units sold by category',
    sql: 'SELECT p.category, SUM(li.quantity) FROM line_items li JOIN products p ON p.id = li.product_id GROUP BY 1',
    kind: 'sum',
  },
  {
    question: 'How many customers per region?',
    sql: 'SELECT r.name, COUNT(*) FROM customers c JOIN regions r ON r.id = c.region_id GROUP BY 1',
    kind: 'count',
  },
  {
    question: 'Number of orders by status in 2023',
    sql: "SELECT status, COUNT(*) FROM orders WHERE created_at >= '2023-01-01' AND created_at < '2024-01-01' GROUP BY 1",
    kind: 'count',
  },
  {
    question: 'Revenue by region and segment',
    sql: `SELECT r.name, c.segment, SUM(o.amount) ${REGION} GROUP BY 1, 2`,
    kind: 'money',
  },
  {
    question: 'Monthly revenue in 2024',
    sql: "SELECT strftime('%Y-%m', created_at), SUM(amount) FROM orders WHERE created_at >= '2024-01-01' AND created_at < '2025-01-01' GROUP BY 1",
    kind: 'money',
  },
  {
    question: 'Which region had the highest revenue in 2022?',
    sql: `SELECT r.name, SUM(o.amount) ${REGION} WHERE o.created_at >= '2022-01-01' AND o.created_at < '2023-01-01' GROUP BY 1 ORDER BY 2 DESC LIMIT 1`,
    kind: 'money',
  },
  {
    question: 'Revenue in Europe by year',
    sql: `SELECT strftime('%Y', o.created_at), SUM(o.amount) ${REGION} WHERE r.name = 'Europe' GROUP BY 1`,
    kind: 'money',
  },
  {
    question: 'How many completed orders in the last 3 months?',
    sql: (latest) =>
      `SELECT COUNT(*) FROM orders WHERE status = 'completed' AND created_at >= date('${latest}', 'start of month', '-2 months')`,
    kind: 'count',
  },
  {
    question: 'Bottom 3 categories by units sold',
    sql: 'SELECT p.category, SUM(li.quantity) FROM line_items li JOIN products p ON p.id = li.product_id GROUP BY 1 ORDER BY 2 ASC LIMIT 3',
    kind: 'sum',
  },
  {
    question: 'Average price of products by category',
    sql: 'SELECT category, AVG(price) FROM products GROUP BY 1',
    kind: 'avgMoney',
  },
  {
    question: 'How many VIP customers are there?',
    sql: 'SELECT COUNT(*) FROM customers WHERE is_vip = 1',
    kind: 'count',
  },
  {
    question: 'Orders by quarter since 2024',
    sql: `SELECT ${QUARTER}, COUNT(*) FROM orders o WHERE o.created_at >= '2024-01-01' GROUP BY 1`,
    kind: 'count',
  },
  {
    question: 'Revenue of electronics by month in 2025',
    sql: "SELECT strftime('%Y-%m', o.created_at), SUM(li.amount) FROM line_items li JOIN orders o ON o.id = li.order_id JOIN products p ON p.id = li.product_id WHERE p.category = 'Electronics' AND o.created_at >= '2025-01-01' AND o.created_at < '2026-01-01' GROUP BY 1",
    kind: 'money',
  },
  {
    question: 'Discounts granted by year',
    sql: "SELECT strftime('%Y', created_at), SUM(discount) FROM orders GROUP BY 1",
    kind: 'money',
  },
  {
    question: 'Quarterly revenue from 2022 to 2023',
    sql: `SELECT ${QUARTER}, SUM(o.amount) FROM orders o WHERE o.created_at >= '2022-01-01' AND o.created_at < '2024-01-01' GROUP BY 1`,
    kind: 'money',
  },
  {
    question: 'Largest order in 2021',
    sql: "SELECT MAX(amount) FROM orders WHERE created_at >= '2021-01-01' AND created_at < '2022-01-01'",
    kind: 'maxMoney',
  },
  {
    question: 'How many distinct customers ordered in March 2024?',
    sql: "SELECT COUNT(DISTINCT customer_id) FROM orders WHERE created_at >= '2024-03-01' AND created_at < '2024-04-01'",
    kind: 'count',
  },
  {
    question: 'Revenue for Corporate customers in North America',
    sql: `SELECT SUM(o.amount) ${REGION} WHERE r.name = 'North America' AND c.segment = 'Corporate'`,
    kind: 'money',
  },
  {
    question: 'Number of cancelled orders by region last year',
    sql: (latest) =>
      `SELECT r.name, COUNT(*) ${REGION} WHERE o.status = 'cancelled' AND o.created_at >= date('${latest}', 'start of year', '-1 year') AND o.created_at < date('${latest}', 'start of year') GROUP BY 1`,
    kind: 'count',
  },
  {
    question: 'Smallest order by segment',
    sql: `SELECT c.segment, MIN(o.amount) ${REGION} GROUP BY 1`,
    kind: 'minMoney',
  },
  {
    question: 'Average order value for VIP customers',
    sql: `SELECT AVG(o.amount) ${REGION} WHERE c.is_vip = 1`,
    kind: 'avgMoney',
  },
  {
    question: 'Number of line items by category in 2022',
    sql: "SELECT p.category, COUNT(*) FROM line_items li JOIN orders o ON o.id = li.order_id JOIN products p ON p.id = li.product_id WHERE o.created_at >= '2022-01-01' AND o.created_at < '2023-01-01' GROUP BY 1",
    kind: 'count',
  },
  {
    question: 'Top 3 cities by number of orders',
    sql: `SELECT c.city, COUNT(*) ${REGION} GROUP BY 1 ORDER BY 2 DESC LIMIT 3`,
    kind: 'count',
  },
  {
    question: 'How many customers signed up in 2023?',
    sql: "SELECT COUNT(*) FROM customers WHERE created_at >= '2023-01-01' AND created_at < '2024-01-01'",
    kind: 'count',
  },
]

let test: TestApp
let data: Database
let latest: string

beforeAll(() => {
  test = createTestApp()
  data = new Database(test.deps.semantic.demoData().path, { readonly: true })
  latest = (data.query('SELECT MAX(created_at) AS latest FROM orders').get() as { latest: string }).latest
}, 60_000)
afterAll(async () => {
  data.close()
  await test.close()
})

async function ask(
  question: string,
  settings: Record<string, unknown> = { externalId: 'analyst-test' },
): Promise<Line[]> {
  const response = await test.request('POST', `${chatBase()}/stream-chat-state`, {
    headers: apiKey(keys.admin),
    body: { input: question, sessionSettings: settings },
  })
  return readLines(response)
}

describe('the offline analyst', () => {
  for (const { question, sql, kind } of cases) {
    it(`answers "${question}" with the numbers of the data`, async () => {
      const lines = await ask(question)
      expect(lines.at(-1)?.id).toBe('__state__')
      const answer = finalAnswer(mergeLines(lines))?.content ?? ''
      const rows = data.query(typeof sql === 'function' ? sql(latest) : sql).values() as Array<Array<string | number>>
      expect(rows.length).toBeGreaterThan(0)
      for (const row of rows) {
        const labels = row.slice(0, -1).map(String)
        const expected = `| ${[...labels, formatValue(row[row.length - 1] as number, member(kind))].join(' | ')} |`
        expect(answer).toContain(expected)
      }
      // Every number in the table comes from a tool result: nothing is made up.
      const results = lines
        .filter((line) => line.toolCall?.name === 'serviceSqlApi' && line.toolCall.result)
        .map((line) => line.toolCall!.result!)
      expect(results.length).toBeGreaterThan(0)
    })
  }

  it('reads "where" as the word it is, never as a misspelling of "were", and filters by the value after it', async () => {
    const answer = finalAnswer(mergeLines(await ask('Revenue where status is completed')))?.content ?? ''
    expect(answer).toStartWith('**Revenue, all time (Status: completed)**')
    expect(answer).not.toContain('I read')
    const [[revenue]] = data.query("SELECT SUM(amount) FROM orders WHERE status = 'completed'").values() as number[][]
    expect(answer).toContain(formatValue(revenue, member('money')))
  })

  it('says when an answer came from the cache, with the time it was computed', async () => {
    const question = 'How many orders were returned in 2022?'
    const first = finalAnswer(mergeLines(await ask(question)))?.content ?? ''
    expect(first).not.toContain('from the cache')
    const again = finalAnswer(mergeLines(await ask(question)))?.content ?? ''
    expect(again).toMatch(/\n\n_Answered from the cache: computed at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\._$/)
    expect(again.split('\n\n_Answered')[0]).toBe(first)
  })

  it('says plainly when it cannot map a question, listing what it can answer', async () => {
    const answer = finalAnswer(mergeLines(await ask('What will the weather be tomorrow?')))?.content ?? ''
    expect(answer).toStartWith('I could not map that question to the data')
    // The model's titles, never its member ids: the person asking has never seen `orders.total_amount`.
    expect(answer).toContain('these measures: Number of orders, Revenue, ')
    expect(answer).toContain('City')
    expect(answer).not.toMatch(/[a-z_]+\.[a-z_]+/)
    // Examples made from the model's own members, each one a question the analyst answers.
    const examples = [
      ...(answer
        .split('\n')
        .find((line) => line.startsWith('For example'))
        ?.matchAll(/"([^"]+)"/g) ?? []),
    ]
    expect(examples.length).toBeGreaterThan(1)
    for (const [, example] of examples) {
      const reply = finalAnswer(mergeLines(await ask(example)))?.content ?? ''
      expect({ example, answered: !reply.startsWith('I could not') }).toEqual({ example, answered: true })
    }
  })

  it('says several things share a name only when each row is one of them (one product by year is one product)', async () => {
    const byYear = finalAnswer(mergeLines(await ask('Revenue of Deluxe Headphones by year')))?.content ?? ''
    expect(byYear).toContain('| 2025 |')
    expect(byYear).not.toContain('are named')
    const people = finalAnswer(mergeLines(await ask('How much did Ada Rossi spend?')))?.content ?? ''
    const [[namesakes]] = data.query("SELECT COUNT(*) FROM customers WHERE name = 'Ada Rossi'").values() as number[][]
    expect(people).toContain(`${namesakes} customers are named Ada Rossi, each on its own row.`)
  })

  it('counts the values of a dimension for "how many cities", not the things of a cube', async () => {
    for (const [question, sql, noun] of [
      ['How many cities do we have customers in?', 'SELECT COUNT(DISTINCT city) FROM customers', 'cities'],
      ['How many product categories are there?', 'SELECT COUNT(DISTINCT category) FROM products', 'product categories'],
    ]) {
      const answer = finalAnswer(mergeLines(await ask(question)))?.content ?? ''
      const [[count]] = data.query(sql).values() as number[][]
      expect({ question, said: answer.split('\n')[2] }).toMatchObject({
        question,
        said: expect.stringContaining(`There are **${count}** ${noun}.`),
      })
    }
  })

  it('answers a greeting with what it can do, and reads a question after a greeting as the question', async () => {
    for (const [greeting, opening] of [
      ['Hello', 'Hello!'],
      ['Hi! What can you do?', 'Hello!'],
      ['Thanks!', "You're welcome."],
    ]) {
      const answer = finalAnswer(mergeLines(await ask(greeting)))?.content ?? ''
      expect({ greeting, opening: answer.split(' I answer')[0] }).toEqual({ greeting, opening })
      expect(answer).toContain('these measures: Number of orders, Revenue, ')
      expect(answer).not.toMatch(/[a-z_]+\.[a-z_]+/)
      expect(answer).not.toContain('could not')
    }
    const answer = finalAnswer(mergeLines(await ask('Hi, how many orders were placed in 2024?')))?.content ?? ''
    const [[count]] = data.query(`SELECT COUNT(*) FROM orders WHERE created_at LIKE '2024%'`).values() as number[][]
    expect(answer).toContain(`| ${count.toLocaleString('en-US')} |`)
  })

  it('names a row of a two-dimension breakdown by both its labels, and a total by its measure', async () => {
    const twoWay = finalAnswer(mergeLines(await ask('Orders by month and status in 2024')))?.content ?? ''
    const summary = twoWay.split('\n').find((line) => line.includes('is highest'))!
    // "**completed, 2024-12** is highest (**2,589**), processing, 2024-04 lowest (36)."
    expect(summary).toMatch(
      /^\*\*[a-z]+, 2024-\d\d\*\* is highest \(\*\*[\d,]+\*\*\), [a-z]+, 2024-\d\d lowest \([\d,]+\)\.$/,
    )
    const total = finalAnswer(mergeLines(await ask('What is the total revenue?')))?.content ?? ''
    expect(total).toMatch(/^Revenue: \*\*[\d,.]+\*\*\.$/m)
  })

  it('sums up a listing of more rows than it shows by all of them ("All 2 have 1" was of the two extremes)', async () => {
    const products = finalAnswer(mergeLines(await ask('List products')))?.content ?? ''
    expect(products).toContain('**120** in all, one a row.')
    expect(products).toContain('Showing 100 of 120 rows')
    const days = finalAnswer(mergeLines(await ask('Number of orders by day in 2025')))?.content ?? ''
    expect(days).toMatch(/\*\*2025-\d\d-\d\d\*\* is highest/)
  })

  it('answers "by month in 2024 and 2025" with the months of both years, and "2024 vs 2025" side by side', async () => {
    const months = finalAnswer(mergeLines(await ask('Revenue by month in 2024 and 2025')))?.content ?? ''
    expect(months).toContain('| 2024-01 |')
    expect(months).toContain('| 2025-12 |')
    const versus = finalAnswer(mergeLines(await ask('Revenue 2024 vs 2025')))?.content ?? ''
    expect(versus).toContain('Revenue went from')
  })

  it('declines a breakdown by a word the model has no dimension for (by group, by type), never answering a total', async () => {
    for (const question of ['Revenue by group', 'Number of orders by type']) {
      const answer = finalAnswer(mergeLines(await ask(question)))?.content ?? ''
      expect({ question, answer: answer.split('\n')[0] }).toEqual({
        question,
        answer: expect.stringMatching(/^I could not map that question to the data: I could not map "(group|type)"/),
      })
    }
  })

  it('names words of any script it could not map, whole (Ümsatz was quoted back as msatz)', async () => {
    const answer = finalAnswer(mergeLines(await ask('Ümsatz nach Région?')))?.content ?? ''
    expect(answer).toContain('"Ümsatz nach Région"')
    expect(answer).not.toMatch(/(^|[^\p{L}])msatz/u)
  })

  it('follows the graph analyst → tools → final, with thinking only on the dev branch', async () => {
    const lines = await ask('Monthly revenue in 2024')
    const paths = [...new Set(lines.filter((line) => line.graphPath).map((line) => line.graphPath!.join('/')))]
    expect(paths).toEqual(['analyst/tools', 'final'])
    expect(lines.some((line) => 'thinking' in line)).toBe(false)
    const dev = await test.request('POST', `${chatBase()}/stream-chat-state`, {
      headers: apiKey(keys.admin),
      body: {
        input: 'Cancellation rate by month in 2025',
        activeBranchName: 'dev',
        sessionSettings: { externalId: 'analyst-test' },
      },
    })
    const devLines = await readLines(dev)
    const thinking = devLines.filter((line) => line.thinking).map((line) => line.thinking)
    expect(thinking.length).toBeGreaterThan(0)
    expect(
      devLines.filter((line) => line.graphPath?.[0] === 'analyst' && line.graphPath.length === 1).length,
    ).toBeGreaterThan(0)
    const sql =
      devLines.find((line) => line.toolCall?.name === 'serviceSqlApi' && line.toolCall.input.includes('MEASURE'))
        ?.toolCall?.input ?? ''
    expect(sql).toContain('orders.cancellation_rate')
    expect(finalAnswer(mergeLines(devLines))?.content).toMatch(/\| 2025-01 \| \d+\.\d%/)
  })

  it('gives each user only the rows their region attribute allows', async () => {
    const expected = (region: string) =>
      (data.query(`SELECT SUM(o.amount) AS total ${REGION} WHERE r.name = ?`).get(region) as { total: number }).total
    for (const region of ['Europe', 'Asia']) {
      const lines = await ask('What was the revenue by region?', {
        externalId: `viewer-${region.toLowerCase()}`,
        userAttributes: [{ name: 'region', value: region }],
      })
      const answer = finalAnswer(mergeLines(lines))?.content ?? ''
      expect(answer).toContain(`| ${region} | ${formatValue(expected(region), member('money'))} |`)
      const others = ['Europe', 'Asia', 'North America', 'Africa', 'Oceania', 'South America'].filter(
        (name) => name !== region,
      )
      for (const other of others) expect(answer).not.toContain(`| ${other} |`)
      // The answer says it covers only the rows the user may see ("our total" is their part of it).
      expect(answer).toContain('These figures cover only the data you may see (limited by an access policy on Region).')
    }
    const everything = finalAnswer(mergeLines(await ask('What was the revenue by region?')))?.content ?? ''
    expect(everything).not.toContain('cover only the data you may see')
  })

  it('says a filter on a value the user may not see cannot be applied, instead of dropping it', async () => {
    const europe = (
      data.query(`SELECT SUM(o.amount) AS total ${REGION} WHERE r.name = 'Europe'`).get() as { total: number }
    ).total
    const lines = await ask('What was the revenue in Asia?', {
      externalId: 'viewer-europe',
      userAttributes: [{ name: 'region', value: 'Europe' }],
    })
    const answer = finalAnswer(mergeLines(lines))?.content ?? ''
    expect(answer).toContain('"Asia" looks like a Region, but there is no Region "Asia" in the data you may see')
    expect(answer).not.toMatch(/^\|/m)
    expect(answer).not.toContain(formatValue(europe, member('money')))
    expect(lines.some((line) => line.toolCall?.name === 'serviceSqlApi')).toBe(false)
  })

  it('finds filter values with one lookup and shows only the query that produced the answer', async () => {
    const lines = await ask('Revenue for Corporate customers in North America')
    const calls = lines.filter((line) => line.toolCall && !line.toolCall.result).map((line) => line.toolCall!)
    expect(calls.map((call) => call.name)).toEqual(['serviceMeta', 'serviceMeta', 'serviceSqlApi'])
    expect(JSON.parse(calls[1].input)).toEqual({ searchQuery: expect.stringContaining('corporate') })
    expect(calls[2].input).toContain("customers.segment = 'Corporate'")
    expect(calls[2].input).toContain("customers.region = 'North America'")
  })

  it('groups people by their key and shows the name beside it, so namesakes stay apart', async () => {
    const answer = finalAnswer(mergeLines(await ask('Top 5 customers by revenue')))?.content ?? ''
    expect(answer).toStartWith('**Revenue by Customer, top 5, all time**')
    const rows = data
      .query(`SELECT c.id, c.name, SUM(o.amount) ${REGION} GROUP BY c.id ORDER BY 3 DESC LIMIT 5`)
      .values() as Array<[number, string, number]>
    for (const [id, name, total] of rows)
      expect(answer).toContain(`| ${id} | ${name} | ${formatValue(total, member('money'))} |`)
  })

  it('shows the attributes a listing asks for beside it, and keeps its period', async () => {
    const rows = data
      .query(
        `SELECT c.id, c.name, c.city, c.email, c.segment, SUM(o.amount) ${REGION} WHERE o.created_at >= '2025-01-01' AND o.created_at < '2026-01-01' GROUP BY c.id ORDER BY 6 DESC LIMIT 10`,
      )
      .values() as Array<[number, string, string, string, string, number]>
    const city =
      finalAnswer(mergeLines(await ask('Top 10 customers by revenue in 2025 with their city')))?.content ?? ''
    expect(city).toStartWith('**Revenue by Customer and City, top 10, 2025**')
    expect(city).toContain('| Customer id | Customer | City | Revenue |')
    for (const [id, name, town, , , total] of rows)
      expect(city).toContain(`| ${id} | ${name} | ${town} | ${formatValue(total, member('money'))} |`)
    // The email is the sales team's: shown to them, beside the city.
    const email =
      finalAnswer(
        mergeLines(
          await ask('Top 10 customers by revenue in 2025 with their city and their email', {
            externalId: 'sales-person',
            groups: ['sales'],
          }),
        ),
      )?.content ?? ''
    expect(email).toStartWith('**Revenue by Customer, City and Email, top 10, 2025**')
    for (const [id, name, town, mail, , total] of rows)
      expect(email).toContain(`| ${id} | ${name} | ${town} | ${mail} | ${formatValue(total, member('money'))} |`)
    const segment =
      finalAnswer(mergeLines(await ask('Top 10 customers by revenue in 2025 including segment')))?.content ?? ''
    for (const [id, name, , , kind, total] of rows)
      expect(segment).toContain(`| ${id} | ${name} | ${kind} | ${formatValue(total, member('money'))} |`)
  })

  it('puts the change a comparison of two periods states in its table too', async () => {
    const [[before, after]] = data
      .query(
        "SELECT SUM(CASE WHEN created_at LIKE '2023%' THEN amount END), SUM(CASE WHEN created_at LIKE '2024%' THEN amount END) FROM orders",
      )
      .values() as Array<[number, number]>
    const answer = finalAnswer(mergeLines(await ask('Revenue 2023 vs 2024')))?.content ?? ''
    expect(answer).toContain(`| 2023 | ${formatValue(before, member('money'))} |`)
    expect(answer).toContain(`| 2024 | ${formatValue(after, member('money'))} |`)
    expect(answer).toContain(
      `| Change | +${formatValue(after - before, member('money'))} (+${((100 * (after - before)) / before).toFixed(1)}%) |`,
    )
  })

  it('keeps the period of a question it declines in the nearest answer it offers', async () => {
    const answer =
      finalAnswer(mergeLines(await ask('Top 10 customers by revenue in 2025 with their favourite colour')))?.content ??
      ''
    expect(answer).toContain('"favourite colour"')
    expect(answer).toContain('The nearest I can answer without it: Revenue by Customer, top 10, 2025.')
  })

  it('speaks of every row when there are more than a query returns, not of the first hundred', async () => {
    const daily = data
      .query(
        `SELECT date(created_at) AS day, SUM(amount) AS revenue FROM orders WHERE created_at >= '2025-01-01' AND created_at < '2026-01-01' GROUP BY 1 ORDER BY 2 DESC`,
      )
      .values() as Array<[string, number]>
    expect(daily.length).toBeGreaterThan(100)
    const [high, low] = [daily[0], daily.at(-1)!]
    const byDay = finalAnswer(mergeLines(await ask('Revenue by day in 2025')))?.content ?? ''
    expect(byDay).toContain(
      `**${high[0]}** is highest (**${formatValue(high[1], member('money'))}**), ${low[0]} lowest (${formatValue(low[1], member('money'))}).`,
    )
    expect(byDay).toContain(`Showing 100 of ${daily.length} rows; the summary covers all of them.`)
    const total = daily.reduce((sum, [, revenue]) => sum + revenue, 0)
    const average = finalAnswer(mergeLines(await ask('Average daily revenue in 2025')))?.content ?? ''
    expect(average).toContain(
      `Revenue averaged **${formatValue(total / daily.length, member('avgMoney'))}** per day over ${daily.length} days.`,
    )
  })

  it('answers "monthly growth in 2025" month over month, not as the year against the one before', async () => {
    const answer = finalAnswer(mergeLines(await ask('Monthly revenue growth in 2025')))?.content ?? ''
    const months = data
      .query(
        `SELECT strftime('%Y-%m', created_at), SUM(amount) FROM orders WHERE created_at >= '2025-01-01' AND created_at < '2026-01-01' GROUP BY 1 ORDER BY 1`,
      )
      .values() as Array<[string, number]>
    const change = months[1][1] - months[0][1]
    expect(answer).toContain(`| 2025-01 | ${formatValue(months[0][1], member('money'))} | – | – |`)
    expect(answer).toContain(
      `| 2025-02 | ${formatValue(months[1][1], member('money'))} | ${change > 0 ? '+' : ''}${formatValue(change, member('money'))} |`,
    )
    expect(answer).not.toContain('2024')
  })

  it('answers for each customer of a name asked for, by key, instead of summing namesakes', async () => {
    const rows = data
      .query(
        `SELECT c.id, SUM(o.amount) FROM orders o JOIN customers c ON c.id = o.customer_id WHERE c.name = 'Ada Rossi' GROUP BY 1 ORDER BY 2 DESC`,
      )
      .values() as Array<[number, number]>
    expect(rows.length).toBeGreaterThan(1)
    const answer = finalAnswer(mergeLines(await ask('How much did Ada Rossi spend?')))?.content ?? ''
    expect(answer).toContain(`${rows.length} customers are named Ada Rossi, each on its own row.`)
    for (const [id, total] of rows)
      expect(answer).toContain(`| ${id} | Ada Rossi | ${formatValue(total, member('money'))} |`)
  })

  it('takes the mean of a distinct count over the rows shown, and says so, when there are more than it got', async () => {
    const answer =
      finalAnswer(mergeLines(await ask('Average daily number of ordering customers in 2024')))?.content ?? ''
    expect(answer).toMatch(/averaged \*\*[\d,.]+\*\* per day over 100 days shown\./)
  })

  it('says there is no data for a period before the data starts, instead of NaN', async () => {
    const answer = finalAnswer(mergeLines(await ask('Revenue in 2020')))?.content ?? ''
    expect(answer).toContain('No data matched this question')
    expect(answer).not.toContain('NaN')
  })
})

describe('a decline on a model of its own', () => {
  it('offers example questions made from that model, not the demo questions', () => {
    const index = indexMeta({
      cubes: [
        {
          name: 'tickets',
          measures: [{ name: 'tickets.count', type: 'count', title: 'Number of tickets' }],
          dimensions: [
            { name: 'tickets.id', type: 'number', primaryKey: true },
            { name: 'tickets.requester_email', type: 'string', title: 'Requester email' },
            { name: 'tickets.priority', type: 'string', title: 'Priority' },
            { name: 'tickets.opened_at', type: 'time', title: 'Opened at' },
          ],
        },
      ],
    })
    const text = writeDecline({ kind: 'unknown', parts: ['weather'], values: [] }, index)
    expect(text).toContain('For example: "Number of tickets by priority" or "Number of tickets by month".')
    expect(text.toLowerCase()).not.toContain('revenue')
  })
})
