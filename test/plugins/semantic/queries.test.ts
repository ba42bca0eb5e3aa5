import { createLogger } from '../../../lib/logger'
import { afterAll, describe, expect, it } from 'bun:test'
import { ROW_CAP, type SqlResult } from '../../../plugins/semantic/model'
import { demoDeployment, demoService, formatted, rawRows, WHOLE_MODEL } from './helpers'

const semantic = demoService()
const dataPath = semantic.demoData().path
afterAll(() => semantic.close())

const REGION = `(SELECT c.id AS id, r.name AS region, c.segment AS segment, c.name AS name, c.city AS city FROM customers c JOIN regions r ON r.id = c.region_id)`
const MONTH = `substr(o.created_at, 1, 7) || '-01 00:00:00'`
const QUARTER = `substr(o.created_at, 1, 5) || printf('%02d', ((CAST(substr(o.created_at, 6, 2) AS INTEGER) - 1) / 3) * 3 + 1) || '-01 00:00:00'`
const WEEK = `date(o.created_at, '-' || ((CAST(strftime('%w', o.created_at) AS INTEGER) + 6) % 7) || ' days') || ' 00:00:00'`

/** A question in semantic SQL, and the same question written by hand against the demo tables. */
const cases: Array<{ name: string; semantic: string; raw: string; branch?: string }> = [
  {
    // The parser chained AND and OR left to right: this ran as (completed OR returned) AND Europe.
    name: 'binds AND before OR, and keeps bracketed groups whole',
    semantic: `SELECT MEASURE(orders.count) FROM orders WHERE orders.status = 'completed' OR orders.status = 'returned' AND customers.region = 'Europe' OR (orders.status = 'cancelled' OR orders.status = 'shipped') AND orders.amount > 1000`,
    raw: `SELECT count(*) FROM orders o JOIN ${REGION} c ON c.id = o.customer_id WHERE o.status = 'completed' OR (o.status = 'returned' AND c.region = 'Europe') OR ((o.status = 'cancelled' OR o.status = 'shipped') AND o.amount > 1000)`,
  },
  {
    name: 'negates a bracketed condition with NOT (...)',
    semantic: `SELECT MEASURE(orders.count) FROM orders WHERE (customers.region = 'Europe' OR customers.region = 'Asia') AND NOT (orders.status = 'cancelled' OR orders.has_discount) AND NOT(orders.amount > 1000)`,
    raw: `SELECT count(*) FROM orders o JOIN ${REGION} c ON c.id = o.customer_id WHERE (c.region = 'Europe' OR c.region = 'Asia') AND NOT (o.status = 'cancelled' OR o.discount > 0) AND NOT (o.amount > 1000)`,
  },
  {
    name: 'binds AND before OR in HAVING too',
    semantic:
      'SELECT customers.region, MEASURE(orders.count) FROM orders GROUP BY 1 HAVING MEASURE(orders.count) > 30000 OR MEASURE(orders.count) > 20000 AND MEASURE(orders.count) < 27000 ORDER BY 1',
    raw: `SELECT c.region, count(*) FROM orders o JOIN ${REGION} c ON c.id = o.customer_id GROUP BY 1 HAVING count(*) > 30000 OR (count(*) > 20000 AND count(*) < 27000) ORDER BY 1`,
  },
  {
    // The fraction of a second was cut off: '>= 00:19:04.5' took the order placed at 00:19:04.
    name: 'compares times to the fraction of a second',
    semantic: `SELECT MEASURE(orders.count) FROM orders WHERE orders.created_at >= '2021-01-01 00:19:04.5'`,
    raw: `SELECT count(*) FROM orders o WHERE o.created_at >= '2021-01-01 00:19:04.5'`,
  },
  {
    name: 'takes a time with a fraction of zeros as the whole second',
    semantic: `SELECT MEASURE(orders.count) FROM orders WHERE orders.created_at BETWEEN '2021-01-01 00:19:04.001' AND '2021-01-01 01:12:53.000'`,
    raw: `SELECT count(*) FROM orders o WHERE o.created_at BETWEEN '2021-01-01 00:19:04.001' AND '2021-01-01 01:12:53'`,
  },
  {
    name: 'counts all orders',
    semantic: 'SELECT MEASURE(orders.count) FROM orders',
    raw: 'SELECT count(*) FROM orders',
  },
  {
    name: 'sums all revenue',
    semantic: 'SELECT MEASURE(orders.total_amount) FROM orders',
    raw: 'SELECT sum(amount) FROM orders',
  },
  {
    name: 'averages the order value',
    semantic: 'SELECT MEASURE(orders.average_amount) FROM orders',
    raw: 'SELECT avg(amount) FROM orders',
  },
  {
    name: 'finds the smallest and largest order',
    semantic: 'SELECT MEASURE(orders.min_amount), MEASURE(orders.max_amount) FROM orders',
    raw: 'SELECT min(amount), max(amount) FROM orders',
  },
  {
    name: 'counts orders by status',
    semantic: 'SELECT orders.status, MEASURE(orders.count) FROM orders GROUP BY 1 ORDER BY 1',
    raw: 'SELECT status, count(*) FROM orders GROUP BY status ORDER BY status',
  },
  {
    name: 'sums revenue by region, largest first',
    semantic:
      'SELECT customers.region, MEASURE(orders.total_amount) AS revenue FROM orders GROUP BY customers.region ORDER BY revenue DESC',
    raw: `SELECT c.region, sum(o.amount) AS revenue FROM orders o JOIN ${REGION} c ON c.id = o.customer_id GROUP BY c.region ORDER BY revenue DESC`,
  },
  {
    name: 'counts orders by region and status',
    semantic: 'SELECT customers.region, orders.status, MEASURE(orders.count) FROM orders GROUP BY 1, 2 ORDER BY 1, 2',
    raw: `SELECT c.region, o.status, count(*) FROM orders o JOIN ${REGION} c ON c.id = o.customer_id GROUP BY 1, 2 ORDER BY 1, 2`,
  },
  {
    name: 'counts orders by month in 2024',
    semantic:
      "SELECT DATE_TRUNC('month', orders.created_at) AS month, MEASURE(orders.count) FROM orders WHERE orders.created_at >= '2024-01-01' AND orders.created_at < '2025-01-01' GROUP BY 1 ORDER BY 1",
    raw: `SELECT ${MONTH} AS month, count(*) FROM orders o WHERE o.created_at >= '2024-01-01' AND o.created_at < '2025-01-01' GROUP BY 1 ORDER BY 1`,
  },
  {
    name: 'sums revenue by quarter in 2023',
    semantic:
      "SELECT DATE_TRUNC('quarter', orders.created_at), MEASURE(orders.total_amount) FROM orders WHERE orders.created_at BETWEEN '2023-01-01' AND '2023-12-31 23:59:59' GROUP BY 1 ORDER BY 1",
    raw: `SELECT ${QUARTER}, sum(amount) FROM orders o WHERE o.created_at BETWEEN '2023-01-01 00:00:00' AND '2023-12-31 23:59:59' GROUP BY 1 ORDER BY 1`,
  },
  {
    name: 'counts orders and revenue by year',
    semantic:
      "SELECT DATE_TRUNC('year', orders.created_at), MEASURE(orders.count), MEASURE(orders.total_amount) FROM orders GROUP BY 1 ORDER BY 1",
    raw: `SELECT substr(o.created_at, 1, 4) || '-01-01 00:00:00', count(*), sum(amount) FROM orders o GROUP BY 1 ORDER BY 1`,
  },
  {
    name: 'counts orders by ISO week in January 2025',
    semantic:
      "SELECT DATE_TRUNC('week', orders.created_at), MEASURE(orders.count) FROM orders WHERE orders.created_at >= DATE '2025-01-01' AND orders.created_at < DATE '2025-02-01' GROUP BY 1 ORDER BY 1",
    raw: `SELECT ${WEEK}, count(*) FROM orders o WHERE o.created_at >= '2025-01-01' AND o.created_at < '2025-02-01' GROUP BY 1 ORDER BY 1`,
  },
  {
    name: 'counts orders by day over one week',
    semantic:
      "SELECT DATE_TRUNC('day', orders.created_at), MEASURE(orders.count) FROM orders WHERE orders.created_at >= '2022-11-21' AND orders.created_at < '2022-11-28' GROUP BY 1 ORDER BY 1",
    raw: `SELECT substr(o.created_at, 1, 10) || ' 00:00:00', count(*) FROM orders o WHERE o.created_at >= '2022-11-21' AND o.created_at < '2022-11-28' GROUP BY 1 ORDER BY 1`,
  },
  {
    name: 'lists the top 5 customers by revenue',
    semantic:
      'SELECT customers.id, customers.name, MEASURE(orders.total_amount) FROM orders GROUP BY 1, 2 ORDER BY 3 DESC, 1 LIMIT 5',
    raw: `SELECT c.id, c.name, sum(o.amount) FROM orders o JOIN customers c ON c.id = o.customer_id GROUP BY 1, 2 ORDER BY 3 DESC, 1 LIMIT 5`,
  },
  {
    name: 'lists the 3 categories with the least product revenue',
    semantic:
      'SELECT products.category, MEASURE(line_items.total_revenue) FROM line_items GROUP BY 1 ORDER BY 2 ASC LIMIT 3',
    raw: 'SELECT p.category, sum(li.amount) FROM line_items li JOIN products p ON p.id = li.product_id GROUP BY 1 ORDER BY 2 ASC LIMIT 3',
  },
  {
    name: 'sums units sold by category',
    semantic: 'SELECT products.category, MEASURE(line_items.total_quantity) FROM line_items GROUP BY 1 ORDER BY 1',
    raw: 'SELECT p.category, sum(li.quantity) FROM line_items li JOIN products p ON p.id = li.product_id GROUP BY 1 ORDER BY 1',
  },
  {
    name: 'counts orders containing each category without double counting',
    semantic: 'SELECT products.category, MEASURE(orders.count) FROM orders GROUP BY 1 ORDER BY 1',
    raw: 'SELECT p.category, count(DISTINCT li.order_id) FROM line_items li JOIN products p ON p.id = li.product_id GROUP BY 1 ORDER BY 1',
  },
  {
    name: 'counts cancelled and returned orders by year',
    semantic:
      "SELECT DATE_TRUNC('year', orders.created_at), MEASURE(orders.count) FROM orders WHERE orders.status IN ('cancelled', 'returned') GROUP BY 1 ORDER BY 1",
    raw: `SELECT substr(created_at, 1, 4) || '-01-01 00:00:00', count(*) FROM orders WHERE status IN ('cancelled', 'returned') GROUP BY 1 ORDER BY 1`,
  },
  {
    name: 'sums 2024 revenue of one region',
    semantic:
      "SELECT MEASURE(orders.total_amount) FROM orders WHERE customers.region = 'Europe' AND orders.created_at >= '2024-01-01' AND orders.created_at < '2025-01-01'",
    raw: `SELECT sum(o.amount) FROM orders o JOIN ${REGION} c ON c.id = o.customer_id WHERE c.region = 'Europe' AND o.created_at >= '2024-01-01' AND o.created_at < '2025-01-01'`,
  },
  {
    name: 'sums revenue by month over a date range',
    semantic:
      "SELECT DATE_TRUNC('month', orders.created_at), MEASURE(orders.total_amount) FROM orders WHERE orders.created_at >= '2024-03-01' AND orders.created_at < '2024-06-01' GROUP BY 1 ORDER BY 1",
    raw: `SELECT ${MONTH}, sum(amount) FROM orders o WHERE o.created_at >= '2024-03-01' AND o.created_at < '2024-06-01' GROUP BY 1 ORDER BY 1`,
  },
  {
    name: 'matches names with LIKE (case-sensitive) and ILIKE',
    semantic:
      "SELECT MEASURE(customers.count), COUNT(DISTINCT customers.city) FROM customers WHERE customers.name LIKE 'Ada%' OR customers.name ILIKE '%ZOE%'",
    raw: "SELECT count(*), count(DISTINCT city) FROM customers WHERE name GLOB 'Ada*' OR lower(name) LIKE '%zoe%'",
  },
  {
    name: 'counts customers and VIPs by segment',
    semantic:
      'SELECT customers.segment, MEASURE(customers.count), MEASURE(customers.vip_count) FROM customers GROUP BY 1 ORDER BY 1',
    raw: 'SELECT segment, count(*), sum(is_vip) FROM customers GROUP BY 1 ORDER BY 1',
  },
  {
    name: 'counts distinct ordering customers by region',
    semantic: 'SELECT customers.region, MEASURE(orders.customer_count) FROM orders GROUP BY 1 ORDER BY 2 DESC',
    raw: `SELECT c.region, count(DISTINCT o.customer_id) FROM orders o JOIN ${REGION} c ON c.id = o.customer_id GROUP BY 1 ORDER BY 2 DESC`,
  },
  {
    name: 'counts completed orders by year with a filtered measure',
    semantic:
      "SELECT DATE_TRUNC('year', orders.created_at), MEASURE(orders.completed_count) FROM orders GROUP BY 1 ORDER BY 1",
    raw: `SELECT substr(created_at, 1, 4) || '-01-01 00:00:00', sum(status = 'completed') FROM orders GROUP BY 1 ORDER BY 1`,
  },
  {
    name: 'splits orders by a boolean dimension',
    semantic:
      'SELECT orders.has_discount, MEASURE(orders.count), MEASURE(orders.total_discount) FROM orders GROUP BY 1 ORDER BY 1',
    raw: 'SELECT discount > 0, count(*), sum(discount) FROM orders GROUP BY 1 ORDER BY 1',
  },
  {
    name: 'keeps only regions above a threshold with HAVING',
    semantic:
      'SELECT customers.region, MEASURE(orders.count) AS n FROM orders GROUP BY 1 HAVING MEASURE(orders.count) > 20000 ORDER BY n DESC',
    raw: `SELECT c.region, count(*) AS n FROM orders o JOIN ${REGION} c ON c.id = o.customer_id GROUP BY 1 HAVING count(*) > 20000 ORDER BY n DESC`,
  },
  {
    name: 'averages unit prices and lists prices by category',
    semantic:
      'SELECT products.category, MEASURE(products.count), MEASURE(products.average_price), MIN(products.price), MAX(products.price) FROM products GROUP BY 1 ORDER BY 3 DESC',
    raw: 'SELECT category, count(*), avg(price), min(price), max(price) FROM products GROUP BY 1 ORDER BY 3 DESC',
  },
  {
    name: 'counts rows with COUNT(*) and finds the first and last order dates',
    semantic:
      "SELECT COUNT(*), MIN(orders.created_at), MAX(orders.created_at) FROM orders WHERE orders.status = 'completed'",
    raw: "SELECT count(*), min(created_at), max(created_at) FROM orders WHERE status = 'completed'",
  },
  {
    name: 'queries a view with prefixed members',
    semantic:
      'SELECT order_overview.customers_segment, order_overview.count, order_overview.average_amount FROM order_overview GROUP BY 1 ORDER BY 1',
    raw: `SELECT c.segment, count(*), avg(o.amount) FROM orders o JOIN ${REGION} c ON c.id = o.customer_id GROUP BY 1 ORDER BY 1`,
  },
  {
    name: 'pages with LIMIT and OFFSET',
    semantic: 'SELECT orders.status, MEASURE(orders.count) FROM orders GROUP BY 1 ORDER BY 2 DESC LIMIT 2 OFFSET 2',
    raw: 'SELECT status, count(*) FROM orders GROUP BY 1 ORDER BY 2 DESC LIMIT 2 OFFSET 2',
  },
  {
    name: 'combines OR, NOT and IS NOT NULL',
    semantic:
      "SELECT customers.region, MEASURE(orders.count) FROM orders WHERE (orders.status = 'shipped' OR orders.status = 'processing') AND NOT customers.region = 'Asia' AND customers.city IS NOT NULL GROUP BY 1 ORDER BY 1",
    raw: `SELECT c.region, count(*) FROM orders o JOIN ${REGION} c ON c.id = o.customer_id WHERE o.status IN ('shipped', 'processing') AND c.region <> 'Asia' GROUP BY 1 ORDER BY 1`,
  },
  {
    name: 'reads the dev branch measure',
    branch: 'dev',
    semantic:
      "SELECT DATE_TRUNC('year', orders.created_at), MEASURE(orders.cancellation_rate) FROM orders GROUP BY 1 ORDER BY 1",
    raw: `SELECT substr(created_at, 1, 4) || '-01-01 00:00:00', 1.0 * sum(status = 'cancelled') / count(*) FROM orders GROUP BY 1 ORDER BY 1`,
  },
  {
    name: 'lists individual orders, capped at 100 rows with the full count',
    semantic: "SELECT orders.id, orders.amount FROM orders WHERE orders.created_at < '2021-02-01' ORDER BY orders.id",
    raw: "SELECT id, amount FROM orders WHERE created_at < '2021-02-01' ORDER BY id",
  },
]

describe('serviceSqlApi over the demo data', () => {
  it('has at least 25 questions', () => {
    expect(cases.length).toBeGreaterThanOrEqual(25)
  })

  for (const entry of cases)
    it(entry.name, async () => {
      const result: SqlResult = await semantic.query(
        { deployment: demoDeployment, branchName: entry.branch, access: WHOLE_MODEL },
        entry.semantic,
      )
      const expected = rawRows(dataPath, entry.raw)
      expect(expected.length).toBeGreaterThan(0)
      expect(result.totalRows).toBe(expected.length)
      expect(result.data).toEqual(formatted(expected.slice(0, ROW_CAP), result))
    })

  it('names columns by alias, else by member, and types them', async () => {
    const result = await semantic.query(
      { deployment: demoDeployment, access: WHOLE_MODEL },
      "SELECT customers.region AS r, DATE_TRUNC('year', orders.created_at), MEASURE(orders.count), orders.has_discount FROM orders GROUP BY 1, 2, 4 LIMIT 1",
    )
    expect(result.schema).toEqual([
      { name: 'r', column_type: 'string' },
      { name: 'orders.created_at.year', column_type: 'time' },
      { name: 'orders.count', column_type: 'number' },
      { name: 'orders.has_discount', column_type: 'boolean' },
    ])
    expect(result.data[0][3]).toMatch(/^(true|false)$/)
  })

  it('answers a repeated question from the cache with the same result, saying when it was computed', async () => {
    const question = 'SELECT customers.segment, MEASURE(orders.total_amount) FROM orders GROUP BY 1 ORDER BY 1'
    const before = Date.now()
    const first = await semantic.query({ deployment: demoDeployment, access: WHOLE_MODEL }, question)
    expect(first.cached).toBeUndefined()
    const second = await semantic.query({ deployment: demoDeployment, access: WHOLE_MODEL }, question)
    const { cached, ...rest } = second
    expect(rest).toEqual(first)
    const computedAt = Date.parse(cached?.computedAt ?? '')
    expect(computedAt).toBeGreaterThanOrEqual(before - 1)
    expect(computedAt).toBeLessThanOrEqual(Date.now())
    // The rows of another wording of the same query come from the cache too, and say so.
    const reworded = await semantic.query({ deployment: demoDeployment, access: WHOLE_MODEL }, `${question} `)
    expect(reworded.cached).toEqual(cached)
  })

  it('runs a query asked by many callers at once a single time, and gives each the result', async () => {
    const lines: string[] = []
    const service = demoService({ logger: createLogger('debug', {}, (line) => lines.push(line)) })
    const question =
      'SELECT products.category, MEASURE(line_items.total_quantity) FROM line_items GROUP BY 1 ORDER BY 1'
    // Written differently, compiled the same: they share the execution too.
    const asked = [question, question.replace('SELECT', 'select'), question, `${question} `]
    const results = await Promise.all(
      asked.map((sql) => service.query({ deployment: demoDeployment, access: WHOLE_MODEL }, sql)),
    )
    for (const result of results) expect(result).toEqual(results[0])
    expect(results[0].data.length).toBeGreaterThan(0)
    expect(lines.filter((line) => line.includes('"msg":"semantic query"'))).toHaveLength(1)
    service.close()
  })
})

describe('a literal of another type than its column', () => {
  const ask = (query: string) =>
    semantic.query({ deployment: demoDeployment, access: WHOLE_MODEL }, query).catch((error: Error) => error)

  it('is a 400 naming the value and the type, the same on every source', async () => {
    for (const [query, message] of [
      ['SELECT MEASURE(orders.count) FROM orders WHERE orders.status = 0', '0 is not text'],
      ['SELECT MEASURE(orders.count) FROM orders WHERE orders.status IN (1, 2)', '1 is not text'],
      ["SELECT MEASURE(orders.count) FROM orders WHERE orders.has_discount = 'yes'", '"yes" is not true or false'],
      [
        'SELECT MEASURE(orders.count) FROM orders WHERE customers.city > 5',
        "5 is not text; the column holds text: write the value in quotes ('5')",
      ],
      ["SELECT MEASURE(orders.count) FROM orders WHERE orders.status = DATE '2024-01-31'", "quotes ('2024-01-31')"],
      ['SELECT MEASURE(orders.count) FROM orders WHERE orders.amount = true', 'true is not a number'],
      // LIKE on what is not text: an answer on some sources, a database error on others.
      ["SELECT MEASURE(orders.count) FROM orders WHERE orders.id LIKE '12%'", 'orders.id is a number'],
      ["SELECT MEASURE(orders.count) FROM orders WHERE orders.created_at ILIKE '2024%'", 'orders.created_at is a date'],
      ["SELECT MEASURE(orders.count) FROM orders WHERE orders.has_discount LIKE 't%'", 'is true or false'],
      // A day the month does not have: refused by DuckDB and Postgres, read as March 1 by SQLite and MariaDB.
      [
        "SELECT MEASURE(orders.count) FROM orders WHERE orders.created_at >= '2024-02-30'",
        '"2024-02-30" is not a date',
      ],
      ["SELECT MEASURE(orders.count) FROM orders WHERE orders.created_at < '2023-02-29'", '"2023-02-29" is not a date'],
    ])
      expect(await ask(query)).toMatchObject({
        status: 400,
        code: 'INVALID_QUERY',
        message: expect.stringContaining(message),
      })
  })

  it('takes 1 and 0 for true and false, and text that reads as the column type', async () => {
    const count = async (query: string) => ((await ask(query)) as SqlResult).data[0][0]
    expect(await count('SELECT MEASURE(orders.count) FROM orders WHERE orders.has_discount = 1')).toBe(
      await count('SELECT MEASURE(orders.count) FROM orders WHERE orders.has_discount = true'),
    )
    expect(await count("SELECT MEASURE(orders.count) FROM orders WHERE orders.has_discount = 'false'")).toBe(
      await count('SELECT MEASURE(orders.count) FROM orders WHERE orders.has_discount = 0'),
    )
    expect(await count("SELECT MEASURE(orders.count) FROM orders WHERE orders.amount > '100'")).toBe(
      await count('SELECT MEASURE(orders.count) FROM orders WHERE orders.amount > 100'),
    )
  })
})

describe('HAVING', () => {
  it('keeps a condition of literals alone in HAVING: it decides whether an ungrouped query has its one row', async () => {
    const ask = (query: string) => semantic.query({ deployment: demoDeployment, access: WHOLE_MODEL }, query)
    expect((await ask('SELECT MEASURE(orders.count) FROM orders HAVING 1 = 0')).data).toEqual([])
    expect((await ask('SELECT MEASURE(orders.count) FROM orders HAVING 1 = 1')).data).toHaveLength(1)
  })
})

describe('SQL the layer does not support', () => {
  it('is refused with a 400 saying so, never run as if the clause were not there', async () => {
    const ask = (query: string) =>
      semantic.query({ deployment: demoDeployment, access: WHOLE_MODEL }, query).catch((error: Error) => error)
    for (const [query, message] of [
      ["SELECT orders.created_at AT TIME ZONE 'Asia/Tokyo' FROM orders WHERE orders.id = 1", 'AT TIME ZONE'],
      [
        "SELECT MEASURE(orders.count) FROM orders WHERE orders.created_at AT TIME ZONE 'UTC' >= '2025-01-01'",
        'AT TIME ZONE',
      ],
      ['SELECT DISTINCT ON (customers.region) customers.region, orders.status FROM orders', 'DISTINCT ON'],
      ["SELECT MEASURE(customers.count) FROM customers WHERE customers.email LIKE 'a!_b%' ESCAPE '!'", 'ESCAPE'],
      ['SELECT MEASURE(orders.count) FROM orders TABLESAMPLE BERNOULLI (1)', 'TABLESAMPLE'],
      ["SELECT MEASURE(customers.count) FROM customers WHERE customers.email LIKE 'a\\_b%' ESCAPE '\\\\'", 'ESCAPE'],
      // Errors that say what to do instead.
      [
        'SELECT MEASURE(orders.total_amount) / MEASURE(orders.count) FROM orders',
        'select each measure and compute the result from the rows',
      ],
      ['SELECT CAST(orders.created_at AS DATE) FROM orders', "DATE_TRUNC('day', member)"],
      [
        `SELECT MEASURE(orders.count) FROM orders WHERE ${'('.repeat(2000)}orders.id = 1${')'.repeat(2000)}`,
        'nests brackets deeper than 64',
      ],
    ])
      expect({ query, answer: await ask(query) }).toMatchObject({
        query,
        answer: { status: 400, code: 'INVALID_QUERY', message: expect.stringContaining(message) },
      })
  })
})
