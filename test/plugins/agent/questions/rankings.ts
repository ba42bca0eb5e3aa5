import { CUSTOMERS, LINES, MONTH, ORDERS_CUSTOMERS, QUARTER, YEAR, year, type Question } from './types'

/** Top and bottom N, extremes of one record versus of a group, the best or worst period at a granularity. */
export const rankings: Question[] = [
  {
    kind: 'top',
    ask: 'Top 3 months by orders in 2025',
    sql: `SELECT ${MONTH()}, COUNT(*) FROM orders o WHERE ${year(2025)} GROUP BY 1 ORDER BY 2 DESC LIMIT 3`,
    cells: ['text', 'count'],
  },
  {
    kind: 'top',
    ask: 'Which region has the most VIP customers?',
    sql: `SELECT r.name, COUNT(*) ${CUSTOMERS} WHERE c.is_vip = 1 GROUP BY 1 ORDER BY 2 DESC LIMIT 1`,
    cells: ['text', 'count'],
    first: true,
  },
  {
    kind: 'top',
    ask: 'Top 5 customers by revenue',
    sql: `SELECT c.name, SUM(o.amount) ${ORDERS_CUSTOMERS} GROUP BY c.id ORDER BY 2 DESC LIMIT 5`,
  },
  {
    kind: 'top',
    ask: 'Top 10 products by units sold',
    sql: `SELECT p.name, SUM(li.quantity) ${LINES} GROUP BY p.id ORDER BY 2 DESC LIMIT 10`,
    cells: ['text', 'count'],
  },
  {
    kind: 'top',
    ask: 'Bottom 3 regions by revenue in 2024',
    sql: `SELECT r.name, SUM(o.amount) ${ORDERS_CUSTOMERS} WHERE ${year(2024)} GROUP BY 1 ORDER BY 2 ASC LIMIT 3`,
  },
  {
    kind: 'top',
    ask: 'Which 3 cities had the most orders in 2025?',
    sql: `SELECT c.city, COUNT(*) ${ORDERS_CUSTOMERS} WHERE ${year(2025)} GROUP BY 1 ORDER BY 2 DESC LIMIT 3`,
    cells: ['text', 'count'],
  },
  {
    // "Who": the person behind the measure, not the measure's total (answered Asia's revenue in 2024).
    kind: 'top',
    ask: 'Who bought the most in Asia last year?',
    sql: `SELECT c.name, SUM(o.amount) ${ORDERS_CUSTOMERS} WHERE r.name = 'Asia' AND ${year(2024)} GROUP BY c.id ORDER BY 2 DESC LIMIT 1`,
    first: true,
  },
  {
    kind: 'top',
    ask: 'Who placed the most orders last year?',
    sql: `SELECT c.name, COUNT(*) ${ORDERS_CUSTOMERS} WHERE ${year(2024)} GROUP BY c.id ORDER BY 2 DESC, c.id LIMIT 1`,
    cells: ['text', 'count'],
    first: true,
  },
  {
    // One order, shown with who placed it (answered the largest amount alone).
    kind: 'extreme',
    ask: 'Who had the biggest order in 2025?',
    sql: `SELECT c.name, o.amount ${ORDERS_CUSTOMERS} WHERE ${year(2025)} ORDER BY o.amount DESC LIMIT 1`,
    first: true,
  },
  {
    // "Who are" asks for several (answered the one first customer).
    kind: 'top',
    ask: 'Who are our top customers?',
    sql: `SELECT c.name, SUM(o.amount) ${ORDERS_CUSTOMERS} GROUP BY c.id ORDER BY 2 DESC LIMIT 5`,
  },
  {
    kind: 'top',
    ask: 'Which were the best-selling products in 2024?',
    sql: `SELECT p.name, SUM(li.quantity) ${LINES} WHERE ${year(2024)} GROUP BY p.id ORDER BY 2 DESC LIMIT 5`,
    cells: ['text', 'count'],
  },
  {
    kind: 'top',
    ask: 'The 5 worst selling products',
    sql: `SELECT p.name, SUM(li.quantity) ${LINES} GROUP BY p.id ORDER BY 2 ASC LIMIT 5`,
    cells: ['text', 'count'],
  },
  {
    kind: 'top',
    ask: 'Top 2 segments by average order value',
    sql: `SELECT c.segment, AVG(o.amount) ${ORDERS_CUSTOMERS} GROUP BY 1 ORDER BY 2 DESC LIMIT 2`,
  },
  {
    kind: 'top',
    ask: 'Best 4 categories by revenue in 2023',
    sql: `SELECT p.category, SUM(li.amount) ${LINES} WHERE ${year(2023)} GROUP BY 1 ORDER BY 2 DESC LIMIT 4`,
  },
  {
    kind: 'top',
    ask: 'Who are our 3 biggest customers?',
    sql: `SELECT c.name, SUM(o.amount) ${ORDERS_CUSTOMERS} GROUP BY c.id ORDER BY 2 DESC LIMIT 3`,
  },
  {
    kind: 'top',
    ask: 'Top 3 customers in Asia by revenue in 2025',
    sql: `SELECT c.name, SUM(o.amount) ${ORDERS_CUSTOMERS} WHERE r.name = 'Asia' AND ${year(2025)} GROUP BY c.id ORDER BY 2 DESC LIMIT 3`,
  },
  {
    kind: 'top',
    ask: 'Lowest 5 products by revenue',
    sql: `SELECT p.name, SUM(li.amount) ${LINES} GROUP BY p.id ORDER BY 2 ASC LIMIT 5`,
  },
  {
    kind: 'top',
    ask: 'Top 2 cities in Europe by revenue',
    sql: `SELECT c.city, SUM(o.amount) ${ORDERS_CUSTOMERS} WHERE r.name = 'Europe' GROUP BY 1 ORDER BY 2 DESC LIMIT 2`,
  },
  {
    kind: 'top',
    ask: 'Top seven products by revenue in Books',
    sql: `SELECT p.name, SUM(li.amount) ${LINES} WHERE p.category = 'Books' GROUP BY p.id ORDER BY 2 DESC LIMIT 7`,
  },
  {
    kind: 'top',
    ask: 'Which 4 customers spent the least in 2024?',
    sql: `SELECT c.name, SUM(o.amount) ${ORDERS_CUSTOMERS} WHERE ${year(2024)} GROUP BY c.id ORDER BY 2 ASC LIMIT 4`,
  },

  { kind: 'extreme', ask: 'What was the largest order?', sql: 'SELECT MAX(amount) FROM orders' },
  {
    kind: 'extreme',
    ask: 'Which customer placed the largest single order?',
    sql: `SELECT c.name, o.amount ${ORDERS_CUSTOMERS} ORDER BY o.amount DESC LIMIT 1`,
    first: true,
  },
  {
    kind: 'extreme',
    ask: 'Which customer spent the most?',
    sql: `SELECT c.name, SUM(o.amount) ${ORDERS_CUSTOMERS} GROUP BY c.id ORDER BY 2 DESC LIMIT 1`,
    first: true,
  },
  {
    kind: 'extreme',
    ask: 'What is the most expensive product?',
    sql: 'SELECT name, price FROM products ORDER BY price DESC LIMIT 1',
    first: true,
  },
  {
    kind: 'extreme',
    ask: 'Cheapest product in Books',
    sql: "SELECT name, price FROM products WHERE category = 'Books' ORDER BY price ASC LIMIT 1",
    first: true,
  },
  {
    kind: 'extreme',
    ask: 'Which region has the most customers?',
    sql: `SELECT r.name, COUNT(*) ${CUSTOMERS} GROUP BY 1 ORDER BY 2 DESC LIMIT 1`,
    cells: ['text', 'count'],
    first: true,
  },
  {
    kind: 'extreme',
    ask: 'Which order had the biggest discount?',
    sql: 'SELECT CAST(id AS TEXT), discount FROM orders ORDER BY discount DESC LIMIT 1',
    first: true,
  },
  {
    // Several records, not the one extreme of a measure (answered "Largest order: 5,075.94").
    kind: 'top',
    ask: 'Which were the 5 biggest orders?',
    sql: 'SELECT CAST(id AS TEXT), amount FROM orders ORDER BY amount DESC LIMIT 5',
  },
  {
    kind: 'top',
    ask: 'What were the 3 largest orders in 2025?',
    sql: `SELECT CAST(id AS TEXT), amount FROM orders o WHERE ${year(2025)} ORDER BY amount DESC LIMIT 3`,
  },
  {
    kind: 'extreme',
    ask: 'Which product category has the highest average price?',
    sql: 'SELECT category, AVG(price) FROM products GROUP BY 1 ORDER BY 2 DESC LIMIT 1',
    first: true,
  },
  { kind: 'extreme', ask: 'Smallest order in 2025', sql: `SELECT MIN(amount) FROM orders o WHERE ${year(2025)}` },
  {
    kind: 'extreme',
    ask: 'Which segment generates the least revenue?',
    sql: `SELECT c.segment, SUM(o.amount) ${ORDERS_CUSTOMERS} GROUP BY 1 ORDER BY 2 ASC LIMIT 1`,
    first: true,
  },

  {
    kind: 'period',
    ask: 'What was our best month for revenue?',
    sql: `SELECT ${MONTH()}, SUM(o.amount) FROM orders o GROUP BY 1 ORDER BY 2 DESC LIMIT 1`,
    first: true,
  },
  {
    kind: 'period',
    ask: 'Worst quarter by number of orders',
    sql: `SELECT ${QUARTER()}, COUNT(*) FROM orders o GROUP BY 1 ORDER BY 2 ASC LIMIT 1`,
    cells: ['text', 'count'],
    first: true,
  },
  {
    kind: 'period',
    ask: 'Which year had the most orders?',
    sql: `SELECT ${YEAR()}, COUNT(*) FROM orders o GROUP BY 1 ORDER BY 2 DESC LIMIT 1`,
    cells: ['text', 'count'],
    first: true,
  },
  {
    kind: 'period',
    ask: 'Best month in 2024 by revenue',
    sql: `SELECT ${MONTH()}, SUM(o.amount) FROM orders o WHERE ${year(2024)} GROUP BY 1 ORDER BY 2 DESC LIMIT 1`,
    first: true,
  },
  {
    kind: 'period',
    ask: 'Which day had the highest revenue in 2025?',
    sql: `SELECT date(o.created_at), SUM(o.amount) FROM orders o WHERE ${year(2025)} GROUP BY 1 ORDER BY 2 DESC LIMIT 1`,
    first: true,
  },
  {
    kind: 'period',
    ask: 'In which quarter of 2023 did we sell the most units?',
    sql: `SELECT ${QUARTER()}, SUM(li.quantity) ${LINES} WHERE ${year(2023)} GROUP BY 1 ORDER BY 2 DESC LIMIT 1`,
    cells: ['text', 'count'],
    first: true,
  },
  {
    kind: 'period',
    ask: 'Slowest month of 2025 for orders',
    sql: `SELECT ${MONTH()}, COUNT(*) FROM orders o WHERE ${year(2025)} GROUP BY 1 ORDER BY 2 ASC LIMIT 1`,
    cells: ['text', 'count'],
    first: true,
  },
  {
    kind: 'period',
    ask: 'Which week had the highest revenue in 2024?',
    sql: `SELECT 'week of ' || date(o.created_at, 'weekday 0', '-6 days'), SUM(o.amount) FROM orders o WHERE ${year(2024)} GROUP BY 1 ORDER BY 2 DESC LIMIT 1`,
    first: true,
  },
  {
    kind: 'period',
    ask: 'Which year had the lowest average order value?',
    sql: `SELECT ${YEAR()}, AVG(o.amount) FROM orders o GROUP BY 1 ORDER BY 2 ASC LIMIT 1`,
    first: true,
  },
]
