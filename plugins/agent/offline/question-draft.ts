import type { DateSpan, ValueHit } from '../meta-search'
import type { BooleanFilter, Granularity, ValueFilter } from './frame'
import { CUES, booleansOf, numberFilters, perEntity, rankedCount, recordOf } from './intents'
import type { MetaIndex, MetaMember } from './meta-index'
import { cubeNoun, distinctive, matchDimension, reach, vocabularyOf } from './members'
import { findPeriods, spanOf, yearEarlier, type RangeSpec } from './time-range'
import { Tokens } from './tokens'
import { readSpelling, type Reading } from './lexicon'
import { countedThings, mentionsMember } from './question-cues'
import { BREAKDOWN_NOUNS, expandMonthAbbreviations, sameWord, STOPWORDS, words } from './words'
import {
  GRANULARITY,
  valuesOf,
  type Phrase,
  attributePhrases,
  dimensionPhrases,
  granularityOf,
  useCubeNouns,
} from './question-phrases'

/** What the lookup (`serviceMeta` with a search) found: dimension values and date spans the caller may see. */
export interface Lookup {
  values: ValueHit[]
  dates: DateSpan[]
}

/** A dimension the question names, waiting for the measure: by its words, and how it was asked for. */
export interface PendingDimension {
  member: MetaMember
  words: string[]
  origin: Phrase['origin']
}

/** A question as it is read, step by step: what each step found, for the steps after it. */
export interface QuestionDraft {
  index: MetaIndex
  lookup: Lookup | undefined
  vocabulary: ReturnType<typeof vocabularyOf>
  spelling: Reading
  /** The question as read: spelling corrected, month abbreviations expanded. */
  question: string
  tokens: Tokens
  /** The question's words, as the tokens hold them. */
  text: string
  /** Numbers compared with ("orders over 2000"): amounts, not years. */
  compared: ReturnType<typeof numberFilters>
  growth: boolean
  range?: RangeSpec
  periods?: RangeSpec[]
  values: ValueFilter[]
  booleans: BooleanFilter[]
  dimensions: MetaMember[]
  per: ReturnType<typeof perEntity>
  dropped: MetaMember[]
  granularity?: Granularity
  counted: ReturnType<typeof rankedCount>
  record: ReturnType<typeof recordOf>
  /** Dimensions the question names, placed once the measure is known. */
  pending: PendingDimension[]
  /** Words of a breakdown asked for that named nothing of the model. */
  unmatched: string[]
  /** Attributes shown beside the things listed ("with their city"). */
  attributes: Array<{ member: MetaMember; at: number[] }>
  countsValues?: string
  measure?: MetaMember
  measureNamed: boolean
  /** The measure counts the things a status value marks ("cancellations"). */
  valueCounted: boolean
  /** Why the things counted cannot be counted by the breakdown asked for. */
  unlinked?: string
  /** Why there are more breakdowns than one answer gives. */
  tooMany?: string
  /** A value two dimensions of one table hold, with no word saying which: why the question is not answered. */
  unclearValue?: string
}

/** How measures are scored against words, and whether one reaches the cubes the question needs. */
export interface MeasureFit {
  score: (free: string[]) => Array<{ candidate: MetaMember; score: number; matched: number }>
  fits: (measure: MetaMember, extra?: MetaMember[]) => boolean
  /** The cubes of the question's filters and dimensions so far. */
  needed: Set<string>
  /** The words no step has used, bar those that name ranked things. */
  unused: string[]
}

/** The question's words: misspellings read as the model's words, filler no part of it, cube nouns known. */
export function readWords(asked: string, index: MetaIndex, lookup: Lookup | undefined): QuestionDraft {
  const vocabulary = vocabularyOf(index)
  // Misspelled words read as the model's (or the values') words they are nearest to; filler is no part of it.
  const valueWords = new Set((lookup?.values ?? []).flatMap((hit) => words(hit.value)))
  const spelling = readSpelling(
    expandMonthAbbreviations(asked, vocabulary.own),
    vocabulary.known,
    vocabulary.own,
    valueWords,
  )
  // "The average order value" of a model without such a measure: its revenue per order.
  const question = expandMonthAbbreviations(
    vocabulary.own.has('value')
      ? spelling.text
      : spelling.text.replace(
          /\b(average|avg|mean|typical)\s+(order|basket|ticket|invoice|transaction|sale)\s+(value|size)\b/gi,
          (_, average: string, thing: string) => `${average} revenue per ${thing}`,
        ),
    vocabulary.own,
  )
  useCubeNouns(vocabulary.nouns)
  const tokens = new Tokens(question, vocabulary.own, vocabulary.aliases)
  return {
    index,
    lookup,
    vocabulary,
    spelling,
    question,
    tokens,
    text: tokens.text,
    compared: [],
    growth: false,
    values: [],
    booleans: [],
    dimensions: [],
    per: undefined,
    dropped: [],
    counted: undefined,
    record: undefined,
    pending: [],
    unmatched: [],
    attributes: [],
    measureNamed: false,
    valueCounted: false,
  }
}

/**
 * The periods the question names: one range, or several to compare. A number compared with ("orders over 2000") is
 * an amount, not a year; those comparisons become value filters.
 */
export function readPeriods(draft: QuestionDraft): void {
  const { tokens, text, index, question } = draft
  const compared = numberFilters(tokens, index, question)
  // A period named twice in two ways ("yesterday vs the day before": both read as the previous day) is not one the
  // question means twice: the second one's words stay unknown, and the question is declined rather than answered
  // as that day against itself.
  const seenPeriods = new Set<string>()
  const mentions = findPeriods(question).filter((mention) => {
    if (mention.used.length === 1 && compared.some((filter) => filter.words.includes(mention.used[0]))) return false
    const { label: _, ...period } = mention.spec as RangeSpec & { row?: string }
    delete period.row
    const key = JSON.stringify(period)
    if (seenPeriods.has(key)) return false
    seenPeriods.add(key)
    return true
  })
  // "March 2025 vs the same month last year": March 2024, not the latest month a year back.
  const named = mentions.find((mention) => mention.spec.kind === 'absolute')?.spec
  for (const mention of mentions)
    if (named && (mention.spec.kind === 'this' || mention.spec.kind === 'previous') && mention.spec.yearsBack)
      mention.spec = yearEarlier(named) ?? mention.spec
  for (const mention of mentions) {
    const at = tokens.find(mention.used)
    if (at >= 0) tokens.use(...mention.used.map((_, offset) => at + offset))
    else for (const word of mention.used) tokens.use(tokens.find([word]))
  }
  const growth = CUES.growth.test(text)
  const compare = CUES.compare.test(text)
  draft.growth = growth
  let range: RangeSpec | undefined
  let periods: RangeSpec[] | undefined
  // "Revenue by month in 2024 and 2025" asks for the months of both years, not the two years side by side.
  const finerGrain = /\b(by|per|each|every)\s+(day|week|month|quarter)s?\b|\b(daily|weekly|monthly|quarterly)\b/.test(
    text,
  )
  if (mentions.length >= 2 && (growth || compare || !(CUES.span.test(text) || finerGrain)))
    periods = mentions.map((mention) => mention.spec)
  else if (mentions.length >= 2) range = spanOf(mentions.map((mention) => mention.spec)) ?? mentions[0].spec
  else if (mentions.length === 1) range = mentions[0].spec
  if (periods)
    periods.sort((a, b) =>
      a.kind === 'absolute' && b.kind === 'absolute' ? (a.from ?? '').localeCompare(b.from ?? '') : 0,
    )
  // Relative periods in time order too: a year back before last, last before this.
  const age = (spec: RangeSpec) =>
    spec.kind === 'this' || spec.kind === 'previous'
      ? (spec.yearsBack ?? 0) * 100 + (spec.kind === 'previous' ? 1 : 0)
      : 0
  if (periods && periods.every((spec) => spec.kind !== 'absolute')) periods.sort((a, b) => age(b) - age(a))
  draft.range = range
  draft.periods = periods
  draft.compared = compared
}

/** Values, compared numbers and flags the question filters on, and "per customer". */
export function readFilters(draft: QuestionDraft): void {
  const { tokens, index, lookup, values, booleans, dimensions } = draft
  if (lookup)
    values.push(
      ...valuesOf(tokens, index, lookup.values, (value, members) => {
        const titles = members.map((member) => member.title)
        draft.unclearValue ??= `"${value}" is a value of ${titles.slice(0, -1).join(', ')} and ${titles.at(-1)}; say which one you mean (for example "${titles[0].toLowerCase()} ${value}").`
      }),
    )
  for (const filter of draft.compared) {
    values.push({ member: filter.member, values: [String(filter.value)], negated: false, op: filter.op })
    // Only the filter's own words: "Total fee of visits with a fee" still asks for the total fee.
    const at = tokens.find(filter.words)
    if (at >= 0) tokens.use(...filter.words.map((_, offset) => at + offset))
    else for (const word of filter.words) tokens.useWord(word)
  }
  const flags = booleansOf(tokens, index, draft.vocabulary.measureWords)
  for (const flag of flags) {
    tokens.use(...flag.at)
    const both = flags.some((other) => other.member === flag.member && other.value !== flag.value)
    if (both) dimensions.includes(flag.member) || dimensions.push(flag.member)
    else booleans.push({ member: flag.member, value: flag.value, at: Math.min(...flag.at) })
  }
  // Two members of one dimension are compared side by side.
  for (const filter of values) if (filter.values.length > 1 && !filter.negated) dimensions.push(filter.member)
  draft.per = perEntity(tokens, index)
  if (draft.per) tokens.use(...draft.per.at)
}

/**
 * A number column (not a key) that the words of a phrase name only by the words before its table's noun ("rent" of
 * rent_payments), none of the column's own ("amount") nor the noun.
 */
function byTableWordsOnly(member: MetaMember, phrase: readonly string[]): boolean {
  if (member.type !== 'number' || member.primaryKey) return false
  const modifiers = words(member.cube).slice(0, -1)
  const own = [...words(member.name), cubeNoun(member.cube)]
  const named = phrase.filter((word) => modifiers.some((entry) => sameWord(entry, word)))
  return named.length > 0 && !phrase.some((word) => own.some((entry) => sameWord(entry, word)))
}

/** Dropped filters in a follow-up: "without the region filter", "for all regions". */
export function readDroppedFilters(draft: QuestionDraft): void {
  const { tokens, index, dropped } = draft
  for (const [at, word] of tokens.list.entries()) {
    if (!['without', 'remove', 'drop', 'ignore', 'all', 'any', 'every'].includes(word)) continue
    const positions = [at + 1, at + 2, at + 3].filter(
      (position) =>
        position < tokens.length && !['the', 'a', 'filter', 'filters', 'on'].includes(tokens.list[position]),
    )
    const first = positions[0]
    const member =
      first !== undefined
        ? matchDimension(index, [tokens.list[first]], new Set(index.cubes.map((cube) => cube.name)))
        : undefined
    if (
      member &&
      (tokens.list.includes('filter') || tokens.list.includes('filters') || ['all', 'any', 'every'].includes(word))
    ) {
      dropped.push(member)
      tokens.use(at, first)
    }
  }
}

/**
 * Whether words of the question besides a phrase's name a cube: its noun, or a word of its members' names or
 * titles ("average total" names the orders' average_total), counting words aside.
 */
function namesCube(tokens: Tokens, index: MetaIndex, cube: string, phrase: readonly string[]): boolean {
  const entry = index.cubes.find((candidate) => candidate.name === cube)
  if (!entry) return false
  const own = [
    cubeNoun(cube),
    ...[...entry.measures, ...entry.dimensions].flatMap((member) => [
      ...distinctive(member),
      ...words(member.title),
      ...words(member.name.split('.').pop() ?? ''),
    ]),
  ].filter((word) => word.length > 2 && !COUNTING.has(word) && !phrase.some((said) => sameWord(said, word)))
  return tokens.list.some(
    (word) => !phrase.includes(word) && !COUNTING.has(word) && own.some((ownWord) => sameWord(ownWord, word)),
  )
}
const COUNTING = new Set(['number', 'count', 'many', 'how', 'the', 'and', 'all'])

/**
 * A breakdown named only by words that say nothing in most questions ("by group", "by type", "by level"): the words
 * of the model's dimension of that name; else those that name a breakdown, which the model lacks; else none. Passed
 * over, such a breakdown was dropped for a total.
 */
function breakdownOfCommonWords(
  index: MetaIndex,
  phrase: readonly string[],
  tokens: Tokens,
  near: Set<string>,
): string[] {
  const candidates = phrase.filter((word) => STOPWORDS.has(word) && tokens.find([word]) >= 0)
  const member = candidates.length ? matchDimension(index, candidates, near) : undefined
  return member
    ? candidates.filter((word) => mentionsMember(member, word))
    : candidates.filter((word) => BREAKDOWN_NOUNS.has(word))
}

/**
 * The granularity, a ranked count ("top 5"), a single record ranked by a number of its own, and the dimensions the
 * question names by phrases ("by region", "which customers"), with the attributes shown beside them.
 */
export function readDimensionPhrases(draft: QuestionDraft): void {
  const { tokens, index, pending, unmatched, attributes, values, dimensions } = draft
  draft.granularity = granularityOf(tokens)
  const counted = rankedCount(tokens)
  draft.counted = counted
  if (counted) tokens.use(counted.at)

  // Single records ranked by a number of theirs ("the most expensive product"), read before the measure.
  const record = recordOf(tokens, index, (counted?.n ?? 1) > 1)
  draft.record = record

  // Dimensions named by phrases (before the measure, so the measure can be one that reaches them).
  const everywhere = new Set(index.cubes.map((cube) => cube.name))
  const valuesAt = values.flatMap((filter) => (filter.at === undefined ? [] : [filter.at]))
  for (const phrase of dimensionPhrases(tokens, valuesAt)) {
    let free = phrase.words.filter((word) => !STOPWORDS.has(word) && !GRANULARITY[word] && tokens.find([word]) >= 0)
    if (free.length === 0 && phrase.origin === 'by')
      free = breakdownOfCommonWords(index, phrase.words, tokens, everywhere)
    if (free.length === 0) continue
    // ("By user" where the user is a number column, and no other dimension or cube is named so: a breakdown by it.
    // Also where a users cube is named so, but the cube of that column, which the rest of the question names,
    // does not reach it: "number of orders by user" is by the orders' user, not by a user the orders cannot name.)
    const named = matchDimension(index, free, everywhere)
    // (Every word its own: "by units sold" names the measure, not the quantity column.)
    // ("Average revenue per user" divides by the users, which a column of their numbers does not count.)
    const perAverage =
      tokens.has('average') && ['per', 'each', 'every'].includes(tokens.list[tokens.find([free[0]]) - 1])
    const numbered = phrase.origin === 'by' && !perAverage ? matchDimension(index, free, everywhere, true) : undefined
    const column = numbered && free.every((word) => mentionsMember(numbered, word)) ? numbered : undefined
    const member =
      named && column && !reach(index, column.cube).has(named.cube) && namesCube(tokens, index, column.cube, free)
        ? column
        : (named ?? column)
    // "Top 5 tenants by rent paid": a number column ("Rent payment amount") named only by its table's words is the
    // money the ranking is by, not a breakdown by each amount.
    if (member && phrase.origin === 'by' && byTableWordsOnly(member, phrase.words)) continue
    // A breakdown asked for that names nothing of the model stays unknown, never dropped for a total.
    if (!member && phrase.origin === 'by') unmatched.push(...free)
    if (!member || pending.some((entry) => entry.member === member)) continue
    if (record && (record.show.includes(member) || record.words.some((word) => mentionsMember(member, word)))) continue
    pending.push({ member, words: free.filter((word) => mentionsMember(member, word)), origin: phrase.origin })
  }
  // Attributes shown beside the things listed ("with their city", "including segment"): each phrase all the
  // member's own words, never a key, on a cube the listed things reach; added after the breakdowns.
  for (const phrase of pending.length ? attributePhrases(tokens) : []) {
    const free = phrase.filter((word) => !STOPWORDS.has(word) && tokens.find([word]) >= 0)
    const member = free.length ? matchDimension(index, free, everywhere) : undefined
    if (!member || member.primaryKey || /(^|_)id$/.test(member.name)) continue
    if (!free.every((word) => mentionsMember(member, word))) continue
    if ([...pending.map((entry) => entry.member), ...attributes.map((entry) => entry.member)].includes(member)) continue
    if (!pending.some((entry) => reach(index, entry.member.cube).has(member.cube))) continue
    attributes.push({ member, at: free.map((word) => tokens.find([word])) })
  }
  for (const attribute of attributes) tokens.use(...attribute.at)
  if (attributes.length)
    for (const word of ['including', 'include', 'includes', 'plus', 'along', 'together']) tokens.useWord(word)

  // "How many regions are there?": a dimension's values counted, which its listing gives ("6 in all"); not when the
  // words after "how many" name things a cube counts ("how many customers").
  const manyAt = tokens.find(['many'])
  if (manyAt >= 0 && !pending.length && !countedThings(tokens, index)) {
    const after = tokens.list.slice(manyAt + 1, manyAt + 3).filter((word) => !STOPWORDS.has(word))
    // "how many cities", "how many product categories" (the last word the dimension's own).
    const phrase = after.length > 1 && matchDimension(index, after, everywhere) ? after : after.slice(0, 1)
    const member = phrase.length ? matchDimension(index, phrase, everywhere) : undefined
    const noun = phrase.at(-1)
    if (member && noun && member.type !== 'time' && mentionsMember(member, noun)) {
      pending.push({ member, words: phrase, origin: 'which' })
      draft.countsValues = phrase.join(' ')
    }
  }

  // "the Toys category", "region Europe": a filtered dimension's own name is understood with its value.
  // (A number compared or had, "visits with a fee", has its words read with it: the same word elsewhere, "Total fee
  // of visits with a fee", still names the measure.)
  for (const filter of values)
    if (
      filter.op !== '>' &&
      filter.op !== 'none' &&
      !dimensions.includes(filter.member) &&
      !pending.some((entry) => entry.member === filter.member)
    )
      for (const word of distinctive(filter.member)) tokens.useWord(word)
}
