import { describe, expect, it } from 'bun:test'
import {
  hasPeriodRange,
  queryForPeriod,
  relativePeriodOf,
  relativeTitle,
} from '../../../../plugins/management/dashboards/relative-period'

const SIX_MONTHS =
  "SELECT DATE_TRUNC('month', orders.created_at) AS month, MEASURE(orders.total_amount) AS revenue FROM orders " +
  "WHERE orders.created_at >= '2025-07-01' AND orders.created_at < '2026-01-01' GROUP BY 1 ORDER BY 1 ASC"

describe('relativePeriodOf', () => {
  it('finds the one relative period of the question on the one time member the query bounds', () => {
    expect(relativePeriodOf('revenue in the last 6 months by month', SIX_MONTHS)).toEqual({
      member: 'orders.created_at',
      kind: 'trailing',
      unit: 'month',
      amount: 6,
      label: 'the last 6 months',
    })
    expect(relativePeriodOf('revenue this quarter', SIX_MONTHS)).toMatchObject({ kind: 'this', unit: 'quarter' })
  })

  it('keeps fixed periods, two periods and unbounded queries as their dates', () => {
    expect(relativePeriodOf('revenue in 2025 by month', SIX_MONTHS)).toBeUndefined()
    expect(relativePeriodOf('revenue this year versus last year', SIX_MONTHS)).toBeUndefined()
    expect(relativePeriodOf('revenue by month', SIX_MONTHS)).toBeUndefined()
    const lowerOnly = "SELECT MEASURE(orders.count) FROM orders WHERE orders.created_at >= '2025-07-01'"
    expect(relativePeriodOf('orders in the last 6 months', lowerOnly)).toBeUndefined()
  })
})

describe('queryForPeriod', () => {
  const period = relativePeriodOf('revenue in the last 6 months by month', SIX_MONTHS)!

  it('moves the range to end with the latest date, each bound keeping its operator', () => {
    const moved = queryForPeriod(SIX_MONTHS, period, '2026-03-15 10:00:00')
    expect(moved.from).toBe('2025-10-01')
    expect(moved.to).toBe('2026-03-31')
    expect(moved.query).toContain("orders.created_at >= '2025-10-01'")
    expect(moved.query).toContain("orders.created_at < '2026-04-01'")
    expect(moved.query).toContain("DATE_TRUNC('month', orders.created_at)")
  })

  it('moves a BETWEEN to the first and last day, and leaves a query without data as it is', () => {
    const between =
      "SELECT MEASURE(orders.count) FROM orders WHERE orders.status = 'completed' AND orders.created_at BETWEEN '2025-07-01' AND '2025-12-31'"
    const moved = queryForPeriod(between, period, '2026-01-20')
    expect(moved.query).toContain("BETWEEN '2025-08-01' AND '2026-01-31'")
    expect(moved.query).toContain("orders.status = 'completed'")
    expect(queryForPeriod(between, period, undefined)).toEqual({ query: between })
  })

  it('tells whether a query has a range a period can move', () => {
    expect(hasPeriodRange(SIX_MONTHS, 'orders.created_at')).toBe(true)
    expect(hasPeriodRange(SIX_MONTHS, 'customers.created_at')).toBe(false)
    expect(hasPeriodRange('not sql', 'orders.created_at')).toBe(false)
  })
})

describe('relativeTitle', () => {
  const period = relativePeriodOf('revenue in the last 6 months by month', SIX_MONTHS)!

  it("says the period as the question did, without the pinning day's dates", () => {
    expect(relativeTitle('Revenue by month, the last 6 months (2025-07-01 to 2025-12-31)', period)).toBe(
      'Revenue by month, the last 6 months',
    )
    expect(relativeTitle('Revenue by month (2025-07-01 to 2025-12-31)', period)).toBe(
      'Revenue by month, the last 6 months',
    )
  })
})
