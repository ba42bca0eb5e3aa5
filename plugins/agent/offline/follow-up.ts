import type { Frame } from './frame'
import type { MetaIndex, MetaMember } from './meta-index'
import { ASC, CUES, DESC } from './intents'
import { cubeOf, keyOf, timeDimensionFor } from './members'
import type { Parsed } from './question'
import { previousOf } from './question-phrases'
import { inYear, yearEarlier, type RangeSpec } from './time-range'
import { sameWord } from './words'

/** Words that open a follow-up: the question changes the previous one instead of standing alone. */
const FOLLOW_UP =
  /^\s*(and|but|what about|how about|now|only|just|also|same|then|instead|break|split|exclude|excluding|without|remove|drop|compare (?:it |that |this )?(?:with|to)|versus|vs|why|in|for|by|what if|ok|okay|so|limit|show only)\b/i
const PRONOUN = /\b(it|that|this|those|these|them|same)\b/i

/** "How many of those were cancelled?": a part of what the previous answer counted. */
const OF_THOSE = /\b(of|among|from) (those|these|them)\b/i

/** "the year before", "the previous quarter": the period before the one the thread is about, not before today. */
const BEFORE_THAT =
  /\b(?:the\s+(day|week|month|quarter|year)\s+before|(?:previous|prior|preceding)\s+(day|week|month|quarter|year))\b/

/**
 * Whether a question names what to measure by the things it counts ("What share of orders had a discount?" counts
 * orders, though "orders" also qualifies the discount): then it is complete, and starts afresh.
 */
function countsNamedThings(parsed: Parsed): boolean {
  const measure = parsed.measure
  if (!measure || !['count', 'count_distinct'].includes(measure.type)) return false
  const noun = measure.cube.split('_').at(-1) ?? measure.cube
  return (
    /^\s*(what|how|which|who|show|list|give|number|count|share|percentage)\b/i.test(parsed.tokens.text) &&
    parsed.tokens.raw.some((word) => sameWord(word, noun))
  )
}

export function isFollowUp(question: string, parsed: Parsed): boolean {
  return (
    FOLLOW_UP.test(question) ||
    OF_THOSE.test(question) ||
    (!parsed.measureNamed && !countsNamedThings(parsed)) ||
    (PRONOUN.test(question) && parsed.unknown.length === 0 && !parsed.dimensions.length && !parsed.values.length)
  )
}

/** The drivers of a measure for "why": how many rows, and the average of the same column. */
function driversOf(index: MetaIndex, measure: MetaMember): MetaMember[] {
  const measures = cubeOf(index, measure.cube)?.measures ?? []
  const count = measures.find((entry) => entry.type === 'count' && entry.name === 'count')
  const column = measure.name.split('_').filter((word) => !['total', 'sum', 'count'].includes(word))
  const average = measures.find(
    (entry) => entry.type === 'avg' && entry.name.split('_').some((word) => column.includes(word)),
  )
  return measure.type === 'sum' ? [count, average].filter((entry): entry is MetaMember => entry !== undefined) : []
}

/** A granularity finer than a year: growth reads along it, period by period. */
const finer = (granularity: Frame['granularity']) => granularity !== undefined && granularity !== 'year'

/**
 * The frame of a question: on its own, or, for a follow-up ("and in 2023?", "break it down by segment", "only for
 * VIP customers", "exclude Corporate", "why ..."), the previous question's frame with this question's changes.
 */
export function frameOf(
  parsed: Parsed,
  index: MetaIndex,
  base: Frame | undefined,
  followUp: boolean,
): Frame | undefined {
  if (base && followUp) parsed = withPeriodsOf(parsed, base)
  const frame = base && followUp ? changedFrame(parsed, index, base) : ownFrame(parsed)
  if (!frame) return undefined
  if (frame.analysis.kind === 'why') frame.analysis = { kind: 'why', drivers: driversOf(index, frame.measure) }
  if (frame.analysis.kind === 'compare' && !frame.periods && frame.range && base?.range)
    frame.periods = [base.range, frame.range]
  if (frame.periods && frame.analysis.kind === 'value') frame.analysis = { kind: 'compare' }
  if (frame.periods)
    frame.periods = [...frame.periods].sort((a, b) =>
      a.kind === 'absolute' && b.kind === 'absolute'
        ? (a.from ?? '').localeCompare(b.from ?? '')
        : a.kind === 'previous'
          ? -1
          : b.kind === 'previous'
            ? 1
            : 0,
    )
  // A filter on a name ("How much did Ada Rossi spend?") is one row per thing of that name, by its key: sixteen
  // customers named Ada Rossi were summed into one number.
  if (frame.analysis.kind === 'value')
    for (const filter of frame.values)
      if (!filter.negated && !filter.op && keyOf(index, filter.member) && !frame.dimensions.includes(filter.member))
        frame.dimensions = [...frame.dimensions, filter.member]
  const needsTime = frame.granularity || frame.range || frame.periods
  frame.timeDimension = needsTime ? timeDimensionFor(index, parsed.tokens.list, frame.measure.cube) : undefined
  return frame
}

/**
 * A follow-up's periods read against the thread's: "and April?" after 2025 is April 2025, "and the year before?"
 * after 2023 is 2022 (after Q2 2025, Q2 2024), "and the same month last year?" after March 2025 is March 2024.
 */
function withPeriodsOf(parsed: Parsed, base: Frame): Parsed {
  // "what about Q2?", "and April?" after a question about 2025 mean Q2 and April of 2025.
  const baseFrom = [base.range, ...(base.periods ?? [])].find((spec) => spec?.kind === 'absolute' && spec.from)
  const baseYear = baseFrom?.kind === 'absolute' ? Number(baseFrom.from!.slice(0, 4)) : undefined
  const dated = (spec: RangeSpec): RangeSpec =>
    spec.kind === 'partOfYear' && baseYear !== undefined ? inYear(spec, baseYear) : spec
  // "Revenue in 2023" → "and the year before?" is 2022: counted back from the thread's period, when it is one
  // period of that unit (from the latest date in the data, it was 2024).
  const single = base.range?.kind === 'absolute' && !base.periods ? base.range : undefined
  const before = BEFORE_THAT.exec(parsed.tokens.text)
  const unit = before?.[1] ?? before?.[2]
  const earlier = single && parsed.range?.kind === 'previous' && unit ? previousOf(single) : undefined
  const months = (spec: RangeSpec | undefined) =>
    spec?.kind === 'absolute' && spec.from && spec.to
      ? (Number(spec.to.slice(0, 4)) - Number(spec.from.slice(0, 4))) * 12 +
        Number(spec.to.slice(5, 7)) -
        Number(spec.from.slice(5, 7))
      : undefined
  const sameUnit = months(single) === ({ month: 1, quarter: 3, year: 12 } as Record<string, number>)[unit ?? '']
  // "The year before" Q2 2025 is Q2 2024: a shifted period keeps its grain (it answered all of 2024).
  const shorter = (months(single) ?? 12) < 12
  const yearBack =
    single && parsed.range?.kind === 'previous' && unit === 'year' && shorter ? yearEarlier(single) : undefined
  // "and the same month last year?" after March 2025 is March 2024.
  const sameLastYear =
    single && (parsed.range?.kind === 'this' || parsed.range?.kind === 'previous') && parsed.range.yearsBack
      ? yearEarlier(single)
      : undefined
  return {
    ...parsed,
    range: sameLastYear ?? yearBack ?? (earlier && sameUnit ? earlier : parsed.range && dated(parsed.range)),
    periods: parsed.periods?.map(dated),
  }
}

/** The thread's frame with a follow-up's changes: its measure, periods, breakdowns, filters, ranking and analysis. */
function changedFrame(parsed: Parsed, index: MetaIndex, base: Frame): Frame | undefined {
  let frame: Frame = {
    ...base,
    dimensions: [...base.dimensions],
    values: [...base.values],
    booleans: [...base.booleans],
  }
  if (parsed.measure && parsed.measureNamed) frame.measure = parsed.measure
  if (parsed.periods) frame = { ...frame, periods: parsed.periods, range: undefined }
  else if (parsed.range) {
    const growth =
      parsed.analysis.kind === 'growth' || /\b(grow|grew|growth|change|increase|compare)/.test(parsed.tokens.text)
    if (growth && (base.range || base.periods))
      frame = { ...frame, periods: [parsed.range, base.range ?? base.periods!.at(-1)!], range: undefined }
    else
      frame = {
        ...frame,
        range: parsed.range,
        periods: undefined,
        analysis:
          frame.analysis.kind === 'compare' || frame.analysis.kind === 'growth' ? { kind: 'value' } : frame.analysis,
      }
  }
  if (/\binstead\b/.test(parsed.tokens.text) && parsed.dimensions.length) frame.dimensions = []
  for (const dim of parsed.dimensions) if (!frame.dimensions.includes(dim)) frame.dimensions.push(dim)
  if (parsed.granularity) frame.granularity = parsed.granularity
  // "Why is North America the highest?" names the member to explain, not a filter.
  // "compare with Asia" after Europe: both side by side, not Asia instead.
  const comparing = CUES.compare.test(parsed.tokens.text)
  for (const filter of parsed.analysis.kind === 'why' ? [] : parsed.values) {
    const before = frame.values.find((entry) => entry.member === filter.member)
    frame.values = frame.values.filter((entry) => entry.member !== filter.member)
    if (comparing && before && !before.negated && !filter.negated && !before.op && !filter.op) {
      frame.values.push({ ...filter, values: [...new Set([...before.values, ...filter.values])] })
      if (!frame.dimensions.includes(filter.member)) frame.dimensions.push(filter.member)
    } else frame.values.push({ ...filter, scope: true })
  }
  for (const flag of parsed.booleans) {
    frame.booleans = frame.booleans.filter((entry) => entry.member !== flag.member)
    frame.booleans.push(flag)
  }
  for (const member of parsed.dropped) {
    // The breakdown a name's filter brought (one row per thing of that name) goes with it.
    const named = frame.values.some(
      (entry) =>
        entry.member === member && !entry.negated && !entry.op && entry.values.length === 1 && keyOf(index, member),
    )
    if (named) frame.dimensions = frame.dimensions.filter((dim) => dim !== member)
    frame.values = frame.values.filter((entry) => entry.member !== member)
    frame.booleans = frame.booleans.filter((entry) => entry.member !== member)
  }
  if (parsed.top) frame.top = parsed.top
  if (parsed.analysis.kind !== 'value') frame.analysis = parsed.analysis
  else if (parsed.measure && parsed.measureNamed && frame.analysis.kind === 'ratio') frame.analysis = { kind: 'value' }
  // "and the lowest?", "and the worst?" after a ranking turn it around (it repeated the highest).
  // Words another reading took ("at least 1000" is a filter) rank nothing.
  const ranking = parsed.tokens.list.filter(
    (word, at) => !parsed.tokens.isUsed(at) && (DESC.includes(word) || ASC.includes(word)),
  )
  if (
    !parsed.top &&
    ranking.length > 0 &&
    (frame.dimensions.length || frame.granularity) &&
    ['value', 'share'].includes(frame.analysis.kind)
  )
    frame.top = { n: frame.top?.n ?? 1, direction: ranking.some((word) => ASC.includes(word)) ? 'asc' : 'desc' }
  // A growth question after a single-period one compares the new period with the previous.
  if (frame.analysis.kind === 'growth' && !frame.periods && frame.range && !frame.granularity) return undefined
  return frame
}

/** The frame of a question on its own; none without a measure. */
function ownFrame(parsed: Parsed): Frame | undefined {
  if (!parsed.measure) return undefined
  let frame: Frame = {
    measure: parsed.measure,
    dimensions: parsed.dimensions,
    granularity: parsed.granularity,
    averagePer: parsed.averagePer,
    countsValues: parsed.countsValues,
    range: parsed.range,
    periods: parsed.periods,
    top: parsed.top,
    values: parsed.values,
    booleans: parsed.booleans,
    analysis: parsed.analysis,
  }
  // "Monthly revenue growth in 2025" is month over month within 2025; "revenue growth in 2025" is from 2024.
  if (frame.analysis.kind === 'growth' && !frame.periods && frame.range && !finer(frame.granularity)) {
    const before = previousOf(frame.range)
    if (before) frame = { ...frame, periods: [before, frame.range], range: undefined }
  }
  if (frame.analysis.kind === 'growth' && !frame.periods && !frame.granularity) frame.granularity = 'year'
  return frame
}
