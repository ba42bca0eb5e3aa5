import { describe, expect, it } from 'bun:test'
import { chartable, seriesOf } from '../../../plugins/web/client/chart-series'
import { columnTitle, formatKpi } from '../../../plugins/web/client/format'

const result = (schema: Array<[string, string]>, data: Array<Array<string | null>>) => ({
  schema: schema.map(([name, column_type]) => ({ name, column_type })),
  data,
  totalRows: data.length,
})

describe('chartable', () => {
  it('draws a series over time as a line, with month labels', () => {
    const monthly = result(
      [
        ['month', 'time'],
        ['revenue', 'number'],
      ],
      [
        ['2024-01-01 00:00:00', '10'],
        ['2024-02-01 00:00:00', '12.5'],
      ],
    )
    expect(chartable(monthly)).toEqual({
      kind: 'line',
      labelName: 'Month',
      valueName: 'Revenue',
      labels: ['2024-01', '2024-02'],
      values: [10, 12.5],
    })
  })

  it('draws a few categories as bars, but leaves a long list, a single row or a result without numbers to the table', () => {
    const few = result(
      [
        ['orders.status', 'string'],
        ['revenue', 'number'],
      ],
      [
        ['completed', '3'],
        ['returned', '1'],
      ],
    )
    expect(chartable(few)?.kind).toBe('bar')
    const many = result(
      [
        ['customers.name', 'string'],
        ['revenue', 'number'],
      ],
      Array.from({ length: 13 }, (_, index) => [`c${index}`, '1']),
    )
    expect(chartable(many)).toBeUndefined()
    expect(
      chartable(
        result(
          [
            ['orders.status', 'string'],
            ['revenue', 'number'],
          ],
          [['completed', '3']],
        ),
      ),
    ).toBeUndefined()
    expect(chartable(result([['orders.status', 'string']], [['a'], ['b']]))).toBeUndefined()
  })

  it('takes the titles the server resolved from the model over column names', () => {
    const titled = {
      ...result(
        [
          ['orders.status', 'string'],
          ['orders', 'number'],
        ],
        [
          ['a', '1'],
          ['b', '2'],
        ],
      ),
      titles: ['Status', 'Number of orders'],
    }
    expect(seriesOf(titled)?.valueName).toBe('Number of orders')
    expect(columnTitle(titled, 1)).toBe('Number of orders')
    expect(columnTitle(result([['orders.total_amount', 'number']], []), 0)).toBe('Total amount')
  })
})

describe('seriesOf with several label columns', () => {
  it('labels each bar with every dimension, so a result by region and status does not draw bars that read alike', () => {
    const byTwo = result(
      [
        ['customers.region', 'string'],
        ['orders.status', 'string'],
        ['total_amount', 'number'],
      ],
      [
        ['Europe', 'completed', '10'],
        ['Europe', 'returned', '2'],
      ],
    )
    expect(chartable(byTwo)).toMatchObject({
      kind: 'bar',
      labelName: 'Region · Status',
      labels: ['Europe · completed', 'Europe · returned'],
      values: [10, 2],
    })
  })

  it('draws the measure, not the key of the rows it lists (the top customers were drawn by their ids)', () => {
    const top = result(
      [
        ['id', 'number'],
        ['name', 'string'],
        ['total_amount', 'number'],
      ],
      [
        ['1867', 'Ada Rossi', '152844.2'],
        ['166', 'Rosa Umar', '116533.66'],
      ],
    )
    expect(chartable(top)).toMatchObject({
      labelName: 'Id · Name',
      valueName: 'Total amount',
      labels: ['1867 · Ada Rossi', '166 · Rosa Umar'],
      values: [152844.2, 116533.66],
    })
  })

  it('leaves months of several regions to the table: one line through them all would mean nothing', () => {
    const monthly = result(
      [
        ['month', 'time'],
        ['customers.region', 'string'],
        ['revenue', 'number'],
      ],
      [
        ['2024-01-01 00:00:00', 'Asia', '1'],
        ['2024-01-01 00:00:00', 'Europe', '2'],
      ],
    )
    expect(chartable(monthly)).toBeUndefined()
    // A widget that asks for a line anyway gets its points told apart.
    expect(seriesOf(monthly, 'line')?.labels).toEqual(['2024-01 · Asia', '2024-01 · Europe'])
  })
})

describe('formatKpi', () => {
  it('shortens large numbers to fit a card and keeps small ones exact', () => {
    expect(formatKpi(59_758_728.89)).toBe(
      new Intl.NumberFormat(undefined, { notation: 'compact', maximumFractionDigits: 1 }).format(59_758_728.89),
    )
    expect(formatKpi(59_758_728.89).length).toBeLessThanOrEqual(6)
    expect(formatKpi(9_999.5)).toBe(new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 }).format(9_999.5))
  })
})
