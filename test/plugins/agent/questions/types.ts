/**
 * The analyst's question set: everyday questions, each with the answer computed by hand-written SQL straight on the
 * demo tables (never through the semantic layer), or the expectation that the analyst declines.
 */

/** How an expected cell is written: a label as is, money with two decimals, a count whole, a ratio with two
 * decimals, a percentage with one decimal and `%`. */
export type Cell = 'text' | 'money' | 'count' | 'num' | 'pct'

export interface Question {
  /** The question; a list is a thread: every turn is asked in order and the last one is scored. */
  ask: string | string[]
  /** The class of the question (for the score by class). */
  kind: string
  /** SQL on the demo tables; `latest` is the latest order date. Omitted when the analyst must decline. */
  sql?: string
  /** How each column of the SQL's rows is written; default: labels, then one money column. */
  cells?: Cell[]
  /** `first`: the expected single row is the first row of the answer's table (which may list more). */
  first?: boolean
  /** The asking user's region attribute (row-level security). */
  region?: string
}

export const ORDERS_CUSTOMERS =
  'FROM orders o JOIN customers c ON c.id = o.customer_id JOIN regions r ON r.id = c.region_id'
export const LINES = 'FROM line_items li JOIN orders o ON o.id = li.order_id JOIN products p ON p.id = li.product_id'
export const LINES_CUSTOMERS = `${LINES} JOIN customers c ON c.id = o.customer_id JOIN regions r ON r.id = c.region_id`
export const CUSTOMERS = 'FROM customers c JOIN regions r ON r.id = c.region_id'

/** Orders (alias `o`, or `column`) in a year, or in `[from, to)`. */
export const year = (value: number, column = 'o.created_at') =>
  `${column} >= '${value}-01-01' AND ${column} < '${value + 1}-01-01'`
export const between = (from: string, to: string, column = 'o.created_at') =>
  `${column} >= '${from}' AND ${column} < '${to}'`
export const MONTH = (column = 'o.created_at') => `strftime('%Y-%m', ${column})`
export const YEAR = (column = 'o.created_at') => `strftime('%Y', ${column})`
export const QUARTER = (column = 'o.created_at') =>
  `strftime('%Y', ${column}) || ' Q' || ((CAST(strftime('%m', ${column}) AS INTEGER) + 2) / 3)`
/** The share of `part` in `whole` in percent. */
export const pct = (part: string, whole: string) => `100.0 * (${part}) / (${whole})`
