import { stem, words } from './words'

/**
 * The everyday words of business questions that no model need name itself, read against whatever model the analyst
 * is given: the money a model sums is its "revenue" when it has no word of that name, filler is no part of the
 * question, and a word a letter away from the model's own words (or its data's values) is read as that word.
 */

/** Words people add to a question that say nothing about the data ("quick question: whats ..."). */
export const FILLER = new Set(
  `whats what's hows how's wheres whos um uh uhm hmm erm er ah oh well so basically actually kindly quick question
  questions wondering wonder curious quickly pls plz thx cheers mate dear wanna gonna gimme real really honestly
  literally simply briefly tell told tells mind would you kind remind member members staffer appears appear
  appeared featured handled handle handles served serve serves something someone somebody anyone anybody`
    .split(/\s+/)
    .filter(Boolean),
)

/** Edit distance with adjacent transpositions ("electroncis" is one from "electronics"), stopped past `limit`. */
export function editDistance(a: string, b: string, limit = 2): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1
  let before: number[] = []
  let previous = Array.from({ length: b.length + 1 }, (_, at) => at)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    let best = i
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let value = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, before[j - 2] + 1)
      current.push(value)
      best = Math.min(best, value)
    }
    if (best > limit) return limit + 1
    before = previous
    previous = current
  }
  return previous[b.length]
}

/** "Asian" of "Asia", "European" of "Europe", "Canadian" of "Canada": a people's word for a place's value. */
export function demonymOf(word: string, value: string): boolean {
  if (value.length < 4) return false
  return (
    word === `${value}n` ||
    word === `${value}an` ||
    (value.endsWith('a') && word === `${value.slice(0, -1)}ian`) ||
    (value.endsWith('e') && word === `${value}an`)
  )
}

/** Searched forms of a word that may be a people's word for a place ("asian" → "asia", "european" → "europe"). */
export function placeForms(word: string): string[] {
  const forms: string[] = []
  if (word.endsWith('ian') && word.length >= 6) forms.push(`${word.slice(0, -3)}a`, word.slice(0, -2))
  if (word.endsWith('an') && word.length >= 6) forms.push(word.slice(0, -2))
  if (word.endsWith('n') && word.length >= 5) forms.push(word.slice(0, -1))
  return [...new Set(forms)].filter((form) => form.length >= 4)
}

/** How far a word may be from the one it is read as: one letter, two in long words. */
const reach = (word: string) => (word.length >= 8 ? 2 : 1)

export interface Reading {
  /** The question with misspelled words replaced by the model's (or its values') words. */
  text: string
  /** Each word read as another: said with the answer. */
  corrections: Array<{ from: string; to: string }>
  /** A word two of the model's words are equally near: asked back, not guessed. */
  ambiguous?: { word: string; options: string[] }
}

/**
 * Reads misspelled words as the words they are nearest to: a word that is not known (`known`: the model's words,
 * its values, the lexicon) and is one letter from one known word (two for long words, the first letter the same)
 * is read as it; a people's word for a value ("Asian") as the value. Words of the model (`preferred`) and its values
 * win over the lexicon's; two equally near words of the same standing make the word ambiguous.
 */
export function readSpelling(
  question: string,
  known: ReadonlySet<string>,
  preferred: ReadonlySet<string>,
  values: ReadonlySet<string>,
): Reading {
  const corrections: Reading['corrections'] = []
  let ambiguous: Reading['ambiguous']
  let text = question
  const isKnown = (word: string) => known.has(word) || values.has(word)
  // Built only when a word is unknown: most questions have none.
  let candidates: string[] | undefined
  for (const word of new Set(words(question))) {
    if (word.length < 5 || /\d/.test(word) || isKnown(word) || isKnown(stem(word))) continue
    let to: string | undefined
    const place = [...values].find((value) => demonymOf(word, value))
    if (place) to = place
    else {
      candidates ??= [...known, ...values].filter((entry) => entry.length >= 3 && !/^\d+$/.test(entry))
      let best = reach(word) + 1
      let found: string[] = []
      for (const candidate of candidates) {
        if (candidate[0] !== word[0]) continue
        const distance = editDistance(word, candidate, reach(word))
        if (distance < best) ((best = distance), (found = [candidate]))
        else if (distance === best) found.push(candidate)
      }
      if (best > reach(word) || found.length === 0) continue
      const own = found.filter((candidate) => preferred.has(candidate) || values.has(candidate))
      const pool = own.length ? own : found
      const distinct = [...new Map(pool.map((candidate) => [stem(candidate), candidate])).values()]
      if (distinct.length > 1) {
        ambiguous ??= { word, options: distinct.slice(0, 3) }
        continue
      }
      to = distinct[0]
    }
    corrections.push({ from: word, to })
    text = text.replace(new RegExp(`(?<![\\p{L}\\p{N}])${word}(?![\\p{L}\\p{N}])`, 'giu'), to)
  }
  return { text, corrections, ambiguous }
}
