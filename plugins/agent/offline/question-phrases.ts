import type { ValueHit } from '../meta-search'
import type { Granularity, ValueFilter } from './frame'
import { ASC, DESC, negatedAt } from './intents'
import type { MetaIndex, MetaMember } from './meta-index'
import { type RangeSpec } from './time-range'
import { Tokens } from './tokens'
import { sameWord, stem, words } from './words'

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

/** Words of a member's name or title that say a row's way in or out ("Origin city", "destination_port"). */
const TOWARDS = /^(to|destination|dest|target|arrival|receiver|recipient|consignee|dropoff|delivery)$/
const AWAY = /^(from|origin|source|departure|sender|shipper|pickup)$/
const LEADS_TOWARDS = new Set(['to', 'into', 'towards'])

/**
 * The member a value stands for, where several dimensions hold it (a city both an origin and a destination): the one
 * the words around it name ("to Lyon", "from Lyon", "origin Lyon"), else the first, unless the value is one of two
 * columns of one table that no word tells apart, which `unclear` says.
 */
function memberOfValue(
  tokens: Tokens,
  candidates: MetaMember[],
  at: number,
  unclear: (members: MetaMember[]) => void,
): MetaMember {
  if (candidates.length === 1) return candidates[0]
  const before = tokens.list[at - 1] ?? ''
  const own = (member: MetaMember) => [...words(member.name), ...words(member.title)]
  const scored = candidates.map((member) => {
    const memberWords = own(member)
    let score = 0
    if (before === 'from' && memberWords.some((word) => AWAY.test(word))) score += 2
    if (LEADS_TOWARDS.has(before) && memberWords.some((word) => TOWARDS.test(word))) score += 2
    // "Origin city Lyon", "shipments with destination Lyon": a word of its title said beside the value.
    const others = candidates.filter((other) => other !== member).flatMap(own)
    if (memberWords.some((word) => !others.includes(word) && tokens.list.some((said) => said === word))) score += 1
    // "Clients in Lyon": the table the question names (right before the value most of all), where the others are
    // of other tables.
    const noun = words(member.cube).at(-1) ?? member.cube
    if (candidates.some((other) => other.cube !== member.cube)) {
      const leading = ['in', 'at', 'from', 'of', 'to'].includes(before) ? tokens.list[at - 2] : before
      if (leading !== undefined && sameWord(leading, noun)) score += 2
      else if (tokens.list.some((said) => sameWord(said, noun))) score += 1
    }
    return { member, score }
  })
  const best = Math.max(...scored.map((entry) => entry.score))
  const top = scored.filter((entry) => entry.score === best).map((entry) => entry.member)
  if (top.length > 1 && top.some((member) => top.some((other) => other !== member && other.cube === member.cube)))
    unclear(top.filter((member) => top.some((other) => other !== member && other.cube === member.cube)))
  return top[0]
}

/**
 * Dimension values named in the question, longest first; a value after a negation excludes it. A value several
 * dimensions hold stands for the one the words around it name (`memberOfValue`).
 */
export function valuesOf(
  tokens: Tokens,
  index: MetaIndex,
  hits: ValueHit[],
  unclear: (value: string, members: MetaMember[]) => void = () => {},
): ValueFilter[] {
  const found: Array<{ member: MetaMember; value: string; at: number; end: number; negated: boolean }> = []
  const sorted = [...hits].sort((a, b) => words(b.value).length - words(a.value).length)
  const holders = new Map<string, MetaMember[]>()
  for (const hit of sorted) {
    const member = index.members.get(hit.member)
    const key = words(hit.value).join(' ')
    if (member && !holders.get(key)?.includes(member)) holders.set(key, [...(holders.get(key) ?? []), member])
  }
  for (const hit of sorted) {
    const phrase = words(hit.value)
    const candidates = holders.get(phrase.join(' ')) ?? []
    const own = index.members.get(hit.member)
    if (!own || phrase.length === 0) continue
    const at = tokens.find(phrase)
    if (at < 0) continue
    const member = memberOfValue(tokens, candidates, at, (members) => unclear(hit.value, members))
    if (member !== own) continue
    // "Returning customers" come back; "returned" orders were sent back: a doing is no state of the value's.
    if (phrase.some((word, offset) => word.endsWith('ed') && tokens.list[at + offset].endsWith('ing'))) continue
    const negation = negatedAt(tokens, at, member.cube, CUBE_NOUNS)
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
  for (const { member, value, negated, at } of found) {
    const existing = filters.find((filter) => filter.member === member && filter.negated === negated)
    if (existing) {
      existing.values.push(value)
      existing.at = Math.min(existing.at ?? at, at)
    } else filters.push({ member, values: [value], negated, at })
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
export function dimensionPhrases(tokens: Tokens, valuesAt: readonly number[] = []): Phrase[] {
  const phrases: Phrase[] = []
  for (const marker of GROUP_MARKERS)
    for (let at = tokens.find(marker); at >= 0; at = tokens.find(marker, at + 1)) {
      // "orders placed by Corporate customers" names who placed them (a filter), not a breakdown.
      // ("revenue generated by region" still breaks down: only a value after "by" names who did it.)
      if (marker.length === 1 && marker[0] === 'by' && DONE_BY.has(tokens.list[at - 1] ?? '') && tokens.isUsed(at + 1))
        continue
      // ("paid by students in group 7A": the things who did it, named by a value after them, are a filter too.)
      if (
        marker.length === 1 &&
        marker[0] === 'by' &&
        DONE_BY.has(tokens.list[at - 1] ?? '') &&
        CUBE_NOUNS.has(stem(tokens.list[at + 1] ?? '')) &&
        ['in', 'from', 'of', 'with', 'who', 'whose', 'that'].includes(tokens.list[at + 2] ?? '') &&
        valuesAt.some((later) => later > at + 2)
      ) {
        tokens.use(at, at + 1)
        continue
      }
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
    // "list the product categories", "show all order statuses": the things named are listed, as after "which".
    const which =
      ['which', 'what', 'who', 'list'].includes(word) ||
      (word === 'all' && ['show', 'list', 'see', 'give'].includes(tokens.list[at - 1] ?? ''))
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
        ['sold', 'of', 'our', 'the', 'all', 'single', 'different', 'distinct', ...DESC, ...ASC].includes(
          tokens.list[cursor],
        ))
    )
      cursor++
    const phrase: string[] = []
    for (; cursor < tokens.length && phrase.length < 2 && !BOUNDARIES.has(tokens.list[cursor]); cursor++)
      phrase.push(tokens.list[cursor])
    if (phrase.length) phrases.push({ words: phrase, origin: which ? 'which' : 'rank' })
  }
  return phrases
}

/** Words that bring attributes of the things listed along: "with their city", "and their email", "including segment". */
const ATTRIBUTE_MARKERS = [
  ['along', 'with'],
  ['together', 'with'],
  ['with', 'their'],
  ['with', 'its'],
  ['and', 'their'],
  ['and', 'its'],
  ['plus', 'their'],
  ['including'],
  ['include'],
  ['includes'],
  ['with'],
  ['plus'],
]

/**
 * Phrases naming attributes to show beside the things a question lists ("Top 10 customers by revenue with their city
 * and email"): each a word or two, split at "and" (or a comma), up to a boundary word. Words already understood (a
 * flag: "orders with a discount") are not theirs.
 */
export function attributePhrases(tokens: Tokens): string[][] {
  const phrases: string[][] = []
  const taken = new Set<number>()
  for (const marker of ATTRIBUTE_MARKERS)
    for (let at = tokens.find(marker); at >= 0; at = tokens.find(marker, at + 1)) {
      if (taken.has(at)) continue
      let phrase: string[] = []
      for (
        let cursor = at + marker.length;
        cursor < tokens.length &&
        !tokens.isUsed(cursor) &&
        (tokens.list[cursor] === 'and' || !BOUNDARIES.has(tokens.list[cursor]));
        cursor++
      ) {
        taken.add(cursor)
        const word = tokens.list[cursor]
        if (word === 'and') phrase.length && (phrases.push(phrase), (phrase = []))
        else if (!['their', 'its', 'the', 'a', 'an', 'each', 'every', 'also'].includes(word)) phrase.push(word)
      }
      if (phrase.length) phrases.push(phrase)
      for (let offset = 0; offset < marker.length; offset++) taken.add(at + offset)
    }
  return phrases.filter((phrase) => phrase.length <= 3)
}

export function granularityOf(tokens: Tokens): Granularity | undefined {
  // "Which day of the week": weekdays are no period of the data (a weekday dimension is matched as a dimension);
  // left unknown, the question is declined rather than answered with the busiest date.
  if (/\b(days? of (the )?week|weekdays?|day-of-week)\b/.test(tokens.text)) return undefined
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
  // "Orders over time": by month, "time" being no member of its own.
  const overTime = tokens.find(['over', 'time'])
  if (overTime >= 0) tokens.use(overTime, overTime + 1)
  if (tokens.has('trend', 'trends', 'trending', 'trended') || overTime >= 0) return 'month'
  const over =
    /\b(year|quarter|month|week|day)[ -]over[ -](?:the[ -])?(?:previous[ -]|prior[ -])?\1\b|\b(yoy|qoq|mom|wow|dod)\b/.exec(
      tokens.text,
    )
  if (!over) return undefined
  const short = { yoy: 'year', qoq: 'quarter', mom: 'month', wow: 'week', dod: 'day' } as const
  return over[1] ? (over[1] as Granularity) : short[over[2] as keyof typeof short]
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
