import {
  CUSTOMERS,
  LINES,
  LINES_CUSTOMERS,
  ORDERS_CUSTOMERS,
  QUARTER,
  YEAR,
  between,
  pct,
  year,
  type Question,
} from './types'

/** `SELECT label, a, b, b - a, percent change` of a sum over two periods per group (or one row without a group). */
function growth(expression: string, from: string, to: string, source: string, group?: string, where = '1 = 1'): string {
  const a = `SUM(CASE WHEN ${from} THEN ${expression} END)`
  const b = `SUM(CASE WHEN ${to} THEN ${expression} END)`
  return `SELECT ${group ? `${group} AS label, ` : ''}${b} - ${a} AS change, ${pct(`${b} - ${a}`, a)} AS percent ${source} WHERE ${where}${group ? ' GROUP BY 1' : ''}`
}

/** Side-by-side comparisons, growth and change, shares and percentages, ratios of measures. */
export const comparisons: Question[] = [
  {
    kind: 'compare',
    ask: 'Europe vs North America revenue in 2024',
    sql: `SELECT r.name, SUM(o.amount) ${ORDERS_CUSTOMERS} WHERE r.name IN ('Europe', 'North America') AND ${year(2024)} GROUP BY 1`,
  },
  {
    kind: 'compare',
    ask: 'Compare revenue in 2023 and 2024',
    sql: `SELECT ${YEAR()}, SUM(o.amount) FROM orders o WHERE ${between('2023-01-01', '2025-01-01')} GROUP BY 1`,
  },
  {
    kind: 'compare',
    ask: 'Orders in Q1 2024 vs Q1 2025',
    sql: `SELECT ${QUARTER()}, COUNT(*) FROM orders o WHERE ${between('2024-01-01', '2024-04-01')} OR ${between('2025-01-01', '2025-04-01')} GROUP BY 1`,
    cells: ['text', 'count'],
  },
  {
    kind: 'compare',
    ask: 'Consumer vs Corporate average order value',
    sql: `SELECT c.segment, AVG(o.amount) ${ORDERS_CUSTOMERS} WHERE c.segment IN ('Consumer', 'Corporate') GROUP BY 1`,
  },
  {
    kind: 'compare',
    ask: 'How did Asia compare with Europe in number of orders?',
    sql: `SELECT r.name, COUNT(*) ${ORDERS_CUSTOMERS} WHERE r.name IN ('Asia', 'Europe') GROUP BY 1`,
    cells: ['text', 'count'],
  },
  {
    kind: 'compare',
    ask: 'Completed vs cancelled orders in 2025',
    sql: `SELECT status, COUNT(*) FROM orders o WHERE status IN ('completed', 'cancelled') AND ${year(2025)} GROUP BY 1`,
    cells: ['text', 'count'],
  },
  {
    kind: 'compare',
    ask: 'Revenue for Books versus Toys',
    sql: `SELECT p.category, SUM(li.amount) ${LINES} WHERE p.category IN ('Books', 'Toys') GROUP BY 1`,
  },
  {
    kind: 'compare',
    ask: 'Compare VIP and non-VIP customers by revenue',
    sql: `SELECT SUM(o.amount) ${ORDERS_CUSTOMERS} GROUP BY c.is_vip`,
    cells: ['money'],
  },
  {
    kind: 'compare',
    ask: 'Revenue by region, 2024 vs 2025',
    sql: `SELECT r.name, SUM(CASE WHEN ${year(2024)} THEN o.amount END), SUM(CASE WHEN ${year(2025)} THEN o.amount END) ${ORDERS_CUSTOMERS} GROUP BY 1`,
    cells: ['text', 'money', 'money'],
  },
  {
    kind: 'compare',
    ask: 'Units sold of Electronics and Clothing in 2023',
    sql: `SELECT p.category, SUM(li.quantity) ${LINES} WHERE p.category IN ('Electronics', 'Clothing') AND ${year(2023)} GROUP BY 1`,
    cells: ['text', 'count'],
  },
  {
    kind: 'compare',
    ask: 'Orders in March 2025 compared to March 2024',
    sql: `SELECT strftime('%Y-%m', o.created_at), COUNT(*) FROM orders o WHERE ${between('2024-03-01', '2024-04-01')} OR ${between('2025-03-01', '2025-04-01')} GROUP BY 1`,
    cells: ['text', 'count'],
  },
  {
    kind: 'compare',
    ask: 'Revenue this year vs last year',
    sql: `SELECT ${YEAR()}, SUM(o.amount) FROM orders o WHERE ${between('2024-01-01', '2026-01-01')} GROUP BY 1`,
  },

  {
    kind: 'growth',
    ask: 'Revenue growth from 2023 to 2024',
    sql: growth('o.amount', year(2023), year(2024), 'FROM orders o'),
    cells: ['money', 'pct'],
  },
  {
    kind: 'growth',
    ask: 'How much did the number of orders grow between 2022 and 2023?',
    sql: growth('1', year(2022), year(2023), 'FROM orders o'),
    cells: ['count', 'pct'],
  },
  {
    kind: 'growth',
    ask: 'Which region grew the most in revenue from 2023 to 2024?',
    sql: `SELECT label, change FROM (${growth('o.amount', year(2023), year(2024), ORDERS_CUSTOMERS, 'r.name')}) ORDER BY 2 DESC LIMIT 1`,
    cells: ['text', 'money'],
    first: true,
  },
  {
    kind: 'growth',
    ask: 'Which product category grew fastest in 2025 compared to 2024?',
    sql: `SELECT label, percent FROM (${growth('li.amount', year(2024), year(2025), LINES, 'p.category')}) ORDER BY 2 DESC LIMIT 1`,
    cells: ['text', 'pct'],
    first: true,
  },
  {
    kind: 'growth',
    ask: 'Which category fell the most in units sold between 2024 and 2025?',
    sql: `SELECT label, change FROM (${growth('li.quantity', year(2024), year(2025), LINES, 'p.category')}) ORDER BY 2 ASC LIMIT 1`,
    cells: ['text', 'count'],
    first: true,
  },
  {
    kind: 'growth',
    ask: 'Percent change in number of orders from Q1 2025 to Q2 2025',
    sql: growth('1', between('2025-01-01', '2025-04-01'), between('2025-04-01', '2025-07-01'), 'FROM orders o'),
    cells: ['count', 'pct'],
  },
  {
    kind: 'growth',
    ask: 'How did revenue change from 2024 to 2025?',
    sql: growth('o.amount', year(2024), year(2025), 'FROM orders o'),
    cells: ['money', 'pct'],
  },
  {
    kind: 'growth',
    ask: 'Did revenue go up or down in 2022 compared to 2021?',
    sql: growth('o.amount', year(2021), year(2022), 'FROM orders o'),
    cells: ['money', 'pct'],
  },
  {
    kind: 'growth',
    ask: 'Growth in new customer signups from 2022 to 2023',
    sql: growth('1', year(2022, 'c.created_at'), year(2023, 'c.created_at'), 'FROM customers c'),
    cells: ['count', 'pct'],
  },
  {
    kind: 'growth',
    ask: 'Revenue growth by segment from 2024 to 2025',
    sql: growth('o.amount', year(2024), year(2025), ORDERS_CUSTOMERS, 'c.segment'),
    cells: ['text', 'money', 'pct'],
  },
  {
    kind: 'growth',
    ask: 'Which region had the biggest drop in orders from 2024 to 2025?',
    sql: `SELECT label, change FROM (${growth('1', year(2024), year(2025), ORDERS_CUSTOMERS, 'r.name')}) ORDER BY 2 ASC LIMIT 1`,
    cells: ['text', 'count'],
    first: true,
  },
  {
    kind: 'growth',
    ask: 'Year over year change in average order value from 2023 to 2024',
    sql: `SELECT AVG(CASE WHEN ${year(2024)} THEN amount END) - AVG(CASE WHEN ${year(2023)} THEN amount END) FROM orders o`,
    cells: ['money'],
  },

  {
    kind: 'share',
    ask: 'Share of revenue from Europe',
    sql: `SELECT 'Europe', ${pct(`SUM(CASE WHEN r.name = 'Europe' THEN o.amount END)`, 'SUM(o.amount)')} ${ORDERS_CUSTOMERS}`,
    cells: ['text', 'pct'],
  },
  {
    kind: 'share',
    ask: 'What percentage of orders were cancelled in 2024?',
    sql: `SELECT ${pct("SUM(status = 'cancelled')", 'COUNT(*)')} FROM orders o WHERE ${year(2024)}`,
    cells: ['pct'],
  },
  {
    kind: 'share',
    ask: '% of orders with a discount',
    sql: `SELECT ${pct('SUM(discount > 0)', 'COUNT(*)')} FROM orders`,
    cells: ['pct'],
  },
  {
    kind: 'share',
    ask: 'What share of revenue comes from each region?',
    sql: `SELECT r.name, ${pct('SUM(o.amount)', '(SELECT SUM(amount) FROM orders)')} ${ORDERS_CUSTOMERS} GROUP BY 1`,
    cells: ['text', 'pct'],
  },
  {
    // Between the two regions, side by side (answered each region's change from 2024 to 2025).
    kind: 'compare',
    ask: 'Difference between Oceania and Africa revenue in 2025',
    sql: `SELECT r.name, SUM(o.amount) ${ORDERS_CUSTOMERS} WHERE r.name IN ('Oceania', 'Africa') AND ${year(2025)} GROUP BY 1`,
  },
  {
    // A share of part of the data: of the VIP customers, not of all customers (gave 127 of 8,000).
    kind: 'share',
    ask: 'What share of VIP customers are in Europe?',
    sql: `SELECT ${pct("SUM(r.name = 'Europe')", 'COUNT(*)')} ${CUSTOMERS} WHERE c.is_vip = 1`,
    cells: ['pct'],
  },
  {
    kind: 'share',
    ask: "What share of Asia's orders were cancelled in 2025?",
    sql: `SELECT ${pct("SUM(o.status = 'cancelled')", 'COUNT(*)')} ${ORDERS_CUSTOMERS} WHERE r.name = 'Asia' AND ${year(2025)}`,
    cells: ['pct'],
  },
  {
    kind: 'share',
    ask: 'What percentage of Electronics revenue came from Europe?',
    sql: `SELECT ${pct("SUM(CASE WHEN r.name = 'Europe' THEN li.amount END)", 'SUM(li.amount)')} ${LINES_CUSTOMERS} WHERE p.category = 'Electronics'`,
    cells: ['pct'],
  },
  {
    // The part named first: "as a share of" names the whole after it.
    kind: 'share',
    ask: "Revenue from Electronics as a share of Europe's product revenue in 2025",
    sql: `SELECT ${pct("SUM(CASE WHEN p.category = 'Electronics' THEN li.amount END)", 'SUM(li.amount)')} ${LINES_CUSTOMERS} WHERE r.name = 'Europe' AND ${year(2025)}`,
    cells: ['pct'],
  },
  {
    // A rate of a value is its share (declined over "cancellation").
    kind: 'share',
    ask: 'What is the cancellation rate in 2024?',
    sql: `SELECT ${pct("SUM(status = 'cancelled')", 'COUNT(*)')} FROM orders o WHERE ${year(2024)}`,
    cells: ['pct'],
  },
  {
    kind: 'share',
    ask: 'Percentage of customers who are VIP',
    sql: `SELECT ${pct('SUM(is_vip)', 'COUNT(*)')} FROM customers`,
    cells: ['pct'],
  },
  {
    kind: 'share',
    ask: 'What fraction of units sold were Electronics?',
    sql: `SELECT 'Electronics', ${pct("SUM(CASE WHEN p.category = 'Electronics' THEN li.quantity END)", 'SUM(li.quantity)')} ${LINES}`,
    cells: ['text', 'pct'],
  },
  {
    kind: 'share',
    ask: 'Share of orders by status',
    sql: `SELECT status, ${pct('COUNT(*)', '(SELECT COUNT(*) FROM orders)')} FROM orders GROUP BY 1`,
    cells: ['text', 'pct'],
  },
  {
    kind: 'share',
    ask: 'What percent of revenue in 2025 came from Corporate customers?',
    sql: `SELECT 'Corporate', ${pct("SUM(CASE WHEN c.segment = 'Corporate' THEN o.amount END)", 'SUM(o.amount)')} ${ORDERS_CUSTOMERS} WHERE ${year(2025)}`,
    cells: ['text', 'pct'],
  },
  {
    kind: 'share',
    ask: 'Proportion of orders that were returned',
    sql: `SELECT ${pct("SUM(status = 'returned')", 'COUNT(*)')} FROM orders`,
    cells: ['pct'],
  },
  {
    kind: 'share',
    ask: 'What percentage of customers are in Asia?',
    sql: `SELECT 'Asia', ${pct("SUM(r.name = 'Asia')", 'COUNT(*)')} ${CUSTOMERS}`,
    cells: ['text', 'pct'],
  },

  {
    kind: 'ratio',
    ask: 'Average revenue per customer',
    sql: 'SELECT SUM(amount) / COUNT(DISTINCT customer_id) FROM orders',
  },
  {
    kind: 'ratio',
    // "Orders per customer" lists customers; the mean is asked for.
    ask: 'Average orders per customer in 2024',
    sql: `SELECT 1.0 * COUNT(*) / COUNT(DISTINCT customer_id) FROM orders o WHERE ${year(2024)}`,
    cells: ['num'],
  },
  {
    kind: 'ratio',
    ask: 'Revenue per order in 2023',
    sql: `SELECT SUM(amount) / COUNT(*) FROM orders o WHERE ${year(2023)}`,
  },
  {
    kind: 'ratio',
    ask: 'Average number of units per order',
    sql: 'SELECT 1.0 * SUM(quantity) / (SELECT COUNT(*) FROM orders) FROM line_items',
    cells: ['num'],
  },
  {
    kind: 'ratio',
    ask: 'Average revenue per customer by region',
    sql: `SELECT r.name, SUM(o.amount) / COUNT(DISTINCT o.customer_id) ${ORDERS_CUSTOMERS} GROUP BY 1`,
  },
  {
    kind: 'ratio',
    ask: 'How many orders does a customer place on average?',
    sql: 'SELECT 1.0 * COUNT(*) / COUNT(DISTINCT customer_id) FROM orders',
    cells: ['num'],
  },
  {
    kind: 'ratio',
    ask: 'Discount per order in 2025',
    sql: `SELECT SUM(discount) / COUNT(*) FROM orders o WHERE ${year(2025)}`,
  },
  {
    // A sum has no average of its own: the mean over the orders it adds up (answered the total discount).
    kind: 'ratio',
    ask: 'What is the average discount?',
    sql: 'SELECT SUM(discount) / COUNT(*) FROM orders o',
  },
  {
    kind: 'ratio',
    ask: 'Average discount by region in 2024',
    sql: `SELECT r.name, SUM(o.discount) / COUNT(*) ${ORDERS_CUSTOMERS} WHERE ${year(2024)} GROUP BY 1`,
  },
  {
    kind: 'ratio',
    ask: 'Average spend per customer in Europe',
    sql: `SELECT SUM(o.amount) / COUNT(DISTINCT o.customer_id) ${ORDERS_CUSTOMERS} WHERE r.name = 'Europe'`,
  },
]
