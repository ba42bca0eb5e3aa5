import { LINES, ORDERS_CUSTOMERS, between, pct, year, type Cell, type Question } from './types'

/** One turn of a conversation: what is asked, and the truth of its answer. */
interface Turn {
  ask: string
  sql: string
  cells?: Cell[]
}

/**
 * A conversation of several turns, as one question per turn (each asked after the turns before it in one thread), so
 * every turn is scored, not only the last: a complete question mid-thread must answer exactly as in a new thread, and
 * an elliptical one ("and in 2024?", "what about Europe?", "the year before?", "same for orders") takes only what it
 * lacks from the thread.
 */
function conversation(turns: Turn[]): Question[] {
  return turns.map((turn, at) => ({
    kind: 'conversation',
    ask: turns.slice(0, at + 1).map((entry) => entry.ask),
    sql: turn.sql,
    cells: turn.cells,
  }))
}

const DISCOUNTED = (where = '') => `SELECT ${pct('SUM(discount > 0)', 'COUNT(*)')} FROM orders o ${where}`

export const conversations: Question[] = [
  // "The year before" of a quarter is that quarter a year earlier (answered all of 2024); a complete question
  // mid-thread starts afresh (answered revenue shares titled with the thread's period).
  ...conversation([
    { ask: 'Revenue in Q2 2025', sql: `SELECT SUM(amount) FROM orders o WHERE ${between('2025-04-01', '2025-07-01')}` },
    {
      ask: 'What about the year before?',
      sql: `SELECT SUM(amount) FROM orders o WHERE ${between('2024-04-01', '2024-07-01')}`,
    },
    {
      ask: 'and by region?',
      sql: `SELECT r.name, SUM(o.amount) ${ORDERS_CUSTOMERS} WHERE ${between('2024-04-01', '2024-07-01')} GROUP BY 1`,
    },
    { ask: 'What share of orders had a discount?', sql: DISCOUNTED(), cells: ['pct'] },
    { ask: 'and in 2024?', sql: DISCOUNTED(`WHERE ${year(2024)}`), cells: ['pct'] },
  ]),
  ...conversation([
    {
      ask: 'Compare revenue by product category in 2023 vs 2024',
      sql: `SELECT p.category, SUM(CASE WHEN ${year(2023)} THEN li.amount END), SUM(CASE WHEN ${year(2024)} THEN li.amount END) ${LINES} GROUP BY 1`,
      cells: ['text', 'money', 'money'],
    },
    { ask: 'What share of orders had a discount?', sql: DISCOUNTED(), cells: ['pct'] },
    {
      ask: 'Number of customers by segment',
      sql: 'SELECT segment, COUNT(*) FROM customers GROUP BY 1',
      cells: ['text', 'count'],
    },
    {
      ask: 'what about Europe?',
      sql: `SELECT c.segment, COUNT(*) FROM customers c JOIN regions r ON r.id = c.region_id WHERE r.name = 'Europe' GROUP BY 1`,
      cells: ['text', 'count'],
    },
  ]),
  ...conversation([
    {
      ask: 'Revenue by region in 2024',
      sql: `SELECT r.name, SUM(o.amount) ${ORDERS_CUSTOMERS} WHERE ${year(2024)} GROUP BY 1`,
    },
    {
      ask: 'and in 2025?',
      sql: `SELECT r.name, SUM(o.amount) ${ORDERS_CUSTOMERS} WHERE ${year(2025)} GROUP BY 1`,
    },
    {
      ask: 'same for orders',
      sql: `SELECT r.name, COUNT(*) ${ORDERS_CUSTOMERS} WHERE ${year(2025)} GROUP BY 1`,
      cells: ['text', 'count'],
    },
    {
      ask: 'the year before?',
      sql: `SELECT r.name, COUNT(*) ${ORDERS_CUSTOMERS} WHERE ${year(2024)} GROUP BY 1`,
      cells: ['text', 'count'],
    },
  ]),
  ...conversation([
    {
      ask: 'Units sold by category in March 2025',
      sql: `SELECT p.category, SUM(li.quantity) ${LINES} WHERE ${between('2025-03-01', '2025-04-01')} GROUP BY 1`,
      cells: ['text', 'count'],
    },
    {
      ask: 'and the month before?',
      sql: `SELECT p.category, SUM(li.quantity) ${LINES} WHERE ${between('2025-02-01', '2025-03-01')} GROUP BY 1`,
      cells: ['text', 'count'],
    },
    {
      ask: 'the year before?',
      sql: `SELECT p.category, SUM(li.quantity) ${LINES} WHERE ${between('2024-02-01', '2024-03-01')} GROUP BY 1`,
      cells: ['text', 'count'],
    },
    {
      ask: 'How many orders were there in 2023?',
      sql: `SELECT COUNT(*) FROM orders o WHERE ${year(2023)}`,
      cells: ['count'],
    },
  ]),
]
