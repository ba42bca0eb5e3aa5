import { CUSTOMERS, LINES, MONTH, ORDERS_CUSTOMERS, between, year, type Question } from './types'

/**
 * Questions as people type them, missed on the demo when the analyst's vocabulary was grown on it: who placed the
 * most (not the largest orders), "different" things counted, a quarter of a named year, demonyms ("Asian
 * customers"), filler words and misspellings.
 */
export const reading: Question[] = [
  {
    // Answered the 3 largest orders.
    kind: 'top',
    ask: 'Which 3 customers placed the most orders',
    sql: `SELECT c.name, COUNT(*) ${ORDERS_CUSTOMERS} GROUP BY c.id ORDER BY 2 DESC LIMIT 3`,
    cells: ['text', 'count'],
  },
  {
    kind: 'total',
    ask: 'how many different products',
    sql: 'SELECT COUNT(*) FROM products',
    cells: ['count'],
  },
  {
    // Read as the latest quarter of the data, against 2023.
    kind: 'period',
    ask: 'Revenue in the last quarter of 2023',
    sql: `SELECT SUM(amount) FROM orders o WHERE ${between('2023-10-01', '2024-01-01')}`,
  },
  {
    kind: 'period',
    ask: 'How many orders in the first quarter of 2024?',
    sql: `SELECT COUNT(*) FROM orders o WHERE ${between('2024-01-01', '2024-04-01')}`,
    cells: ['count'],
  },
  {
    kind: 'filter',
    ask: 'How many Asian customers are there?',
    sql: `SELECT COUNT(*) ${CUSTOMERS} WHERE r.name = 'Asia'`,
    cells: ['count'],
  },
  {
    kind: 'filter',
    ask: 'Revenue from European customers in 2024',
    sql: `SELECT SUM(o.amount) ${ORDERS_CUSTOMERS} WHERE r.name = 'Europe' AND ${year(2024)}`,
  },
  {
    kind: 'filler',
    ask: 'whats the revenue by region in 2025',
    sql: `SELECT r.name, SUM(o.amount) ${ORDERS_CUSTOMERS} WHERE ${year(2025)} GROUP BY 1`,
  },
  {
    kind: 'filler',
    ask: 'Quick question: how many orders did we get in 2024?',
    sql: `SELECT COUNT(*) FROM orders o WHERE ${year(2024)}`,
    cells: ['count'],
  },
  {
    kind: 'filler',
    ask: 'Could you kindly tell me the revenue for 2023, thanks',
    sql: `SELECT SUM(amount) FROM orders o WHERE ${year(2023)}`,
  },
  {
    kind: 'filler',
    ask: 'Which region spends the most?',
    sql: `SELECT r.name, SUM(o.amount) ${ORDERS_CUSTOMERS} GROUP BY 1 ORDER BY 2 DESC LIMIT 1`,
    first: true,
  },
  {
    kind: 'filler',
    ask: 'How many customers bought something in 2025?',
    sql: `SELECT COUNT(DISTINCT o.customer_id) FROM orders o WHERE ${year(2025)}`,
    cells: ['count'],
  },
  {
    // Answered "Number of orders per order".
    kind: 'ratio',
    ask: "What's the average number of items per order?",
    sql: 'SELECT COUNT(*) * 1.0 / (SELECT COUNT(*) FROM orders) FROM line_items',
    cells: ['money'],
  },
  {
    kind: 'filler',
    ask: 'How are sales trending?',
    sql: `SELECT ${MONTH()}, SUM(o.amount) FROM orders o GROUP BY 1`,
  },
  // Customers who come back, not the returned orders (answered the revenue of returned orders).
  { kind: 'decline', ask: 'Revenue from returning customers' },
  {
    kind: 'misspelling',
    ask: 'revnue by region in 2024',
    sql: `SELECT r.name, SUM(o.amount) ${ORDERS_CUSTOMERS} WHERE ${year(2024)} GROUP BY 1`,
  },
  {
    kind: 'misspelling',
    ask: 'Units sold in electroncis in 2025',
    sql: `SELECT SUM(li.quantity) ${LINES} WHERE p.category = 'Electronics' AND ${year(2025)}`,
    cells: ['count'],
  },
  {
    kind: 'misspelling',
    ask: 'Number of custmers by segmnet',
    sql: `SELECT c.segment, COUNT(*) FROM customers c GROUP BY 1`,
    cells: ['text', 'count'],
  },
]
