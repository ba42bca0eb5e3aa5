import { describe, expect, it } from 'bun:test'
import { starterQuestions } from '../../../plugins/web/starter-questions'
import type { MetaResult } from '../../../plugins/semantic/model'

const cube = (
  name: string,
  measures: MetaResult['cubes'][number]['measures'],
  dimensions: MetaResult['cubes'][number]['dimensions'],
  joins: string[] = [],
) => ({
  name,
  title: name,
  type: 'cube' as const,
  measures,
  dimensions,
  joins: joins.map((join) => ({ name: join, relationship: 'many_to_one' })),
})

describe('starterQuestions', () => {
  it("asks for the first sum over time and the main measures by the cube's and its joined cubes' text dimensions", () => {
    const meta: MetaResult = {
      cubes: [
        cube(
          'orders',
          [
            { name: 'orders.count', title: 'Number of orders', type: 'count' },
            { name: 'orders.total_amount', title: 'Revenue', type: 'sum' },
          ],
          [
            { name: 'orders.id', title: 'Order id', type: 'number', primaryKey: true },
            { name: 'orders.status', title: 'Status', type: 'string' },
            { name: 'orders.created_at', title: 'Order date', type: 'time' },
          ],
          ['customers'],
        ),
        cube(
          'customers',
          [],
          [
            { name: 'customers.email', title: 'Email', type: 'string' },
            { name: 'customers.region', title: 'Region', type: 'string' },
          ],
        ),
      ],
    }
    expect(starterQuestions(meta)).toEqual([
      'Revenue by month',
      'Revenue by status',
      'Number of orders by region',
      'Number of orders by month',
    ])
  })

  it('offers nothing when the user may see no measure', () => {
    expect(
      starterQuestions({
        cubes: [cube('customers', [], [{ name: 'customers.region', title: 'Region', type: 'string' }])],
      }),
    ).toEqual([])
    expect(starterQuestions({ cubes: [] })).toEqual([])
  })
})
