import { describe, expect, it } from 'bun:test'
import { chartable, seriesOf } from '../../../plugins/web/client/chart-series'
import { columnTitle, formatKpi, formatNumber } from '../../../plugins/web/client/format'

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
      labels: ['2024-01', '2024-02'],
      columns: [{ name: 'Revenue', values: [10, 12.5], texts: [formatNumber(10, 2), formatNumber(12.5, 2)] }],
      details: [[['Revenue', formatNumber(10, 2)]], [['Revenue', formatNumber(12.5, 2)]]],
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
    expect(seriesOf(titled)?.columns[0].name).toBe('Number of orders')
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
      columns: [{ values: [10, 2] }],
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
      labels: ['1867 · Ada Rossi', '166 · Rosa Umar'],
      columns: [{ name: 'Total amount', values: [152844.2, 116533.66] }],
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

describe('seriesOf number format', () => {
  it('writes every value of the series with the decimals of its column, as the table does (391,744.90, not 391,744.9)', () => {
    const series = seriesOf(
      result(
        [
          ['customers.region', 'string'],
          ['revenue', 'number'],
        ],
        [
          ['Asia', '391744.9'],
          ['Europe', '619060'],
        ],
      ),
    )!
    expect(series.columns[0].texts).toEqual([formatNumber(391744.9, 2), formatNumber(619060, 2)])
    expect(series.columns[0].texts[0]).toMatch(/90$/)
    expect(series.details[0]).toEqual([['Revenue', series.columns[0].texts[0]]])
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
