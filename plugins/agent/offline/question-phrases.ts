import type { ValueHit } from '../meta-search'
import type { Granularity, ValueFilter } from './frame'
import { ASC, DESC, negatedAt } from './intents'
import type { MetaIndex, MetaMember } from './meta-index'
import { type RangeSpec } from './time-range'
import { Tokens } from './tokens'
import { stem, words } from './words'

// The phrases a question is read by: granularity words, group markers, value and dimension phrases.

export const GRANULARITY: Record<string, Granularity> = {
  day: 'day',
  days: 'day',
  daily: 'day',
  week: 'week',
  weeks: 'week',
  weekly: 'week',
  month: 'month',
  months: 'month',
  monthly: 'month',
  quarter: 'quarter',
  quarters: 'quarter',
  quarterly: 'quarter',
  year: 'year',
  years: 'year',
  yearly: 'year',
  annual: 'year',
  annually: 'year',
}
const GRAIN_LEADS = ['by', 'per', 'each', 'every', 'and', 'which', 'what', 'a', 'our', 'the', ...DESC, ...ASC]
/** Verbs after which "by" names who did it: "placed by", "bought by", "made by". */
const DONE_BY = new Set([
  'placed',
  'made',
  'bought',
  'purchased',
  'ordered',
  'spent',
  'generated',
  'booked',
  'paid',
  'done',
])
const GROUP_MARKERS = [
  ['broken', 'down', 'by'],
  ['split', 'by'],
  ['grouped', 'by'],
  ['for', 'each'],
  ['for', 'every'],
  ['by'],
  ['per'],
  ['across'],
  ['each'],
]
const BOUNDARIES = new Set([
  'in',
  'for',
  'during',
  'from',
  'since',
  'last',
  'past',
  'between',
  'where',
  'with',
  'top',
  'sorted',
  'ordered',
  'this',
  'before',
  'after',
  'over',
  'of',
  'that',
  'which',
  'who',
  'whose',
  'only',
  'excluding',
  'including',
  'vs',
  'versus',
  'compared',
  'and',
  'or',
  'than',
  'to',
  'without',
  'is',
  'are',
  'was',
  'were',
  'had',
  'has',
  'did',
])

/** Dimension values named in the question, longest first; a value after a negation excludes it. */
export function valuesOf(tokens: Tokens, index: MetaIndex, hits: ValueHit[]): ValueFilter[] {
  const found: Array<{ member: MetaMember; value: string; at: number; end: number; negated: boolean }> = []
  const sorted = [...hits].sort((a, b) => words(b.value).length - words(a.value).length)
  for (const hit of sorted) {
    const member = index.members.get(hit.member)
    const phrase = words(hit.value)
    if (!member || phrase.length === 0) continue
    const at = tokens.find(phrase)
    if (at < 0) continue
    const negation = negatedAt(tokens, at)
    tokens.use(...phrase.map((_, offset) => at + offset), negation)
    found.push({ member, value: hit.value, at, end: at + phrase.length, negated: negation >= 0 })
  }
  // A negation covers the values listed after it: "excluding cancelled and returned orders" excludes both.
  const inOrder = [...found].sort((a, b) => a.at - b.at)
  inOrder.forEach((entry, position) => {
    const before = inOrder[position - 1]
    if (
      !entry.negated &&
      before?.negated &&
      before.member === entry.member &&
      tokens.list.slice(before.end, entry.at).every((word) => ['and', 'or', 'nor'].includes(word))
    )
      entry.negated = true
  })
  const filters: ValueFilter[] = []
  for (const { member, value, negated } of found) {
    const existing = filters.find((filter) => filter.member === member && filter.negated === negated)
    if (existing) existing.values.push(value)
    else filters.push({ member, values: [value], negated })
  }
  return filters
}

// The nouns of the model's cubes, for the phrase reader (set per question; reading is synchronous).
let CUBE_NOUNS = new Set<string>()

export function useCubeNouns(nouns: Set<string>): void {
  CUBE_NOUNS = nouns
}

export interface Phrase {
  words: string[]
  /** `by`: after "by", "per", "across"; `which`: after "which", "what"; `rank`: after "top 5", "3 biggest". */
  origin: 'by' | 'which' | 'rank'
}

/** Phrases naming dimensions: after "by", "per", "across" ...; after "which", "top 5", "3 biggest". */
export function dimensionPhrases(tokens: Tokens): Phrase[] {
  const phrases: Phrase[] = []
  for (const marker of GROUP_MARKERS)
    for (let at = tokens.find(marker); at >= 0; at = tokens.find(marker, at + 1)) {
      // "orders placed by Corporate customers" names who placed them (a filter), not a breakdown.
      if (marker.length === 1 && marker[0] === 'by' && DONE_BY.has(tokens.list[at - 1] ?? '')) continue
      // "by region and segment" names two dimensions.
      let phrase: string[] = []
      for (
        let cursor = at + marker.length;
        cursor < tokens.length && (tokens.list[cursor] === 'and' || !BOUNDARIES.has(tokens.list[cursor]));
        cursor++
      ) {
        if (tokens.list[cursor] !== 'and') phrase.push(tokens.list[cursor])
        else if (phrase.length) (phrases.push({ words: phrase, origin: 'by' }), (phrase = []))
      }
      if (phrase.length) phrases.push({ words: phrase, origin: 'by' })
    }
  for (const [at, word] of tokens.list.entries()) {
    const which = ['which', 'what', 'who'].includes(word)
    if (!which && !['top', 'bottom', ...DESC, ...ASC].includes(word) && !(/^\d+$/.test(word) && !tokens.isUsed(at)))
      continue
    // "the most customers" counts customers; "the 3 biggest customers" ranks them.
    // ("the most VIP customers" too: words already understood, a flag or a value, may stand between.)
    let noun = at + 1
    while (noun < tokens.length && tokens.isUsed(noun)) noun++
    if (
      ['most', 'fewest', 'least'].includes(word) &&
      !/^\d+$/.test(tokens.list[at - 1] ?? '') &&
      CUBE_NOUNS.has(stem(tokens.list[noun] ?? ''))
    )
      continue
    let cursor = at + 1
    while (
      cursor < tokens.length &&
      (/^\d+$/.test(tokens.list[cursor]) ||
        ['sold', 'of', 'our', 'the', 'single', ...DESC, ...ASC].includes(tokens.list[cursor]))
    )
      cursor++
    const phrase: string[] = []
    for (; cursor < tokens.length && phrase.length < 2 && !BOUNDARIES.has(tokens.list[cursor]); cursor++)
      phrase.push(tokens.list[cursor])
    if (phrase.length) phrases.push({ words: phrase, origin: which ? 'which' : 'rank' })
  }
  return phrases
}

export function granularityOf(tokens: Tokens): Granularity | undefined {
  for (const [at, word] of tokens.list.entries()) {
    const unit = GRANULARITY[word]
    if (!unit || tokens.isUsed(at)) continue
    // "top 3 months", "the 5 busiest days": periods ranked.
    const counted =
      /^\d+$/.test(tokens.list[at - 1] ?? '') &&
      ['top', 'bottom', 'the', ...DESC, ...ASC].includes(tokens.list[at - 2] ?? '')
    if (/ly$|annual/.test(word) || GRAIN_LEADS.includes(tokens.list[at - 1] ?? '') || counted) {
      tokens.use(at)
      return unit
    }
  }
  if (tokens.has('trend') || tokens.find(['over', 'time']) >= 0) return 'month'
  const yoy = /\b(year over year|year-over-year|yoy)\b/.test(tokens.text)
    ? 'year'
    : /\b(month over month|mom)\b/.test(tokens.text)
      ? 'month'
      : undefined
  return yoy
}

/** The previous period of the same length as an absolute year, quarter or month ("growth in 2025" is from 2024). */
export function previousOf(spec: RangeSpec): RangeSpec | undefined {
  if (spec.kind !== 'absolute' || !spec.from || !spec.to) return undefined
  const from = new Date(`${spec.from}T00:00:00Z`)
  const to = new Date(`${spec.to}T00:00:00Z`)
  const months = (to.getUTCFullYear() - from.getUTCFullYear()) * 12 + to.getUTCMonth() - from.getUTCMonth()
  if (![1, 3, 12].includes(months)) return undefined
  const start = new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth() - months, 1))
  const day = (date: Date) => date.toISOString().slice(0, 10)
  const row =
    months === 12
      ? String(start.getUTCFullYear())
      : months === 3
        ? `${start.getUTCFullYear()} Q${Math.floor(start.getUTCMonth() / 3) + 1}`
        : day(start).slice(0, 7)
  return { kind: 'absolute', from: day(start), to: spec.from, label: row, row }
}
