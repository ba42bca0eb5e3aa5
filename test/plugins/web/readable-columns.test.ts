import { describe, expect, it } from 'bun:test'
import { bucketText, readableColumns } from '../../../plugins/web/readable-columns'

describe('readableColumns', () => {
  it('names columns by their titles and writes time buckets at their grain', () => {
    const result = {
      schema: [
        { name: 'orders.created_at.month', column_type: 'time' },
        { name: 'orders.created_at', column_type: 'time' },
        { name: 'orders.total_amount', column_type: 'number' },
      ],
      data: [['2021-01-01 00:00:00', '2021-01-05 10:20:00', '391744.9']],
      totalRows: 1,
    }
    const readable = readableColumns(result, [
      { title: 'Order date (month)', granularity: 'month' },
      { title: 'Order date' },
      { title: 'Revenue' },
    ])
    expect(readable.schema.map((column) => column.name)).toEqual(['Order date (month)', 'Order date', 'Revenue'])
    expect(readable.data).toEqual([['2021-01', '2021-01-05 10:20:00', '391744.9']])
  })

  it('writes each grain as the pages read it', () => {
    expect(bucketText('2024-05-01 00:00:00', 'year')).toBe('2024')
    expect(bucketText('2024-04-01 00:00:00', 'quarter')).toBe('2024-Q2')
    expect(bucketText('2024-05-01 00:00:00', 'month')).toBe('2024-05')
    expect(bucketText('2024-05-06 00:00:00', 'week')).toBe('2024-05-06')
    expect(bucketText('not a date', 'month')).toBe('not a date')
  })
})
