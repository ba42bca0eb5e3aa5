import { describe, expect, it } from 'bun:test'
import { columnDecimals, columnLabel, formatCell, initials, timeLabels } from '../../../plugins/web/client/format'

describe('initials', () => {
  it('takes the first letters of the first and last words of displayName', () => {
    expect(initials('Eva Europa')).toBe('EE')
    expect(initials('  Élodie de la Tour ')).toBe('ÉT')
    expect(initials('anna')).toBe('A')
  })

  it('shows a question mark when there is no name to take letters from', () => {
    expect(initials(null)).toBe('?')
    expect(initials('   ')).toBe('?')
    expect(initials('<> --')).toBe('?')
  })

  it('takes letters and digits only, never the quotes, brackets or markup a name holds', () => {
    expect(initials('<img src=x onerror=alert(1)>')).toBe('IO')
    expect(initials('"Ann" (Sales)')).toBe('AS')
    expect(initials('— Bo 7th')).toBe('B7')
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

  it('shows a column of numbers with one number of decimals: two when any value has cents, else none', () => {
    const money = ['3443148.9', '619060', null]
    const decimals = columnDecimals(money)
    expect(decimals).toBe(2)
    const two = (value: number) =>
      value.toLocaleString(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 2 })
    expect(money.map((value) => formatCell(value, 'number', decimals))).toEqual([two(3443148.9), two(619060), '–'])
    expect(columnDecimals(['12', '7', '1e3', null])).toBe(0)
    expect(columnDecimals([0.004, 2])).toBe(0)
    expect(columnDecimals([2.5])).toBe(2)
  })

  it('labels month buckets as year-month, other days as dates', () => {
    expect(timeLabels(['2024-01-01 00:00:00', '2024-02-01 00:00:00'])).toEqual(['2024-01', '2024-02'])
    expect(timeLabels(['2024-01-01 00:00:00', '2024-01-08 00:00:00'])).toEqual(['2024-01-01', '2024-01-08'])
  })
})
