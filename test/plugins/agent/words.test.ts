import { describe, expect, it } from 'bun:test'
import { eventVerbForms, expandMonthAbbreviations, questionWords, sameWord } from '../../../plugins/agent/offline/words'

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
    // "active" is "ordering" only for a model that speaks of ordering (the demo's "Ordering customers").
    expect(questionWords('active clients', new Set(['ordering']))).toEqual(['ordering', 'customers'])
    expect(questionWords('active clients')).toEqual(['active', 'customers'])
    // A model with an "Active" flag and a "clients" cube means those.
    expect(questionWords('active clients', new Set(['active', 'client', 'clients', 'ordering']))).toEqual([
      'active',
      'clients',
    ])
  })
})

describe('expandMonthAbbreviations', () => {
  it('writes a month out before a year or after a word that leads a date, and leaves the model its own words', () => {
    expect(expandMonthAbbreviations('Revenue in Sept 2025')).toBe('Revenue in september 2025')
    expect(expandMonthAbbreviations('Orders in Dec. vs Nov')).toBe('Orders in december vs november')
    expect(expandMonthAbbreviations("Revenue Jan '25")).toBe("Revenue january '25")
    // An account named Jan, an APR measure: not months.
    expect(expandMonthAbbreviations('MRR from Jan')).toBe('MRR from Jan')
    expect(expandMonthAbbreviations('Average APR by plan')).toBe('Average APR by plan')
    expect(expandMonthAbbreviations('What is the APR in 2025?', new Set(['apr']))).toBe('What is the APR in 2025?')
    expect(expandMonthAbbreviations('Average APR in Mar 2025', new Set(['apr']))).toBe('Average APR in march 2025')
  })
})

describe('eventVerbForms', () => {
  it("gives the forms of a date title's past participle", () => {
    expect(eventVerbForms('Shipped on')).toEqual(expect.arrayContaining(['shipped', 'ship', 'ships', 'shipping']))
    expect(eventVerbForms('Hired on')).toEqual(expect.arrayContaining(['hired', 'hire', 'hires', 'hiring']))
    expect(eventVerbForms('Enrolled on')).toEqual(expect.arrayContaining(['enrolled', 'enroll', 'enrolls']))
    expect(eventVerbForms('Posted at')).toEqual(expect.arrayContaining(['posted', 'post', 'posts']))
  })

  it('gives none for a title whose first word only ends like one (no fee of "Feed date")', () => {
    for (const title of [
      'Feed date',
      'Need by',
      'Seed date',
      'Weed date',
      'Speed date',
      'Breed date',
      'Red date',
      'Exam date',
    ])
      expect([title, eventVerbForms(title)]).toEqual([title, []])
  })
})
