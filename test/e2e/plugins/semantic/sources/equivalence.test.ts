import { Database } from 'bun:sqlite'
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import { join } from 'node:path'
import { duckdb } from '../../../../../plugins/semantic/sources/duckdb-module'
import { createSemanticService, type SemanticService } from '../../../../../plugins/semantic/semantic-service'
import { createLogger } from '../../../../../lib/logger'
import { applyControls } from '../../../../../plugins/web/dashboard-controls'
import { TEST_DEMO_DATA } from '../../../../helpers/demo-data'
import { demoSources, type DemoSource } from '../../../../helpers/demo-sources'
import {
  demoDeployment,
  demoService,
  queryModel,
  scratchModel,
  user,
  WHOLE_MODEL,
} from '../../../../plugins/semantic/helpers'

/**
 * The same model over the same data answers byte for byte the same JSON on every source: the built-in demo data
 * (SQLite) is the reference; a SQLite file, a DuckDB file, Postgres and MariaDB loaded with `demo-data --into` must
 * match it.
 */
const QUERIES = [
  // Each granularity (weeks start on Monday).
  ...['hour', 'day', 'week', 'month', 'quarter', 'year'].map(
    (granularity) =>
      `SELECT DATE_TRUNC('${granularity}', orders.created_at) AS t, MEASURE(orders.count), MEASURE(orders.total_amount) FROM orders WHERE orders.created_at BETWEEN '2024-12-20' AND '2025-01-10' GROUP BY 1 ORDER BY 1`,
  ),
  "SELECT DATE_TRUNC('week', orders.created_at), MEASURE(orders.count) FROM orders GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 5",
  // Operators.
  "SELECT orders.status, MEASURE(orders.count) FROM orders WHERE orders.status = 'completed' GROUP BY 1",
  "SELECT orders.status, MEASURE(orders.count) FROM orders WHERE orders.status <> 'completed' AND orders.amount > 100 GROUP BY 1",
  'SELECT MEASURE(orders.count) FROM orders WHERE orders.amount >= 50.5 AND orders.amount < 60 OR orders.amount <= 1',
  "SELECT orders.status, MEASURE(orders.count) FROM orders WHERE orders.status IN ('shipped', 'returned') GROUP BY 1",
  "SELECT orders.status, MEASURE(orders.count) FROM orders WHERE orders.status NOT IN ('shipped', 'returned') GROUP BY 1",
  "SELECT MEASURE(orders.count) FROM orders WHERE orders.created_at BETWEEN DATE '2023-01-01' AND TIMESTAMP '2023-03-31 23:59:59'",
  "SELECT MEASURE(orders.count) FROM orders WHERE orders.created_at NOT BETWEEN '2022-01-01' AND '2025-06-30'",
  // Fractions of a second, each side of an order's time.
  "SELECT MEASURE(orders.count) FROM orders WHERE orders.created_at >= '2021-01-01 00:19:04.5' AND orders.created_at < '2021-01-02 00:00:00.25'",
  "SELECT MEASURE(orders.count) FROM orders WHERE orders.created_at > '2021-01-01 00:19:03.999999' AND orders.created_at <= '2021-01-01 00:19:04.000'",
  "SELECT customers.city, MEASURE(customers.count) FROM customers WHERE customers.city LIKE 'S%' GROUP BY 1",
  "SELECT customers.city, MEASURE(customers.count) FROM customers WHERE customers.city LIKE 's%' GROUP BY 1",
  "SELECT customers.city, MEASURE(customers.count) FROM customers WHERE customers.city ILIKE 's%' GROUP BY 1",
  "SELECT customers.city, MEASURE(customers.count) FROM customers WHERE customers.city NOT ILIKE '%o%' GROUP BY 1",
  "SELECT products.name FROM products WHERE products.name LIKE '%\\_%' OR products.name LIKE 'Eco B_ok%' ORDER BY 1",
  'SELECT MEASURE(orders.count) FROM orders WHERE orders.status IS NOT NULL',
  'SELECT MEASURE(orders.count) FROM orders WHERE orders.status IS NULL',
  "SELECT MEASURE(orders.count) FROM orders WHERE NOT orders.status LIKE 'c%' AND (orders.status <> 'shipped' OR orders.status IS NULL)",
  // Joins through line items, across many_to_one chains, and fan-out counts.
  'SELECT products.category, MEASURE(line_items.total_revenue), MEASURE(line_items.total_quantity), MEASURE(orders.count) FROM line_items GROUP BY 1 ORDER BY 2 DESC',
  "SELECT customers.region, products.category, MEASURE(line_items.count) FROM line_items WHERE customers.region IN ('Europe', 'Asia') GROUP BY 1, 2 ORDER BY 1, 2",
  'SELECT customers.region, customers.segment, MEASURE(orders.total_amount), MEASURE(orders.average_amount) FROM orders GROUP BY 1, 2',
  // HAVING, ORDER BY, LIMIT, OFFSET.
  // Ties (many customers have 105 orders) and a grouping that is not selected come in one order everywhere.
  'SELECT customers.city, customers.name, MEASURE(orders.count) c FROM orders GROUP BY 1, 2 ORDER BY c DESC LIMIT 18',
  'SELECT customers.segment, customers.is_vip FROM customers ORDER BY 2',
  'SELECT MEASURE(orders.count) FROM orders GROUP BY customers.region',
  // HAVING on grouped dimensions (MariaDB refused HAVING on the grouped text's expression).
  "SELECT customers.region, MEASURE(orders.count) FROM orders GROUP BY 1 HAVING customers.region = 'Europe'",
  "SELECT customers.region AS r, orders.status, MEASURE(orders.count) n FROM orders GROUP BY 1, 2 HAVING r = 'Asia' AND orders.status NOT LIKE 'c%' AND n > 100 ORDER BY 2",
  "SELECT DATE_TRUNC('month', orders.created_at) AS m, MEASURE(orders.count) FROM orders GROUP BY m HAVING m >= '2025-11-01' ORDER BY 1",
  // A grouped dimension ORed with a measure: it cannot move to WHERE, and MariaDB refused it in HAVING.
  "SELECT customers.region AS r, MEASURE(orders.count) n FROM orders GROUP BY 1 HAVING r = 'Asia' OR n > 20400 ORDER BY 1",
  "SELECT customers.region, orders.status, MEASURE(orders.count) FROM orders GROUP BY 1, 2 HAVING customers.region ILIKE 'eu%' OR MEASURE(orders.count) < 900 ORDER BY 1, 2",
  "SELECT MEASURE(orders.count) FROM orders WHERE orders.status = 'completed' OR orders.status = 'returned' AND customers.region = 'Europe'",
  'SELECT customers.city, MEASURE(orders.count) AS n FROM orders GROUP BY 1 HAVING MEASURE(orders.count) > 6000 ORDER BY n DESC',
  'SELECT customers.city, MEASURE(orders.total_amount) FROM orders GROUP BY 1 ORDER BY 2 DESC LIMIT 3 OFFSET 2',
  'SELECT products.name, products.price FROM products ORDER BY products.price DESC, products.name LIMIT 10',
  'SELECT customers.name FROM customers ORDER BY 1 LIMIT 5 OFFSET 4000',
  // Booleans.
  'SELECT orders.has_discount, MEASURE(orders.count), MEASURE(orders.total_discount) FROM orders GROUP BY 1',
  'SELECT MEASURE(orders.count) FROM orders WHERE orders.has_discount = true',
  'SELECT customers.is_vip, MEASURE(customers.count) FROM customers WHERE customers.is_vip = false GROUP BY 1',
  'SELECT MEASURE(customers.vip_count) FROM customers',
  'SELECT MIN(orders.has_discount), MAX(customers.is_vip), MAX(orders.has_discount) FROM orders',
  'SELECT customers.segment, MIN(customers.is_vip), MAX(customers.is_vip) FROM customers GROUP BY 1',
  'SELECT customers.segment, MAX(customers.is_vip) FROM customers GROUP BY 1 HAVING MAX(customers.is_vip) = true',
  // Count distinct, min and max, averages.
  'SELECT MEASURE(orders.customer_count), COUNT(DISTINCT orders.status), COUNT(DISTINCT customers.city) FROM orders',
  'SELECT MEASURE(orders.min_amount), MEASURE(orders.max_amount), MIN(orders.created_at), MAX(orders.created_at) FROM orders',
  'SELECT products.category, MEASURE(products.average_price), MIN(products.name), MAX(products.price) FROM products GROUP BY 1',
  'SELECT AVG(line_items.unit_price), SUM(line_items.quantity), COUNT(*) FROM line_items',
  // Averages are the exact quotient, rounded once: SQLite's double AVG is an ulp off (Africa: 497.86526120063750664).
  'SELECT customers.region, MEASURE(orders.average_amount) FROM orders GROUP BY 1 ORDER BY 1',
  "SELECT DATE_TRUNC('month', orders.created_at), MEASURE(orders.average_amount), AVG(orders.discount) FROM orders GROUP BY 1 ORDER BY 1",
  'SELECT customers.city, AVG(orders.amount), MEASURE(orders.average_amount) FROM orders GROUP BY 1 ORDER BY 1',
  'SELECT products.name, MEASURE(line_items.average_unit_price), AVG(line_items.quantity), AVG(line_items.amount) FROM line_items GROUP BY 1 ORDER BY 1',
  // Views.
  'SELECT order_overview.customers_region, MEASURE(order_overview.total_amount) FROM order_overview GROUP BY 1',
  "SELECT order_overview.status, MEASURE(order_overview.average_amount) FROM order_overview WHERE order_overview.customers_segment = 'Corporate' GROUP BY 1",
  // Dimensions only (distinct values), sorted text.
  'SELECT customers.segment, customers.region FROM customers',
]

// The model's `number` measure (dev branch): 1.0 * a / NULLIF(b, 0).
const DEV_QUERIES = [
  "SELECT DATE_TRUNC('quarter', orders.created_at), MEASURE(orders.cancellation_rate), MEASURE(orders.cancelled_count) FROM orders GROUP BY 1",
  'SELECT customers.region, MEASURE(orders.cancellation_rate) FROM orders GROUP BY 1 ORDER BY 2 DESC',
]

let sources: DemoSource[] = []
const services = new Map<string, SemanticService>()
const reference = demoService()

beforeAll(async () => {
  sources = await demoSources()
  for (const source of sources)
    services.set(
      source.name,
      createSemanticService({
        config: { dbPath: ':memory:', demoDataPath: TEST_DEMO_DATA },
        logger: createLogger('silent'),
        dataSources: new Map([[demoDeployment.id, source.config]]),
      }),
    )
}, 120_000)
afterAll(() => {
  reference.close()
  for (const service of services.values()) service.close()
})

// The answer without its cache marker: whether a repeat came from the cache says nothing of the source.
const ask = (service: SemanticService, sql: string, access = WHOLE_MODEL, branchName?: string) =>
  service
    .query({ deployment: demoDeployment, access, branchName }, sql, 10_000)
    .then(({ cached: _cached, ...answer }) => answer)
    .catch((error: Error & { code?: string }) => ({ error: error.message, code: error.code }))

describe('data sources answer the same JSON', () => {
  it('answers every query of the set identically on SQLite, a SQLite file, DuckDB, Postgres and MariaDB', async () => {
    expect(sources.length).toBeGreaterThan(0)
    for (const sql of QUERIES) {
      const expected = await ask(reference, sql)
      expect(expected).not.toHaveProperty('error')
      for (const source of sources)
        expect({
          source: source.name,
          sql,
          result: await ask(services.get(source.name) as SemanticService, sql),
        }).toEqual({ source: source.name, sql, result: expected })
    }
  }, 120_000)

  it('answers the model number measures of the dev branch identically', async () => {
    for (const sql of DEV_QUERIES) {
      const expected = await ask(reference, sql, WHOLE_MODEL, 'dev')
      expect(expected).not.toHaveProperty('error')
      for (const source of sources)
        expect({
          source: source.name,
          result: await ask(services.get(source.name) as SemanticService, sql, WHOLE_MODEL, 'dev'),
        }).toEqual({ source: source.name, result: expected })
    }
  }, 60_000)

  it('gives a region-bound user exactly the rows of their region on every source', async () => {
    const regions = fc.constantFrom('Europe', 'Asia', 'Oceania', 'Atlantis')
    const queries = fc.constantFrom(
      'SELECT customers.region, MEASURE(orders.count), MEASURE(orders.total_amount) FROM orders GROUP BY 1',
      'SELECT products.category, MEASURE(line_items.total_quantity) FROM line_items GROUP BY 1',
      'SELECT customers.segment, MEASURE(customers.count) FROM customers GROUP BY 1',
      "SELECT DATE_TRUNC('year', orders.created_at), COUNT(*) FROM orders GROUP BY 1",
    )
    await fc.assert(
      fc.asyncProperty(queries, regions, async (sql, region) => {
        const restricted = sql
          .replace(' FROM ', ' FROM ')
          .replace(/ GROUP BY /, ` WHERE customers.region = '${region}' GROUP BY `)
        const allowed = await ask(reference, restricted)
        for (const source of sources) {
          const service = services.get(source.name) as SemanticService
          expect({ source: source.name, result: await ask(service, sql, user({ region })) }).toEqual({
            source: source.name,
            result: allowed,
          })
        }
      }),
      { numRuns: 12, seed: 20_261_124 },
    )
  }, 120_000)

  it('treats injection attempts as values on every source and leaves the tables intact', async () => {
    const attempts = [
      "SELECT MEASURE(orders.count) FROM orders WHERE orders.status = 'x''; DROP TABLE orders; --'",
      "SELECT MEASURE(orders.count) FROM orders WHERE orders.status LIKE '%'' OR 1=1 --'",
      "SELECT MEASURE(orders.count) FROM orders WHERE orders.status IN ('a', 'b\\'); DELETE FROM orders; --')",
      'SELECT MEASURE(orders.count) FROM orders; DROP TABLE orders',
    ]
    for (const sql of attempts) {
      const expected = await ask(reference, sql)
      for (const source of sources)
        expect({ source: source.name, result: await ask(services.get(source.name) as SemanticService, sql) }).toEqual({
          source: source.name,
          result: expected,
        })
    }
    // A region attribute that tries to break out of its quotes is a value too: it matches no region.
    const sneaky = user({ region: "Europe' OR '1'='1" })
    for (const source of sources) {
      const service = services.get(source.name) as SemanticService
      expect(await ask(service, 'SELECT COUNT(*) FROM orders', sneaky)).toEqual({
        schema: [{ name: 'count', column_type: 'number' }],
        data: [['0']],
        totalRows: 1,
      })
      expect(await ask(service, 'SELECT MEASURE(orders.count) FROM orders')).toEqual({
        schema: [{ name: 'orders.count', column_type: 'number' }],
        data: [['120000']],
        totalRows: 1,
      })
    }
  }, 60_000)

  it('refuses out-of-range values and type mismatches with the same 400 and our own words on every source', async () => {
    const count = 'SELECT MEASURE(orders.count) FROM orders'
    const controlled = (member: string, operator: string, value: string) =>
      applyControls(
        count,
        { filters: [{ member, operator, values: [value] } as never], timeGrains: [] },
        new Map([
          ['orders.created_at', 'time'],
          ['orders.amount', 'number'],
        ]),
      )
    const cases: Array<{ sql: string; access?: typeof WHOLE_MODEL; message: string }> = [
      // Postgres has no year 0; the others compared it as text and answered every row.
      { sql: `${count} WHERE orders.created_at > DATE '0000-01-01'`, message: '"0000-01-01" is not a date' },
      { sql: `${count} WHERE orders.created_at >= '0000-12-31 23:59:59'`, message: 'is not a date' },
      {
        sql: "SELECT MAX(orders.created_at) FROM orders HAVING MAX(orders.created_at) > '0000-01-01'",
        message: 'is not a date',
      },
      // Whole numbers past 2^53: DuckDB refused to bind them past 64 bits, the others rounded them.
      { sql: `${count} WHERE orders.amount < 99999999999999999999`, message: 'is out of range' },
      { sql: `${count} WHERE orders.id > -9223372036854775809`, message: 'is out of range' },
      { sql: `${count} WHERE orders.amount < 1e308`, message: 'is out of range' },
      { sql: `${count} WHERE orders.amount = '1e20'`, message: 'is out of range' },
      // A date against a number, text or true/false member: SQLite and MariaDB answered (differently), Postgres and
      // DuckDB refused it.
      { sql: `${count} WHERE orders.amount > DATE '2020-01-01'`, message: 'is not a number' },
      { sql: `${count} WHERE orders.has_discount = DATE '2020-01-01'`, message: 'is not true or false' },
      { sql: `${count} WHERE orders.status = DATE '2020-01-01'`, message: 'is not text' },
      {
        sql: `${count} HAVING MEASURE(orders.total_amount) > TIMESTAMP '2020-01-01 00:00:00'`,
        message: 'is not a number',
      },
      // A dashboard control's value, as an embed viewer sends it.
      { sql: controlled('orders.created_at', 'gt', '0000-01-01'), message: 'is not a date' },
      { sql: controlled('orders.amount', 'lt', '1e20'), message: 'is out of range' },
      // A user attribute or security-context value of the wrong type for the policy's member: Postgres and DuckDB
      // refused `text = integer` in their own words, SQLite and MariaDB matched no row.
      { sql: count, access: user({ region: 5 }), message: '5 is not text' },
      { sql: count, access: user({ region: true }), message: 'true is not text' },
      { sql: count, access: user({ region: ['Europe', 3] as never }), message: '3 is not text' },
    ]
    for (const { sql, access = WHOLE_MODEL, message } of cases) {
      const expected = await ask(reference, sql, access)
      expect({ sql, expected }).toEqual({
        sql,
        expected: { error: expect.stringContaining(message), code: 'INVALID_QUERY' },
      })
      for (const source of sources)
        expect({
          source: source.name,
          sql,
          result: await ask(services.get(source.name) as SemanticService, sql, access),
        }).toEqual({
          source: source.name,
          sql,
          result: expected,
        })
    }
    // The year 1 and whole numbers up to 2^53 - 1 are in range everywhere, with the same answer.
    for (const sql of [
      `${count} WHERE orders.created_at > '0001-01-01' AND orders.id < 9007199254740991 AND orders.amount > 1e-300`,
    ]) {
      const expected = await ask(reference, sql)
      expect(expected).toEqual({
        schema: [{ name: 'orders.count', column_type: 'number' }],
        data: [['120000']],
        totalRows: 1,
      })
      for (const source of sources)
        expect({ source: source.name, result: await ask(services.get(source.name) as SemanticService, sql) }).toEqual({
          source: source.name,
          result: expected,
        })
    }
  }, 60_000)
})

/**
 * A date kept without its time of day, and times written in the other text forms SQLite files hold (`T`, `Z`,
 * fractions, no seconds): compared, bucketed and sorted as the moments they are, as the typed columns of the other
 * sources are. Compared as text, `1998-01-01` sorted before `1998-01-01 00:00:00`, so SQLite counted New Year's
 * Day in 1997 (4 orders where the others said 3) and found no order on it.
 */
const dated = scratchModel(
  'dated',
  `cubes:
  - name: dated_orders
    sql_table: dated_orders
    dimensions:
      - { name: id, type: number, primary_key: true }
      - { name: ordered_on, type: time }
      - { name: paid_at, type: time }
    measures:
      - { name: count, type: count }
`,
)
// Each row: id, the day as SQLite keeps it and as the typed sources do, the payment time likewise.
const DATED_ROWS: Array<[number, string | null, string | null, string | null, string | null]> = [
  [1, '1997-01-01', '1997-01-01', '1997-01-01T09:30:00', '1997-01-01 09:30:00'],
  [2, '1997-06-15', '1997-06-15', '1997-06-15 12:00:00.250', '1997-06-15 12:00:00.25'],
  [3, '1997-12-31', '1997-12-31', '1997-12-31T23:59:59.5Z', '1997-12-31 23:59:59.5'],
  [4, '1998-01-01', '1998-01-01', '1998-01-01', '1998-01-01 00:00:00'],
  [5, '1998-02-01', '1998-02-01', '1998-02-01 08:15', '1998-02-01 08:15:00'],
  [6, null, null, null, null],
]
const sqlText = (value: string | null) => (value === null ? 'NULL' : `'${value}'`)
const datedValues = (typed: boolean) =>
  DATED_ROWS.map(
    ([id, day, typedDay, paid, typedPaid]) =>
      `(${id}, ${sqlText(typed ? typedDay : day)}, ${sqlText(typed ? typedPaid : paid)})`,
  ).join(', ')
const count = (where: string) => `SELECT MEASURE(dated_orders.count) FROM dated_orders WHERE ${where}`
const DATED: Array<[string, Array<Array<string | null>>]> = [
  [count("dated_orders.ordered_on >= '1997-01-01' AND dated_orders.ordered_on < '1998-01-01'"), [['3']]],
  [count("dated_orders.ordered_on BETWEEN '1997-01-01' AND '1997-12-31 23:59:59'"), [['3']]],
  [count("dated_orders.ordered_on NOT BETWEEN '1997-01-01' AND '1997-12-31 23:59:59'"), [['2']]],
  [count("dated_orders.ordered_on = '1998-01-01'"), [['1']]],
  [count("'1998-01-01' <= dated_orders.ordered_on"), [['2']]],
  [count("dated_orders.ordered_on IN ('1998-01-01', '1997-06-15')"), [['2']]],
  [count("dated_orders.ordered_on <> '1998-01-01 00:00:00'"), [['4']]],
  [count("dated_orders.paid_at < '1998-01-01'"), [['3']]],
  [count("dated_orders.paid_at >= '1997-12-31 23:59:59.5' AND dated_orders.paid_at <= '1998-01-01'"), [['2']]],
  [count("dated_orders.paid_at > '1997-12-31 23:59:59'"), [['3']]],
  [count("dated_orders.paid_at = '1997-06-15 12:00:00.25'"), [['1']]],
  [count("dated_orders.paid_at BETWEEN '1998-02-01 08:15' AND '1998-02-01 08:15:00'"), [['1']]],
  [
    "SELECT DATE_TRUNC('month', dated_orders.ordered_on), MEASURE(dated_orders.count) FROM dated_orders WHERE dated_orders.ordered_on < '1998-01-02' GROUP BY 1 ORDER BY 1",
    [
      ['1997-01-01 00:00:00', '1'],
      ['1997-06-01 00:00:00', '1'],
      ['1997-12-01 00:00:00', '1'],
      ['1998-01-01 00:00:00', '1'],
    ],
  ],
  [
    "SELECT DATE_TRUNC('year', dated_orders.paid_at), MEASURE(dated_orders.count) FROM dated_orders GROUP BY 1 ORDER BY 1",
    [
      [null, '1'],
      ['1997-01-01 00:00:00', '3'],
      ['1998-01-01 00:00:00', '2'],
    ],
  ],
  [
    'SELECT dated_orders.id, dated_orders.ordered_on, dated_orders.paid_at FROM dated_orders ORDER BY 3 DESC NULLS LAST',
    [
      ['5', '1998-02-01 00:00:00', '1998-02-01 08:15:00'],
      ['4', '1998-01-01 00:00:00', '1998-01-01 00:00:00'],
      ['3', '1997-12-31 00:00:00', '1997-12-31 23:59:59'],
      ['2', '1997-06-15 00:00:00', '1997-06-15 12:00:00'],
      ['1', '1997-01-01 00:00:00', '1997-01-01 09:30:00'],
      ['6', null, null],
    ],
  ],
  [
    'SELECT MIN(dated_orders.paid_at), MAX(dated_orders.paid_at), MAX(dated_orders.ordered_on) FROM dated_orders',
    [['1997-01-01 09:30:00', '1998-02-01 08:15:00', '1998-02-01 00:00:00']],
  ],
]

describe('a date without its time, and times in every text form, on every source', () => {
  const expected = DATED.map(([, answer]) => answer)
  const answers = (config: Record<string, unknown>) =>
    queryModel(
      dated.model,
      config,
      DATED.map(([sql]) => sql),
    )
  const labelled = async (config: Record<string, unknown>) =>
    (await answers(config)).map((answer, index) => ({ sql: DATED[index][0], answer }))
  const want = expected.map((answer, index) => ({ sql: DATED[index][0], answer }))

  it('on a SQLite file holding the days as YYYY-MM-DD and the times in mixed forms', async () => {
    const path = join(dated.folder, 'dated.db')
    const database = new Database(path)
    database.run('CREATE TABLE dated_orders (id INTEGER PRIMARY KEY, ordered_on DATE, paid_at TIMESTAMP)')
    database.run('CREATE INDEX dated_orders_ordered_on ON dated_orders (ordered_on)')
    database.run(`INSERT INTO dated_orders VALUES ${datedValues(false)}`)
    database.close()
    expect(await labelled({ type: 'sqlite', path })).toEqual(want)
  })

  it('on DuckDB', async () => {
    const path = join(dated.folder, 'dated.duckdb')
    const instance = await duckdb().DuckDBInstance.create(path)
    const connection = await instance.connect()
    await connection.run('CREATE TABLE dated_orders (id INTEGER PRIMARY KEY, ordered_on DATE, paid_at TIMESTAMP)')
    await connection.run(`INSERT INTO dated_orders VALUES ${datedValues(true)}`)
    connection.closeSync()
    instance.closeSync()
    expect(await labelled({ type: 'duckdb', path })).toEqual(want)
  })

  for (const [name, type, create] of [
    ['postgres', 'postgres', 'CREATE TABLE dated_orders (id INTEGER PRIMARY KEY, ordered_on DATE, paid_at TIMESTAMP)'],
    ['mariadb', 'mysql', 'CREATE TABLE dated_orders (id INTEGER PRIMARY KEY, ordered_on DATE, paid_at DATETIME(6))'],
  ])
    it(`on ${name}, where it runs`, async () => {
      const source = sources.find((candidate) => candidate.name === name)
      if (!source) return
      const admin = new Bun.SQL(source.config.url as string)
      try {
        await admin.unsafe('DROP TABLE IF EXISTS dated_orders')
        await admin.unsafe(create)
        await admin.unsafe(`INSERT INTO dated_orders VALUES ${datedValues(true)}`)
      } finally {
        await admin.close()
      }
      expect(await labelled({ type, url: source.config.url })).toEqual(want)
    }, 60_000)
})
