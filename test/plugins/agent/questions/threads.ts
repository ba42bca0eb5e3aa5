import { LINES, MONTH, ORDERS_CUSTOMERS, YEAR, year, type Question } from './types'

/** Follow-ups in one thread (the last turn is scored), and questions the analyst must decline. */
export const threads: Question[] = [
  {
    // "at least" is a filter, not a ranking: every region stays.
    kind: 'follow-up',
    ask: ['Revenue by region in 2024', 'and for orders of at least 1000 dollars?'],
    sql: `SELECT r.name, SUM(o.amount) ${ORDERS_CUSTOMERS} WHERE ${year(2024)} AND o.amount >= 1000 GROUP BY 1`,
  },
  {
    // A filter added to a share narrows the whole too: the status mix within Europe.
    kind: 'follow-up',
    ask: ['Number of orders by status in 2025', 'as a percentage', 'for Europe only'],
    sql: `SELECT o.status, COUNT(*), 100.0 * COUNT(*) / (SELECT COUNT(*) ${ORDERS_CUSTOMERS} WHERE ${year(2025)} AND r.name = 'Europe') ${ORDERS_CUSTOMERS} WHERE ${year(2025)} AND r.name = 'Europe' GROUP BY 1`,
    cells: ['text', 'count', 'pct'],
  },
  {
    // "the year before" counts back from the thread's year (answered 2024, the year before the data's end).
    kind: 'follow-up',
    ask: ['Revenue in 2023', 'what about the year before?'],
    sql: `SELECT SUM(amount) FROM orders o WHERE ${year(2022)}`,
  },
  {
    kind: 'follow-up',
    ask: ['Revenue in Q3 2025', 'and the previous quarter?'],
    sql: `SELECT SUM(amount) FROM orders o WHERE o.created_at >= '2025-04-01' AND o.created_at < '2025-07-01'`,
  },
  {
    kind: 'follow-up',
    ask: ['Orders in March 2025', 'and the month before?'],
    sql: `SELECT COUNT(*) FROM orders o WHERE o.created_at >= '2025-02-01' AND o.created_at < '2025-03-01'`,
    cells: ['count'],
  },
  {
    // The same month a year before the thread's month, not before the data's last one.
    kind: 'follow-up',
    ask: ['Revenue in March 2025', 'and the same month last year?'],
    sql: "SELECT SUM(amount) FROM orders o WHERE o.created_at >= '2024-03-01' AND o.created_at < '2024-04-01'",
  },
  {
    // "of those" keeps the thread's period (counted every year's cancelled orders).
    kind: 'follow-up',
    ask: ['How many orders in 2025?', 'how many of those were cancelled?'],
    sql: `SELECT COUNT(*) FROM orders o WHERE status = 'cancelled' AND ${year(2025)}`,
    cells: ['count'],
  },
  {
    kind: 'follow-up',
    ask: ['Revenue in Q1 2025', 'what about Q2?'],
    sql: `SELECT SUM(amount) FROM orders o WHERE o.created_at >= '2025-04-01' AND o.created_at < '2025-07-01'`,
  },
  {
    kind: 'follow-up',
    ask: ['Revenue in March 2024', 'and April?'],
    sql: `SELECT SUM(amount) FROM orders o WHERE o.created_at >= '2024-04-01' AND o.created_at < '2024-05-01'`,
  },
  {
    kind: 'follow-up',
    ask: ['Revenue in Europe in 2024', 'compare with Asia'],
    sql: `SELECT r.name, SUM(o.amount) ${ORDERS_CUSTOMERS} WHERE ${year(2024)} AND r.name IN ('Europe', 'Asia') GROUP BY 1`,
  },
  {
    kind: 'follow-up',
    ask: ['Which region had the highest revenue in 2025?', 'and the lowest?'],
    sql: `SELECT r.name, SUM(o.amount) ${ORDERS_CUSTOMERS} WHERE ${year(2025)} GROUP BY 1 ORDER BY 2 ASC LIMIT 1`,
  },
  {
    kind: 'follow-up',
    ask: ['Revenue by month in 2024', 'which one was the best?', 'and the worst?'],
    sql: `SELECT ${MONTH()}, SUM(o.amount) FROM orders o WHERE ${year(2024)} GROUP BY 1 ORDER BY 2 ASC LIMIT 1`,
  },
  {
    kind: 'follow-up',
    ask: ['Revenue by region in 2024', 'and in 2023?'],
    sql: `SELECT r.name, SUM(o.amount) ${ORDERS_CUSTOMERS} WHERE ${year(2023)} GROUP BY 1`,
  },
  {
    kind: 'follow-up',
    ask: ['How many orders in 2024?', 'what about 2025?'],
    sql: `SELECT COUNT(*) FROM orders o WHERE ${year(2025)}`,
    cells: ['count'],
  },
  {
    kind: 'follow-up',
    ask: ['Revenue in 2024', 'break it down by segment'],
    sql: `SELECT c.segment, SUM(o.amount) ${ORDERS_CUSTOMERS} WHERE ${year(2024)} GROUP BY 1`,
  },
  {
    kind: 'follow-up',
    ask: ['Revenue by region', 'only for VIP customers'],
    sql: `SELECT r.name, SUM(o.amount) ${ORDERS_CUSTOMERS} WHERE c.is_vip = 1 GROUP BY 1`,
  },
  {
    kind: 'follow-up',
    ask: ['Revenue in Europe in 2024', 'now without the region filter'],
    sql: `SELECT SUM(amount) FROM orders o WHERE ${year(2024)}`,
  },
  {
    kind: 'follow-up',
    ask: ['Number of orders by status', 'just for 2023'],
    sql: `SELECT status, COUNT(*) FROM orders o WHERE ${year(2023)} GROUP BY 1`,
    cells: ['text', 'count'],
  },
  {
    kind: 'follow-up',
    ask: ['Top 5 products by revenue', 'what about by units sold?'],
    sql: `SELECT p.name, SUM(li.quantity) ${LINES} GROUP BY p.id ORDER BY 2 DESC LIMIT 5`,
    cells: ['text', 'count'],
  },
  {
    kind: 'follow-up',
    ask: ['Orders by month in 2025', 'and by region too'],
    sql: `SELECT ${MONTH()}, r.name, COUNT(*) ${ORDERS_CUSTOMERS} WHERE ${year(2025)} GROUP BY 1, 2`,
    cells: ['text', 'text', 'count'],
  },
  {
    kind: 'follow-up',
    ask: ['What was the revenue in Asia in 2024?', 'and Europe?'],
    sql: `SELECT SUM(o.amount) ${ORDERS_CUSTOMERS} WHERE r.name = 'Europe' AND ${year(2024)}`,
  },
  {
    kind: 'follow-up',
    ask: ['Revenue by region in 2025', 'what about the number of orders?'],
    sql: `SELECT r.name, COUNT(*) ${ORDERS_CUSTOMERS} WHERE ${year(2025)} GROUP BY 1`,
    cells: ['text', 'count'],
  },
  {
    kind: 'follow-up',
    ask: ['Average order value in 2024', 'compare with 2023'],
    sql: `SELECT ${YEAR()}, AVG(o.amount) FROM orders o WHERE ${year(2023)} OR ${year(2024)} GROUP BY 1`,
  },
  {
    kind: 'follow-up',
    ask: ['Revenue in 2025', 'how much did it grow from 2024?'],
    sql: `SELECT SUM(CASE WHEN ${year(2025)} THEN amount END) - SUM(CASE WHEN ${year(2024)} THEN amount END) FROM orders o`,
  },
  {
    kind: 'follow-up',
    ask: ['Top 3 cities by revenue', 'in 2024 only'],
    sql: `SELECT c.city, SUM(o.amount) ${ORDERS_CUSTOMERS} WHERE ${year(2024)} GROUP BY 1 ORDER BY 2 DESC LIMIT 3`,
  },
  {
    kind: 'follow-up',
    ask: ['Revenue by segment', 'exclude Corporate'],
    sql: `SELECT c.segment, SUM(o.amount) ${ORDERS_CUSTOMERS} WHERE c.segment <> 'Corporate' GROUP BY 1`,
  },
  {
    kind: 'follow-up',
    ask: ['Revenue by region in 2025', 'why is North America the highest?'],
    sql: `SELECT r.name, COUNT(*) ${ORDERS_CUSTOMERS} WHERE ${year(2025)} GROUP BY 1`,
    cells: ['text', 'count'],
  },
  {
    kind: 'follow-up',
    ask: ['Units sold by category', 'and for Electronics by year?'],
    sql: `SELECT ${YEAR()}, SUM(li.quantity) ${LINES} WHERE p.category = 'Electronics' GROUP BY 1`,
    cells: ['text', 'count'],
  },

  { kind: 'decline', ask: 'What is the profit margin by region?' },
  // The first of every group is not one ranked query (answered the one first pair of all).
  { kind: 'decline', ask: 'Top product in each category by revenue' },
  { kind: 'decline', ask: 'Best-selling product per region in 2025' },
  // Said of customers, a negated order flag is no filter on them ("didn't get a discount": none of their orders had
  // one), and "never" neither: declined, not the customers with some undiscounted order (8,000).
  { kind: 'decline', ask: "How many customers didn't get a discount?" },
  { kind: 'decline', ask: 'Revenue from customers who never had a discount' },
  // Weekdays are no period of the data (answered the busiest date).
  { kind: 'decline', ask: 'Which day of the week has the most orders?' },
  { kind: 'decline', ask: 'Revenue in Antarctica' },
  { kind: 'decline', ask: 'How many orders came from Mars in 2024?' },
  { kind: 'decline', ask: 'What was the revenue from customer John Smith?' },
  { kind: 'decline', ask: 'Sales of the Ultra Widget product' },
  { kind: 'decline', ask: 'Revenue by sales rep' },
  { kind: 'decline', ask: 'What will revenue be next year?' },
  { kind: 'decline', ask: 'Website traffic by month' },
  // Two ways of naming one period: answered as that day against itself ("2025-12-30 vs 2025-12-30: 0.0%").
  { kind: 'decline', ask: 'Revenue yesterday vs the day before' },
  { kind: 'decline', ask: 'Revenue last year vs the year before' },
  { kind: 'decline', ask: 'How many employees do we have?' },
  { kind: 'decline', ask: 'Customer satisfaction score by region' },
  { kind: 'decline', ask: 'Average delivery time per order' },
  { kind: 'decline', ask: 'What is the median order value?' },
  { kind: 'decline', ask: 'Revenue per employee in 2024' },
  { kind: 'decline', ask: 'How many orders were refunded by PayPal?' },
  { kind: 'decline', ask: 'What was the revenue in Asia?', region: 'Europe' },
  { kind: 'decline', ask: 'Compare Asia and Europe revenue', region: 'Europe' },
]
