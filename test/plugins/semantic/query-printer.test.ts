import { describe, expect, it } from 'bun:test'
import { parseQuery } from '../../../plugins/semantic/query/query-parser'
import { printQuery } from '../../../plugins/semantic/query-printer'

const queries = [
  'SELECT MEASURE(orders.count) FROM orders',
  'SELECT orders.status, MEASURE(orders.total_amount) AS revenue FROM orders GROUP BY 1 ORDER BY 2 DESC',
  "SELECT DATE_TRUNC('month', orders.created_at) AS month, MEASURE(orders.total_amount) FROM orders GROUP BY 1 ORDER BY 1 LIMIT 12 OFFSET 3",
  "SELECT customers.region, COUNT(*), COUNT(DISTINCT orders.customer_id), SUM(orders.amount) FROM orders WHERE orders.status IN ('completed', 'shipped') AND NOT orders.amount < 10 GROUP BY 1 HAVING MEASURE(orders.count) > 5 ORDER BY 1 ASC NULLS LAST",
  "SELECT o.status FROM orders AS o WHERE o.created_at BETWEEN DATE '2024-01-01' AND '2024-12-31' OR o.status ILIKE '%it''s%' OR o.discount IS NOT NULL OR o.has_discount = TRUE GROUP BY 1",
  'SELECT "order"."group" AS "from", MEASURE("order".count) AS "user" FROM "order" WHERE "order"."select" = \'x\' GROUP BY 1',
  'SELECT orders."Odd name" AS "Mixed Case" FROM orders WHERE orders.amount NOT BETWEEN -1.5 AND 2 AND orders.status NOT LIKE \'x%\' AND orders.status <> \'y\' GROUP BY 1',
]

describe('printQuery', () => {
  for (const sql of queries)
    it(`prints a query the parser reads back to the same tree: ${sql.slice(0, 60)}…`, () => {
      const parsed = parseQuery(sql)
      expect(parseQuery(printQuery(parsed))).toEqual(parsed)
    })
})
