import { describe, expect, it } from 'bun:test'
import { cacheKey } from '../../../plugins/semantic/cache-key'

describe('cacheKey', () => {
  it('keeps values apart that JSON.stringify writes alike', () => {
    expect(cacheKey({ level: Infinity })).not.toBe(cacheKey({ level: null }))
    expect(cacheKey({ level: NaN })).not.toBe(cacheKey({ level: null }))
    expect(cacheKey(['1'])).not.toBe(cacheKey([1]))
    expect(cacheKey({ region: 'Europe' })).not.toBe(cacheKey({ region: ['Europe'] }))
  })

  it('gives the same key to objects whose keys are written in another order', () => {
    expect(cacheKey({ a: 1, b: { c: 'x', d: [true] } })).toBe(cacheKey({ b: { d: [true], c: 'x' }, a: 1 }))
  })
})
