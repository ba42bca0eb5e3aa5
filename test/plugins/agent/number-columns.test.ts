import { describe, expect, it } from 'bun:test'
import { runAnalyst } from './run-analyst'

/**
 * The offline analyst on a model generated from a shop whose orders name their user by a number column `user` (no
 * `_id`), which an older generator also summed as "Total user": "number of orders by user" is a count by that column,
 * never the sum of it.
 */
const member = (cube: string, name: string, type: string, extra: Record<string, unknown> = {}) => ({
  name: `${cube}.${name}`,
  type,
  ...extra,
})
const orders = {
  name: 'orders',
  title: 'Orders',
  joins: [],
  measures: [
    member('orders', 'count', 'count', { title: 'Number of orders', synonyms: ['invoices', 'purchases'] }),
    member('orders', 'total_user', 'sum', { title: 'Total user' }),
    member('orders', 'total_total', 'sum', { title: 'Revenue', format: 'currency', synonyms: ['revenue', 'sales'] }),
    member('orders', 'average_total', 'avg', {
      title: 'Average order value',
      format: 'currency',
      synonyms: ['average order total', 'average order value'],
    }),
  ],
  dimensions: [
    member('orders', 'id', 'number', { primaryKey: true, title: 'Order ID' }),
    member('orders', 'user', 'number', { title: 'User' }),
    member('orders', 'total', 'number', { title: 'Order total' }),
    member('orders', 'status', 'string', { title: 'Order status' }),
    member('orders', 'created_at', 'time', { title: 'Created at' }),
  ],
}
const reviews = {
  name: 'reviews',
  title: 'Reviews',
  joins: [],
  measures: [
    member('reviews', 'count', 'count', { title: 'Number of reviews' }),
    member('reviews', 'total_author', 'sum', { title: 'Total author' }),
    member('reviews', 'average_rating', 'avg', { title: 'Average review rating' }),
  ],
  dimensions: [
    member('reviews', 'id', 'number', { primaryKey: true, title: 'Review ID' }),
    member('reviews', 'author', 'number', { title: 'Author' }),
    member('reviews', 'rating', 'number', { title: 'Review rating' }),
  ],
}
/** A users table the orders do not join (no key declared, nothing to guess a join from). */
const users = {
  name: 'users',
  title: 'Users',
  joins: [],
  measures: [member('users', 'count', 'count', { title: 'Number of users' })],
  dimensions: [
    member('users', 'id', 'number', { primaryKey: true, title: 'User ID' }),
    member('users', 'name', 'string', { title: 'User name' }),
  ],
}

const run = (meta: { cubes: unknown[] }, question: string) => runAnalyst(meta, question, { data: [['3', '7']] })

describe('a breakdown by a number column named without _id', () => {
  const shop = { cubes: [orders, reviews] }

  for (const question of [
    'Number of orders by user',
    'How many orders per user?',
    'How many orders by user',
    'Count of orders by user',
    'Orders by user',
  ])
    it(`counts the orders by the user column for "${question}", never the sum of it`, () => {
      const { text, queries } = run(shop, question)
      expect(queries).toEqual([
        'SELECT orders."user" AS "user", MEASURE(orders.count) AS count FROM orders GROUP BY 1 ORDER BY 2 DESC',
      ])
      expect(text).toStartWith('**Number of orders by User, all time**')
      expect(text).not.toContain('Total user')
    })

  it('reads the measure from the words before "by": the sum or average of the total, by user', () => {
    expect(run(shop, 'Sum of total by user').queries).toEqual([
      expect.stringContaining('MEASURE(orders.total_total) AS total_total FROM orders GROUP BY 1'),
    ])
    expect(run(shop, 'Average total by user').queries).toEqual([
      expect.stringContaining('MEASURE(orders.average_total) AS average_total FROM orders GROUP BY 1'),
    ])
    expect(run(shop, 'Revenue by user').queries[0]).toStartWith('SELECT orders."user" AS "user"')
  })

  it('breaks reviews down by their author column, with any measure of them', () => {
    expect(run(shop, 'How many reviews per author?').queries).toEqual([
      'SELECT reviews.author AS author, MEASURE(reviews.count) AS count FROM reviews GROUP BY 1 ORDER BY 2 DESC',
    ])
    expect(run(shop, 'Average rating by author').queries).toEqual([
      expect.stringContaining('reviews.author AS author, MEASURE(reviews.average_rating)'),
    ])
  })

  it('still answers the sum where it is asked for by its own name', () => {
    expect(run(shop, 'Total user').queries).toEqual(['SELECT MEASURE(orders.total_user) AS total_user FROM orders'])
  })

  it("takes the orders' user column over a users table the orders do not reach", () => {
    for (const question of ['Number of orders by user', 'How many orders per user?']) {
      const { text, queries } = run({ cubes: [orders, reviews, users] }, question)
      expect(queries).toEqual([
        'SELECT orders."user" AS "user", MEASURE(orders.count) AS count FROM orders GROUP BY 1 ORDER BY 2 DESC',
      ])
      expect(text).not.toContain('does not link')
    }
  })
})

describe('a count of things only a number column names', () => {
  const shop = { cubes: [orders, reviews] }

  it('declines "number of users" where no table is of users, never answering the sum of the user column', () => {
    for (const question of ['Number of users', 'How many users?', 'Count of users', 'Number of users by user']) {
      const { text, queries } = run(shop, question)
      expect(queries).toEqual([])
      expect(text).toStartWith('I could not map that question to the data')
      expect(text).not.toContain('**Total user')
    }
  })

  it('declines an average per user that no count of users can divide', () => {
    for (const question of ['Average revenue per user', 'Average number of orders per user']) {
      const { text, queries } = run(shop, question)
      expect(queries).toEqual([])
      expect(text).toContain('I could not map "user"')
    }
  })

  it("counts a users table's rows where there is one", () => {
    expect(run({ cubes: [orders, reviews, users] }, 'Number of users').queries).toEqual([
      'SELECT MEASURE(users.count) AS count FROM users',
    ])
  })
})

describe('an aggregate by a cube named by the breakdown', () => {
  // The generator's model today: the orders' user joined to the users table.
  const joined = { cubes: [{ ...orders, joins: [{ name: 'users', relationship: 'many_to_one' }] }, reviews, users] }

  it('reads "average total by user" as the average by user, never the number of users', () => {
    const { text, queries } = run(joined, 'Average total by user')
    expect(queries).toEqual([expect.stringContaining('MEASURE(orders.average_total) AS average_total FROM orders')])
    expect(queries[0]).toContain('users.name AS name')
    expect(text).not.toContain('Number of users')
    expect(run(joined, 'Sum of total by user').queries).toEqual([
      expect.stringContaining('users.name AS name, MEASURE(orders.total_total) AS total_total FROM orders'),
    ])
  })

  it('still counts the orders by user, and the users where they are asked for', () => {
    expect(run(joined, 'Number of orders by user').queries).toEqual([
      expect.stringContaining('users.name AS name, MEASURE(orders.count) AS count FROM orders'),
    ])
    expect(run(joined, 'How many users?').queries).toEqual(['SELECT MEASURE(users.count) AS count FROM users'])
  })
})
