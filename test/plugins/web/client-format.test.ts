import { describe, expect, it } from 'bun:test'
import { columnLabel, formatCell, initials, timeLabels } from '../../../plugins/web/client/format'

describe('initials', () => {
  it('takes the first letters of the first and last words of displayName', () => {
    expect(initials('Eva Europa')).toBe('EE')
    expect(initials('  Élodie de la Tour ')).toBe('ÉT')
    expect(initials('anna')).toBe('A')
  })

  it('shows a question mark when there is no name to take letters from', () => {
    expect(initials(null)).toBe('?')
    expect(initials('   ')).toBe('?')
  })
})

describe('columnLabel', () => {
  it('turns member names and aliases into headings', () => {
    expect(columnLabel('orders.total_amount')).toBe('Total amount')
    expect(columnLabel('revenue')).toBe('Revenue')
  })
})

describe('formatCell and timeLabels', () => {
  it('formats numbers, shortens times and shows null as a dash', () => {
    expect(formatCell('34834', 'number')).toBe(Number(34834).toLocaleString())
    expect(formatCell('2024-03-05 00:00:00', 'time')).toBe('2024-03-05')
    expect(formatCell('2024-03-05 13:45:00', 'time')).toBe('2024-03-05 13:45')
    expect(formatCell(null, 'string')).toBe('–')
  })

  it('labels month buckets as year-month, other days as dates', () => {
    expect(timeLabels(['2024-01-01 00:00:00', '2024-02-01 00:00:00'])).toEqual(['2024-01', '2024-02'])
    expect(timeLabels(['2024-01-01 00:00:00', '2024-01-08 00:00:00'])).toEqual(['2024-01-01', '2024-01-08'])
  })
})
