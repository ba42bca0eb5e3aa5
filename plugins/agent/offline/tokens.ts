import { findPhrase, modelWord, questionWords, sameWord, words } from './words'

/**
 * The words of a question and which of them have been understood. Whatever is left at the end is a part of the
 * question the analyst could not map: it says so instead of ignoring it.
 */
export class Tokens {
  readonly list: string[]
  readonly raw: string[]
  readonly text: string
  private readonly used: boolean[]

  constructor(question: string, own?: ReadonlySet<string>, aliases?: ReadonlyMap<string, string>) {
    this.text = question.toLowerCase()
    this.raw = words(question)
    this.list = questionWords(question, own, aliases)
    this.used = this.list.map(() => false)
    this.mapSelling(own)
  }

  /** "How much did we sell" asks for money; "how many units did we sell", "best-selling" for units. */
  private mapSelling(own: ReadonlySet<string> | undefined): void {
    const sold = this.list.map((word, index) => (word === 'sold' ? index : -1)).filter((index) => index >= 0)
    if (sold.length === 0) return
    const units =
      this.raw.includes('selling') ||
      this.raw.some((word) => word.startsWith('popular')) ||
      this.list.some((word) => ['units', 'unit', 'items', 'pieces', 'quantity', 'many', 'volume'].includes(word))
    for (const index of sold) if (!units) this.list[index] = own ? modelWord('revenue', own) : 'revenue'
    if (units)
      this.list.forEach(
        (word, index) => ['items', 'pieces', 'quantity', 'volume'].includes(word) && (this.list[index] = 'units'),
      )
  }

  get length(): number {
    return this.list.length
  }

  isUsed(index: number): boolean {
    return this.used[index] === true
  }

  use(...indexes: number[]): void {
    for (const index of indexes) if (index >= 0 && index < this.used.length) this.used[index] = true
  }

  /** Marks every unused occurrence of `word` (or the same word in another form). */
  useWord(word: string): void {
    this.list.forEach((entry, index) => sameWord(entry, word) && (this.used[index] = true))
  }

  /** The first unused occurrence of a phrase, or -1. */
  find(phrase: readonly string[], from = 0): number {
    for (let at = findPhrase(this.list, phrase, from); at >= 0; at = findPhrase(this.list, phrase, at + 1)) {
      if (phrase.every((_, offset) => !this.used[at + offset])) return at
    }
    return -1
  }

  has(...candidates: string[]): boolean {
    return this.list.some((word) => candidates.includes(word))
  }

  /** The words not understood yet. */
  unused(): Array<{ word: string; at: number }> {
    return this.list.flatMap((word, at) => (this.used[at] ? [] : [{ word, at }]))
  }
}
