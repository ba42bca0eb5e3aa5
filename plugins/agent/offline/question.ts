import type { Analysis, BooleanFilter, Frame, Granularity, ValueFilter } from './frame'
import type { MetaIndex, MetaMember } from './meta-index'
import { keyOf, timeDimensionFor } from './members'
import type { RangeSpec } from './time-range'
import type { Tokens } from './tokens'
import type { Reading } from './lexicon'
import { scopeShare, topOfEachGroup } from './question-cues'
import {
  readDimensionPhrases,
  readDroppedFilters,
  readFilters,
  readPeriods,
  readWords,
  type Lookup,
  type QuestionDraft,
} from './question-draft'
import { chooseMeasure, countTheThingsNamed, measureFit } from './question-measure'
import { placeBreakdowns, readAnalysis, unknownWords } from './question-analysis'

export type { Lookup }

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
  /** An extreme ("the largest") with no measure of one: declined when no breakdown ranks it either. */
  extreme?: string
  /** A word two of the model's words are equally near: asked back. */
  ambiguous?: Reading['ambiguous']
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
    draft.unclearValue ??
    (top
      ? topOfEachGroup(draft.text, top, [
          ...dimensions.map((dim) => dim.title.toLowerCase()),
          ...(granularity ? [granularity] : []),
        ])
      : undefined)
  return {
    corrections: spelling.corrections,
    ambiguous: spelling.ambiguous,
    extreme: extremeOfOne(draft),
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

const EXTREME_WORDS = new Set(['largest', 'biggest', 'highest', 'greatest', 'maximum', 'max', 'heaviest', 'smallest'])
EXTREME_WORDS.add('lowest').add('minimum').add('min').add('lightest').add('tiniest')

/**
 * "What was the largest freight cost?" where the model has only its total and average: the extreme word of a single
 * row's value, which no measure of the question gives (`understood` declines it where nothing ranks either).
 */
function extremeOfOne(draft: QuestionDraft): string | undefined {
  const { tokens, measure } = draft
  if (measure && ['max', 'min'].includes(measure.type)) return undefined
  if (draft.record || draft.counted || draft.periods) return undefined
  return tokens.raw.find((word) => EXTREME_WORDS.has(word))
}

/** Adds the key beside a label dimension: `customers.name` is grouped by `customers.id` too. */
export function withKeys(index: MetaIndex, dimensions: MetaMember[]): MetaMember[] {
  return dimensions.flatMap((dim) => {
    const key = keyOf(index, dim)
    return key && !dimensions.includes(key) ? [key, dim] : [dim]
  })
}

export { timeDimensionFor }
