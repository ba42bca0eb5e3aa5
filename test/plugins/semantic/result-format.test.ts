import { describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import { formatAverage, formatNumber } from '../../../plugins/semantic/compile/result-format'

describe('formatAverage', () => {
  it('rounds the exact quotient once, whatever form the sum arrives in', () => {
    // 2811445.13 / 5647 = 497.86526120063750664...; the double AVG SQLite computes reads 497.865261200637.
    expect(formatNumber(2811445.13 / 5647)).toBe('497.865261200637')
    for (const sum of [2811445.13, '2811445.13', '2811445.130000'])
      for (const count of [5647, 5647n, '5647']) expect(formatAverage(sum, count)).toBe('497.865261200638')
    expect(formatAverage(-2811445.13, 5647)).toBe('-497.865261200638')
  })

  it('writes numbers as formatNumber does, and null for no rows', () => {
    expect(formatAverage(10, 4)).toBe('2.5')
    expect(formatAverage(12, 4)).toBe('3')
    expect(formatAverage(2, 3)).toBe('0.666666666666667')
    expect(formatAverage(1e25, 3)).toBe('3333333333333330000000000')
    expect(formatAverage(0, 7)).toBe('0')
    expect(formatAverage(null, 0)).toBeNull()
    expect(formatAverage(5, 0)).toBeNull()
  })

  it('agrees with exact decimal division for sums of cents', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(10n ** 14n), max: 10n ** 14n }),
        fc.integer({ min: 1, max: 10_000_000 }),
        (cents, count) => {
          // 15 significant digits of |cents| / (100 count), half away from zero, by integer arithmetic alone.
          const negative = cents < 0n
          const magnitude = negative ? -cents : cents
          const numerator = magnitude * 10n ** 40n
          const denominator = 100n * BigInt(count)
          const quotient = numerator / denominator
          if (quotient === 0n) return expect(formatAverage(Number(cents) / 100, count)).toBe('0')
          const drop = quotient.toString().length - 15
          const unit = 10n ** BigInt(drop)
          const digits = quotient / unit + (2n * (quotient % unit) >= unit ? 1n : 0n)
          const expected = formatNumber(Number(`${negative ? '-' : ''}${digits}e${drop - 40}`))
          expect(formatAverage(Number(cents) / 100, count)).toBe(expected)
        },
      ),
      { numRuns: 2000, seed: 20_250_101 },
    )
  })
})

describe('formatNumber', () => {
  it('writes decimals without an exponent, however small or large', () => {
    expect(formatNumber(1e-7)).toBe('0.0000001')
    expect(formatNumber(-1.5e-10)).toBe('-0.00000000015')
    expect(formatNumber(1e21)).toBe('1000000000000000000000')
    expect(formatNumber(1.2345e25)).toBe('12345000000000000000000000')
    expect(formatNumber(1493691.6400000001)).toBe('1493691.64')
    expect(formatNumber(42)).toBe('42')
  })
})
