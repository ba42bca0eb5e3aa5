import { describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import { runAnalyst } from './run-analyst'
import { demoMeta } from './demo-meta'

/**
 * Runs the offline analyst's decisions to the end against the demo model: the meta, a search that finds no value
 * for the made-up words (the lookup of a model that has none of them), and, should it ask for any query, an error
 * result (a query for a question it cannot map is already a defect the property reports).
 */
const answer = (question: string) =>
  runAnalyst(demoMeta, question, {
    search: {
      ...demoMeta,
      values: [],
      dates: [{ member: 'orders.created_at', first: '2021-01-01', latest: '2025-12-31' }],
    },
  })

// Made-up words: no member, cube or value of the demo model has them, nor does the analyst's vocabulary.
const unknownWord = fc
  .tuple(
    fc.constantFrom('zor', 'blix', 'quon', 'vex', 'trel', 'murg', 'plonk', 'drav', 'skiv'),
    fc.constantFrom('ax', 'ith', 'obb', 'ump', 'eel', 'orn'),
  )
  .map(([head, tail]) => `${head}${tail}`)
const templates = [
  (word: string) => `What was the revenue in ${word}?`,
  (word: string) => `How many orders from ${word} customers in 2024?`,
  (word: string) => `Top 5 ${word} by revenue`,
  (word: string) => `Revenue by ${word}`,
  (word: string) => `Average ${word} per order`,
  (word: string) => `Compare ${word} and Europe revenue in 2025`,
  (word: string) => `Share of revenue from ${word}`,
  (word: string) => `Revenue growth for ${word} from 2023 to 2024`,
  (word: string) => `What is the ${word} rate by region?`,
  (word: string) => `${word} last quarter`,
  (word: string) => `Which ${word} had the most orders?`,
]
const futures = [
  'What will revenue be next year?',
  'Forecast orders for next quarter',
  'Predict the number of customers in 2027',
]

describe('questions the analyst cannot map', () => {
  it('never get a number table, only a plain decline naming the part it could not map', () => {
    fc.assert(
      fc.property(unknownWord, fc.integer({ min: 0, max: templates.length - 1 }), (word, template) => {
        const question = templates[template](word)
        const { text, queries } = answer(question)
        expect(queries).toEqual([])
        expect(text.split('\n').some((line) => line.trimStart().startsWith('|'))).toBe(false)
        expect(text).toStartWith('I could not map that question to the data')
        expect(text).toContain(`"${word}`)
      }),
      { numRuns: 300 },
    )
  })

  it('decline forecasts without a table', () => {
    for (const question of futures) {
      const { text, queries } = answer(question)
      expect(queries).toEqual([])
      expect(text).toContain('future')
      expect(text).not.toMatch(/^\|/m)
    }
  })
})
