import { describe, expect, it } from 'bun:test'
import { questionWords, sameWord } from '../../../plugins/agent/offline/words'

describe('sameWord', () => {
  it('matches a plural with its singular, "s", "es" and "ies" alike', () => {
    const pairs = [
      ['regions', 'region'],
      ['categories', 'category'],
      ['statuses', 'status'],
      ['boxes', 'box'],
      ['taxes', 'tax'],
      ['branches', 'branch'],
      // Plurals that only add "s" to a word ending in "e" stay matched.
      ['houses', 'house'],
      ['warehouses', 'warehouse'],
      ['caches', 'cache'],
    ]
    for (const [plural, singular] of pairs)
      expect([plural, sameWord(plural, singular), sameWord(singular, plural)]).toEqual([plural, true, true])
  })

  it('does not match words that only share a beginning', () => {
    for (const [left, right] of [
      ['status', 'stat'],
      ['house', 'hous'],
      ['orders', 'order date'],
    ])
      expect([left, right, sameWord(left, right)]).toEqual([left, right, false])
  })
})

describe('questionWords', () => {
  it("maps everyday words to the model's usual ones, unless the model uses the word itself", () => {
    expect(questionWords('active clients')).toEqual(['ordering', 'customers'])
    // A model with an "Active" flag and a "clients" cube means those.
    expect(questionWords('active clients', new Set(['active', 'client', 'clients']))).toEqual(['active', 'clients'])
  })
})
