import type { DateSpan, ValueHit } from '../meta-search'
import type { Analysis, BooleanFilter, Frame, Granularity, ValueFilter } from './frame'
import {
  ASC,
  CUES,
  DESC,
  ascending,
  booleansOf,
  denominatorFor,
  numberFilters,
  peopleCube,
  perEntity,
  rankedCount,
  recordOf,
  superlative,
} from './intents'
import type { MetaCube, MetaIndex, MetaMember } from './meta-index'
import {
  cubeNoun,
  cubeOf,
  distinctive,
  keyOf,
  labelDimension,
  matchDimension,
  namesRows,
  reach,
  scoreMeasure,
  timeDimensionFor,
  vocabularyOf,
} from './members'
import { findPeriods, spanOf, yearEarlier, type RangeSpec } from './time-range'
import { Tokens } from './tokens'
import { FILLER, readSpelling, type Reading } from './lexicon'
import {
  countedThings,
  hasWeekday,
  mentionsMember,
  ORDERING,
  ORIGINAL_SYNONYM,
  scopeShare,
  topOfEachGroup,
} from './question-cues'
import { expandMonthAbbreviations, GROUPS, INTENT_WORDS, STOPWORDS, sameWord, stem, words } from './words'
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

/** One question read on its own; `measure` is missing in a follow-up such as "and in 2023?". */
export interface Parsed {
  tokens: Tokens
  measure?: MetaMember
  /** The measure came from words of the question (not only from "how many"). */
  measureNamed: boolean
  dimensions: MetaMember[]
  granularity?: Granularity
  /** "Average monthly revenue": the mean over the periods of the granularity. */
  averagePer?: Granularity
  countsValues?: string
  range?: RangeSpec
  periods?: RangeSpec[]
  top?: Frame['top']
  values: ValueFilter[]
  booleans: BooleanFilter[]
  /** Dimensions whose filters a follow-up drops ("without the region filter", "for all regions"). */
  dropped: MetaMember[]
  analysis: Analysis
  /** Words that may be values of a dimension, to look up. */
  unknown: string[]
  /** A question the analyst understood but cannot answer in one query: why, to say instead of a wrong answer. */
  unsupported?: string
  /** Words read as others ("revnue" as "revenue"), said with the answer. */
  corrections: Reading['corrections']
  /** A word two of the model's words are equally near: asked back. */
  ambiguous?: Reading['ambiguous']
}

/** Nouns of the things ordering makes: "how many orders were placed" counts them, not who placed them. */
const ORDER_NOUNS = new Set(GROUPS.slice(1, 3).flat())

/** Words that rank things by how much they do or are asked for: counted, not summed. */
const BUSY = new Set(['busiest', 'busy', 'quietest', 'popular', 'popularity'])

/** A dimension the question names, waiting for the measure: by its words, and how it was asked for. */
interface PendingDimension {
  member: MetaMember
  words: string[]
  origin: Phrase['origin']
}

/** A question as it is read, step by step: what each step found, for the steps after it. */
interface QuestionDraft {
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
}

/** How measures are scored against words, and whether one reaches the cubes the question needs. */
interface MeasureFit {
  score: (free: string[]) => Array<{ candidate: MetaMember; score: number; matched: number }>
  fits: (measure: MetaMember, extra?: MetaMember[]) => boolean
  /** The cubes of the question's filters and dimensions so far. */
  needed: Set<string>
  /** The words no step has used, bar those that name ranked things. */
  unused: string[]
}

export function parseQuestion(asked: string, index: MetaIndex, lookup: Lookup | undefined): Parsed {
  const draft = readWords(asked, index, lookup)
  readPeriods(draft)
  readFilters(draft)
  readDroppedFilters(draft)
  readDimensionPhrases(draft)
  const fit = measureFit(draft)
  chooseMeasure(draft, fit)
  countTheThingsNamed(draft, fit)
  placeBreakdowns(draft)
  const { analysis, top } = readAnalysis(draft, fit)
  const { tokens, measure, granularity, values, booleans, dimensions, spelling } = draft

  if (analysis.kind === 'share')
    scopeShare(tokens, [...values.filter((filter) => !dimensions.includes(filter.member)), ...booleans])

  // "Average monthly revenue": the mean of the measure over the periods, not an average-type measure.
  const averagePer =
    analysis.kind === 'value' &&
    granularity &&
    measure &&
    ['sum', 'count', 'count_distinct'].includes(measure.type) &&
    tokens.raw.some((word) => ['average', 'avg', 'mean', 'typical'].includes(word))
      ? granularity
      : undefined

  const unknown = unknownWords(draft)
  const unsupported =
    draft.unlinked ??
    draft.tooMany ??
    (top
      ? topOfEachGroup(draft.text, top, [
          ...dimensions.map((dim) => dim.title.toLowerCase()),
          ...(granularity ? [granularity] : []),
        ])
      : undefined)
  return {
    corrections: spelling.corrections,
    ambiguous: spelling.ambiguous,
    unsupported,
    tokens,
    measure,
    measureNamed: draft.measureNamed,
    averagePer,
    countsValues: draft.countsValues,
    dimensions,
    granularity,
    range: draft.range,
    periods: draft.periods,
    top,
    values,
    booleans,
    dropped: draft.dropped,
    analysis,
    unknown,
  }
}

/** The question's words: misspellings read as the model's words, filler no part of it, cube nouns known. */
function readWords(asked: string, index: MetaIndex, lookup: Lookup | undefined): QuestionDraft {
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
function readPeriods(draft: QuestionDraft): void {
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
function readFilters(draft: QuestionDraft): void {
  const { tokens, index, lookup, values, booleans, dimensions } = draft
  if (lookup) values.push(...valuesOf(tokens, index, lookup.values))
  for (const filter of draft.compared) {
    values.push({ member: filter.member, values: [String(filter.value)], negated: false, op: filter.op })
    for (const word of filter.words) tokens.useWord(word)
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

/** Dropped filters in a follow-up: "without the region filter", "for all regions". */
function readDroppedFilters(draft: QuestionDraft): void {
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
 * The granularity, a ranked count ("top 5"), a single record ranked by a number of its own, and the dimensions the
 * question names by phrases ("by region", "which customers"), with the attributes shown beside them.
 */
function readDimensionPhrases(draft: QuestionDraft): void {
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
  for (const phrase of dimensionPhrases(tokens)) {
    const free = phrase.words.filter((word) => !STOPWORDS.has(word) && !GRANULARITY[word] && tokens.find([word]) >= 0)
    if (free.length === 0) continue
    const member = matchDimension(index, free, everywhere)
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
  for (const filter of values)
    if (!dimensions.includes(filter.member) && !pending.some((entry) => entry.member === filter.member))
      for (const word of distinctive(filter.member)) tokens.useWord(word)
}

/**
 * How measures score against words, and which reach every dimension and filter. Words that name ranked things
 * ("our 3 biggest customers") are not measures.
 */
function measureFit(draft: QuestionDraft): MeasureFit {
  const { tokens, index, pending, values, booleans, dimensions, vocabulary } = draft
  const ranked = new Set(pending.filter((entry) => entry.origin !== 'by').flatMap((entry) => entry.words))
  const needed = new Set([
    ...values.map((filter) => filter.member.cube),
    ...booleans.map((filter) => filter.member.cube),
    ...dimensions.map((dim) => dim.cube),
  ])
  return {
    score: (free) =>
      index.cubes
        .flatMap((cube) => cube.measures)
        .map((candidate) => ({ candidate, ...scoreMeasure(free, candidate, vocabulary.nouns) }))
        .filter((entry) => entry.score > 0)
        .sort((a, b) => b.score - a.score || b.matched - a.matched),
    fits: (measure, extra = []) =>
      [...needed, ...extra.map((dim) => dim.cube)].every((cube) => reach(index, measure.cube).has(cube)),
    needed,
    unused: tokens.list.filter((word, at) => !tokens.isUsed(at) && !ranked.has(word)),
  }
}

/** "Sales by product category" where the orders' revenue does not reach products: the revenue of the lines that do. */
const revenueLike = (entry: MetaMember) =>
  entry.type === 'sum' &&
  entry.format === 'currency' &&
  /\b(revenue|sales)\b/i.test([entry.name.replace(/_/g, ' '), entry.title, ...(entry.synonyms ?? [])].join(' '))

/**
 * The measure: the best-scoring one that reaches every dimension and filter, else the best. Words that qualify a
 * filter ("Corporate customers") are not measures unless nothing else names one. Without a measure named: the
 * events counted for "the busiest", the main money measure for a ranking, a cube's count for its noun.
 */
function chooseMeasure(draft: QuestionDraft, fit: MeasureFit): void {
  const { tokens, index, pending, values, booleans } = draft
  const { score, fits, unused } = fit
  const filterNouns = new Set([...values, ...booleans].map((filter) => cubeNoun(filter.member.cube)))
  const pendingMembers = pending.map((entry) => entry.member)
  const counting = tokens.has('many', 'number', 'count', 'average')
  const pick = (scored: ReturnType<typeof score>) => {
    // (Asked for by its own word, it goes before a count named by the breakdown's noun: "sales by product category".)
    const asked = tokens.list.some((word) => /^(revenue|sales)$/.test(word))
    const top = asked ? scored.find((entry) => entry.matched > 0 && revenueLike(entry.candidate)) : scored[0]
    if (top && top.matched > 0 && revenueLike(top.candidate) && !fits(top.candidate, pendingMembers)) {
      const reaching = index.cubes
        .flatMap((cube) => cube.measures)
        .find((entry) => entry !== top.candidate && revenueLike(entry) && fits(entry, pendingMembers))
      if (reaching) return { ...top, candidate: reaching }
    }
    let choice =
      scored.find((entry) => fits(entry.candidate, pendingMembers)) ??
      scored.find((entry) => fits(entry.candidate)) ??
      scored[0]
    if (choice && choice.matched === 0 && !counting && choice.score < 1)
      choice = scored.find((entry) => entry.matched > 0 && fits(entry.candidate, pendingMembers)) ?? choice
    return choice
  }
  let choice = pick(score(unused.filter((word) => ![...filterNouns].some((noun) => sameWord(noun, word)))))
  // "VIP customers" qualifies the filter, unless nothing else names what to count ("how many VIP customers").
  let qualifierOnly = false
  if (!choice || choice.matched === 0) {
    const retry = pick(score(unused))
    if (retry && retry.matched > 0) qualifierOnly = true
    choice = retry ?? choice
  }
  let measure: MetaMember | undefined = choice?.candidate
  // Named by its own words, or by a counting cue: not just by the noun of its cube ("customers" in "top customers").
  let measureNamed = ((choice?.matched ?? 0) > 0 && !qualifierOnly) || (measure !== undefined && counting)
  const ranking =
    Boolean(draft.counted) || superlative(tokens) || CUES.growth.test(draft.text) || CUES.compare.test(draft.text)
  // "The busiest doctor", "the most popular service" (in a model that sells nothing): the rows of the table that
  // records what they do, counted: its own date and most lookups make it the record of events, never the things'
  // own table (each service is one service).
  const busy = tokens.raw.some((word) => BUSY.has(word))
  if ((!choice || choice.score < 1 || choice.matched === 0) && busy && !counting) {
    const events = busiestEvents(draft, fit)
    if (events) {
      measure = events
      measureNamed = false
      choice = { candidate: measure, score: 1, matched: 0 }
      tokens.useWord('sold')
    }
  }
  if ((!choice || choice.score < 1 || choice.matched === 0) && ranking && !counting && !busy) {
    // "Which category grew fastest", "our 3 biggest customers": the main money measure that reaches them.
    // (The one the model calls revenue or sales, where it has more than one.)
    const moneys = index.cubes
      .flatMap((cube) => cube.measures)
      .filter((entry) => entry.type === 'sum' && entry.format === 'currency' && fits(entry, pendingMembers))
    const money =
      moneys.find((entry) =>
        [entry.name.split('.').pop() ?? '', ...(entry.synonyms ?? [])].some((word) => /^(revenue|sales)$/i.test(word)),
      ) ?? moneys[0]
    if (money) ((measure = money), (measureNamed = false))
  }
  if (!measure) {
    const cube = index.cubes.find(
      (entry) =>
        entry.measures.length &&
        tokens.find([cubeNoun(entry.name)]) >= 0 &&
        [...fit.needed].every((name) => reach(index, entry.name).has(name)),
    )
    measure = cube?.measures.find((entry) => entry.type === 'count')
  }
  draft.measure = measure
  draft.measureNamed = measureNamed
}

/** The count of the table that records events, for "the busiest" things: dated, and looking up the most. */
function busiestEvents(draft: QuestionDraft, fit: MeasureFit): MetaMember | undefined {
  const { index } = draft
  const pendingMembers = draft.pending.map((entry) => entry.member)
  const things = new Set(pendingMembers.map((member) => member.cube))
  const dated = (cube: MetaCube) => cube.dimensions.some((dim) => dim.type === 'time')
  const events = index.cubes
    .filter((cube) => !things.has(cube.name))
    .flatMap((cube) => cube.measures.filter((entry) => entry.type === 'count').slice(0, 1))
    .filter((entry) => fit.fits(entry, pendingMembers))
    .sort((a, b) => {
      const [left, right] = [cubeOf(index, a.cube)!, cubeOf(index, b.cube)!]
      return Number(dated(right)) - Number(dated(left)) || right.lookups.length - left.lookups.length
    })
  return events[0]
}

/**
 * The things counted, where the question names them rather than a measure: the things a status value marks
 * ("cancellations"), the values listed ("what regions are there"), the things after "how many" ("how many orders
 * ... by VIP customers"). Sets why they cannot be counted when the model does not link them to the breakdown.
 */
function countTheThingsNamed(draft: QuestionDraft, fit: MeasureFit): void {
  const { tokens, index, pending, values, dropped } = draft
  const { fits } = fit
  const pendingMembers = pending.map((entry) => entry.member)
  let measure = draft.measure
  // "Cancellations by month", "the cancellation rate": the things a status value marks, counted (and their rate is
  // their share; a model with a rate measure of its own has it matched above).
  if (!measure && values.length === 1 && !values[0].negated && !values[0].op && values[0].member.type === 'string') {
    const cube = cubeOf(index, values[0].member.cube)
    const count = cube?.measures.find((entry) => entry.type === 'count')
    if (count && fits(count, pendingMembers) && tokens.raw.some((word) => ORIGINAL_SYNONYM.test(word))) {
      measure = count
      draft.valueCounted = true
    }
  }
  // "List all regions" (read above as the region filter dropped): the regions listed, nothing else being asked.
  if (!measure && !pending.length && dropped.length === 1 && ['list', 'show'].includes(tokens.list[0] ?? ''))
    pending.push({ member: dropped.pop()!, words: [], origin: 'which' })
  const listed = pending[0]?.member
  const ownCount =
    measure?.type === 'count' &&
    measure.cube === listed?.cube &&
    namesRows(index, listed) &&
    cubeOf(index, listed.cube)?.dimensions.every((dim) => dim.primaryKey || dim === listed)
  if ((!measure || ownCount) && pending.length && pending.every((entry) => entry.origin === 'which')) {
    const count = listedValuesCount(draft)
    if (count && fits(count, pendingMembers)) measure = count
  }
  draft.measure = measure
  // "How many orders ... by VIP customers": the things counted are the ones named after "how many", whatever else
  // the question names; "how many customers ordered" counts the customers who ordered, not those who signed up.
  const countedCube = countedThings(tokens, index)
  if (countedCube) countThingsAfterHowMany(draft, fit, countedCube)
  if (draft.measure) for (const word of distinctive(draft.measure)) tokens.useWord(word)
}

/**
 * "What regions are there?": the values listed with the count of the things they describe. Values naming the rows
 * of a table that holds nothing else (a table of regions) each count one: the things that look them up are counted
 * instead, when one table does. (Products, with prices of their own, are listed.)
 */
function listedValuesCount(draft: QuestionDraft): MetaMember | undefined {
  const { index, pending } = draft
  const cube = cubeOf(index, pending[0].member.cube)
  let count = cube?.measures.find((entry) => entry.type === 'count')
  const lookupOnly =
    cube?.dimensions.every((dim) => dim.primaryKey || dim === pending[0].member) &&
    cube.measures.every((entry) => entry.type === 'count')
  if (cube && lookupOnly && namesRows(index, pending[0].member)) {
    const describing = index.cubes.filter(
      (entry) => entry.name !== cube.name && entry.joins.includes(cube.name) && entry.lookups.includes(cube.name),
    )
    const theirs = describing.length === 1 ? describing[0].measures.find((entry) => entry.type === 'count') : undefined
    if (theirs) count = theirs
  }
  return count
}

/** The things named after "how many" counted, whatever else the question names, or why they cannot be. */
function countThingsAfterHowMany(draft: QuestionDraft, fit: MeasureFit, countedCube: string): void {
  const { tokens, index, per } = draft
  const { fits } = fit
  const pendingMembers = draft.pending.map((entry) => entry.member)
  let measure = draft.measure
  // "How many orders does a customer place": a sum named by nothing but the things counted ("units on order") is
  // no count of them.
  if (
    measure &&
    !['count', 'count_distinct'].includes(measure.type) &&
    tokens.has('many') &&
    distinctive(measure)
      .filter((word) => word.length > 2 && tokens.list.some((entry) => sameWord(entry, word)))
      .every((word) => sameWord(word, cubeNoun(countedCube)))
  ) {
    const own = cubeOf(index, countedCube)?.measures.find((entry) => entry.type === 'count')
    if (own && fits(own, pendingMembers)) measure = own
  }
  // ("The number of items per order" counts items, divided by orders: not orders per order.)
  const countsPerItself = per !== undefined && per.cube === countedCube
  if (measure && ['count', 'count_distinct'].includes(measure.type) && !countsPerItself) {
    const noun = cubeNoun(countedCube)
    // "How many orders were placed": the orders themselves, not the distinct orders some other table names.
    const orderLike = [noun, ...(cubeOf(index, countedCube)?.synonyms ?? [])].some((word) =>
      ORDER_NOUNS.has(word.toLowerCase()),
    )
    const ordering = !orderLike && [...tokens.raw, ...tokens.list].some((word) => ORDERING.has(word))
    const distinctOf = () =>
      index.cubes
        .filter((cube) => cube.name !== countedCube && reach(index, cube.name).has(countedCube))
        .flatMap((cube) => cube.measures)
        .filter((entry) => entry.type === 'count_distinct' && distinctive(entry).some((word) => sameWord(word, noun)))
    const own = cubeOf(index, countedCube)?.measures.find((entry) => entry.type === 'count')
    // "How many films are in each category", where films reach categories only through a bridge table: the distinct
    // films the bridge names, by category (its rows would count a film once per category it is in, which is the same;
    // another table's rows would not be films).
    const linked =
      own && !fits(own, pendingMembers) ? distinctOf().find((entry) => fits(entry, pendingMembers)) : undefined
    const distinct = ordering ? distinctOf()[0] : linked
    const counted = distinct ?? own
    if (counted && counted !== measure && fits(counted, pendingMembers)) {
      measure = counted
      draft.measureNamed = true
    }
  }
  draft.measure = measure
  // "Number of books by home branch" where books do not reach branches: counting something else (the loans, which
  // reach both) would answer another question.
  if (measure && ['count', 'count_distinct'].includes(measure.type) && !countsPerItself) {
    const noun = cubeNoun(countedCube)
    const countsIt =
      measure.cube === countedCube ||
      (measure.type === 'count_distinct' && distinctive(measure).some((word) => sameWord(word, noun)))
    const apart = pendingMembers.filter((member) => !reach(index, countedCube).has(member.cube))
    if (!countsIt && apart.length)
      draft.unlinked = `the model does not link ${(cubeOf(index, countedCube)?.title ?? noun).toLowerCase()} to ${apart.map((member) => member.title.toLowerCase()).join(' or ')}, so they cannot be counted by it.`
  }
}

/**
 * The dimensions named, placed beside the measure: a breakdown asked for is never dropped (more than three at once
 * are declined), one that names the measure is no dimension; "who spent the most" ranks the people behind it.
 */
function placeBreakdowns(draft: QuestionDraft): void {
  const { tokens, index, dimensions, measure, values, booleans } = draft
  for (const entry of draft.pending) {
    // "by units sold" names the measure, not a dimension.
    // ("by total payments", read as the payments' key, names the measure of the payments too.)
    if (
      measure &&
      entry.origin === 'by' &&
      (entry.words.every((word) => distinctive(measure).some((own) => sameWord(own, word))) ||
        (entry.member.primaryKey && entry.member.cube === measure.cube))
    )
      continue
    if (!dimensions.includes(entry.member) && dimensions.length < 3) dimensions.push(entry.member)
    else if (!dimensions.includes(entry.member))
      draft.tooMany = `I break a figure down by at most three things at once; ask for ${[...dimensions, entry.member].map((dim) => dim.title.toLowerCase()).join(', ')} in two questions.`
    for (const word of entry.words) tokens.useWord(word)
    tokens.useWord(cubeNoun(entry.member.cube))
  }
  for (const { member } of draft.attributes)
    if (dimensions.length && !dimensions.includes(member)) dimensions.push(member)
  // "Who spent the most in Europe?": the people behind the measure, ranked; not the measure's total.
  if (measure && !draft.record && dimensions.length === 0 && (superlative(tokens) || tokens.has('most', 'least'))) {
    const people = peopleCube(tokens, reach(index, measure.cube))
    const label = people ? labelDimension(index, people) : undefined
    if (label) dimensions.push(label)
  }
  for (const filter of [...values, ...booleans]) tokens.useWord(cubeNoun(filter.member.cube))
  if (measure) for (const cube of reach(index, measure.cube)) tokens.useWord(cubeNoun(cube))
  if (measure && (draft.granularity || draft.range || draft.periods)) {
    const time = timeDimensionFor(index, tokens.list, measure.cube)
    if (time) for (const word of distinctive(time)) tokens.useWord(word)
  }
}

/** What kind of analysis the question asks for, and what it ranks. */
function readAnalysis(draft: QuestionDraft, fit: MeasureFit): { analysis: Analysis; top: Frame['top'] } {
  const { tokens, index, dimensions, record, counted, per, granularity, periods, growth, text } = draft
  let measure = draft.measure
  let analysis: Analysis = { kind: 'value' }
  let top: Frame['top']
  if (record && !dimensions.length) {
    analysis = { kind: 'record', attribute: record.attribute, direction: record.direction, show: record.show }
    for (const word of record.words) tokens.useWord(word)
    for (const member of record.show) tokens.useWord(cubeNoun(member.cube))
    top = { n: counted?.n ?? 1, direction: record.direction }
  } else if (per && measure) {
    // "Orders per customer" lists the customers, each with its orders (things with names are rows to list);
    // "average revenue per customer", "orders per customer on average" divide by the customers who ordered, and
    // "revenue per order" (things without names, or the measure's own rows) is one mean.
    const denominator = denominatorFor(index, measure, per.cube)
    const label = labelDimension(index, per.cube)
    const named = namesRows(index, label) ? label : undefined
    if (denominator && (per.cube === measure.cube || per.average || !named))
      analysis = { kind: 'ratio', denominator, per: per.noun }
    else if (named && !dimensions.includes(named)) {
      dimensions.push(named)
      // The same words from a cube that reaches the things listed ("revenue per product" is product revenue).
      if (!reach(index, measure.cube).has(named.cube))
        measure = fit.score(fit.unused).find((entry) => fit.fits(entry.candidate, [named]))?.candidate ?? measure
    }
  } else if (
    measure &&
    measure.type === 'sum' &&
    !granularity &&
    !periods &&
    !record &&
    !counted &&
    tokens.raw.some((word) => ['average', 'avg', 'mean', 'typical'].includes(word))
  ) {
    // "The average discount": a sum has no average of its own; it is the mean of the rows it adds up, per order.
    const denominator = denominatorFor(index, measure, measure.cube)
    if (denominator) analysis = { kind: 'ratio', denominator, per: stem(cubeNoun(measure.cube)) }
  } else if (CUES.why.test(text)) analysis = { kind: 'why', drivers: [] }
  else if ((CUES.share.test(text) || (draft.valueCounted && /\brate\b/.test(text))) && !(growth && periods))
    analysis = { kind: 'share' }
  // "The difference between Oceania and Africa revenue in 2025" is between the two, side by side, not over time.
  else if (growth && /\bdifference\b/.test(text) && !periods && dimensions.length > 0) analysis = { kind: 'value' }
  else if (growth) analysis = { kind: 'growth', rank: growthRank(tokens, text) }
  else if (periods) analysis = { kind: 'compare' }
  draft.measure = measure
  if (!top && analysis.kind !== 'growth') top = rankedTop(draft)
  return { analysis, top }
}

/** How a growth question ranks: by change or by percent, rising or falling; nothing without a superlative. */
function growthRank(tokens: Tokens, text: string): Extract<Analysis, { kind: 'growth' }>['rank'] {
  const fastest = /\b(fastest|percent|percentage|relative)\b/.test(text)
  const falling = /\b(fell|fall|fallen|drop|dropped|decline[sd]?|decrease[sd]?|worst|least|lowest|shrank)\b/.test(text)
  return superlative(tokens) || /\bmost\b/.test(text)
    ? {
        by: fastest ? ('percent' as const) : ('change' as const),
        direction: falling ? ('asc' as const) : ('desc' as const),
      }
    : undefined
}

/** How many of the dimension's values the question asks for, in which direction: "top 5", "the least popular". */
function rankedTop(draft: QuestionDraft): Frame['top'] {
  const { tokens, counted, dimensions, granularity } = draft
  if (counted) return { n: counted.n, direction: ascending(tokens) ? 'asc' : 'desc' }
  // A superlative that named the measure ("smallest order by segment") ranks nothing.
  if (
    tokens.list.some((word, at) => !tokens.isUsed(at) && (DESC.includes(word) || ASC.includes(word))) &&
    (dimensions.length || granularity)
  ) {
    // "the least popular product" is one; "the best-selling products" a short list.
    const plural = draft.pending.some(
      (entry) =>
        entry.origin === 'rank' &&
        entry.words.some(
          (word) =>
            stem(word) !== word &&
            (!tokens.has('which', 'what', 'who') || tokens.raw.some((said) => ['are', 'were'].includes(said))),
        ),
    )
    return { n: plural ? 5 : 1, direction: ascending(tokens) ? 'asc' : 'desc' }
  }
  if (tokens.has('top', 'bottom') && dimensions.length)
    return { n: 5, direction: tokens.has('bottom') ? 'asc' : 'desc' }
  return undefined
}

/** Words nobody understood: to look up as values first, then to say plainly. */
function unknownWords(draft: QuestionDraft): string[] {
  const { tokens, index, measure, text } = draft
  const explained = new Set(
    words(
      [
        cubeOf(index, measure?.cube ?? '')?.description ?? '',
        measure?.description ?? '',
        ...(measure ? [...reach(index, measure.cube)].map((cube) => cubeOf(index, cube)?.title ?? '') : []),
      ].join(' '),
    ),
  )
  const unknown = tokens
    .unused()
    .filter(
      ({ word }) =>
        !STOPWORDS.has(word) &&
        !FILLER.has(word) &&
        !INTENT_WORDS.has(word) &&
        !GRANULARITY[word] &&
        !explained.has(word),
    )
    .map(({ word }) => word)
  for (const word of draft.unmatched)
    if (tokens.find([word]) >= 0 && !unknown.includes(word) && !STOPWORDS.has(word) && !INTENT_WORDS.has(word))
      unknown.push(word)
  // Weekdays are no period of the data (granularityOf passes them over): said plainly, not read as days or weeks.
  const weekday = /\b(days? of (the )?week|weekdays?|day-of-week)\b/.exec(text)
  if (weekday && !hasWeekday(index))
    for (const word of words(weekday[0])) if (!unknown.includes(word)) unknown.push(word)
  // Words a dimension's description mentions ("completed, shipped, ...") may be values even when a measure uses them.
  if (!draft.lookup)
    for (const word of tokens.list)
      if (
        draft.vocabulary.described.has(word) &&
        !STOPWORDS.has(word) &&
        !unknown.includes(word) &&
        !INTENT_WORDS.has(word)
      )
        unknown.push(word)
  return unknown
}

/** Adds the key beside a label dimension: `customers.name` is grouped by `customers.id` too. */
export function withKeys(index: MetaIndex, dimensions: MetaMember[]): MetaMember[] {
  return dimensions.flatMap((dim) => {
    const key = keyOf(index, dim)
    return key && !dimensions.includes(key) ? [key, dim] : [dim]
  })
}

export { timeDimensionFor }
