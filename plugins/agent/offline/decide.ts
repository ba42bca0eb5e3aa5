import type { DateSpan, ValueHit } from '../meta-search'
import { answerTitle, filterWords } from './answer'
import { isGreeting, phrases, writeDecline, type Decline } from './decline'
import { frameOf, isFollowUp } from './follow-up'
import type { Frame, Resolved } from './frame'
import { CUES } from './intents'
import { indexMeta, type MetaIndex, type MetaMember } from './meta-index'
import { distinctive, mentions, namesRows, reach } from './members'
import { planQueries, queriesBeyondRows, type PlannedQuery, type SqlResult } from './plan-query'
import { parseQuestion, type Lookup, type Parsed } from './question'
import { resolveRange } from './time-range'
import { writeAnswer } from './write-answer'

export interface ToolExchange {
  name: string
  input: Record<string, unknown>
  output: unknown
}

export type Action =
  | { kind: 'tools'; reasoning: string; calls: Array<{ name: string; input: Record<string, unknown> }> }
  | { kind: 'answer'; reasoning: string; text: string }

// A turn asks the model several times with the same meta result, and turns of users with the same access get equal
// ones: each model is read once (by content, so everything read from it is reused across turns too).
const indexes = new WeakMap<object, MetaIndex>()
const byContent = new Map<string, MetaIndex>()
function indexOf(meta: unknown): MetaIndex {
  if (typeof meta !== 'object' || meta === null) return indexMeta(meta)
  let index = indexes.get(meta)
  if (index) return index
  const key = JSON.stringify(meta)
  index = byContent.get(key)
  if (!index) {
    index = indexMeta(meta)
    // A handful of models and access views at a time; an old one is read again if it comes back.
    if (byContent.size >= 64) byContent.delete(byContent.keys().next().value!)
    byContent.set(key, index)
  }
  indexes.set(meta, index)
  return index
}

function lookupOf(output: unknown): Lookup {
  const value = output as { values?: ValueHit[]; dates?: DateSpan[] } | undefined
  return {
    values: Array.isArray(value?.values) ? value.values : [],
    dates: Array.isArray(value?.dates) ? value.dates : [],
  }
}

// A turn asks the model several times with the same thread and tool results: each question is read once per
// model and lookup (the lookup keyed by its result object).
const readings = new WeakMap<MetaIndex, Map<string, Parsed>>()
const lookupIds = new WeakMap<object, number>()
let nextLookupId = 1
function parse(question: string, index: MetaIndex, lookup: Lookup | undefined, source: object | undefined): Parsed {
  let byKey = readings.get(index)
  if (!byKey) readings.set(index, (byKey = new Map()))
  let id = 0
  if (source) {
    id = lookupIds.get(source) ?? nextLookupId++
    lookupIds.set(source, id)
  }
  const key = `${id}\u0000${question}`
  let parsed = byKey.get(key)
  if (!parsed) {
    parsed = parseQuestion(question, index, lookup)
    if (byKey.size > 1000) byKey.clear()
    byKey.set(key, parsed)
  }
  return parsed
}

/** The last question of a thread as read: its frame, and whether it follows up on the frame before it. */
interface Thread {
  parsed: Parsed
  frame?: Frame
  followUp: boolean
  base?: Frame
}

/** Reads the thread: each question on its own, a follow-up on top of the frame before it. */
function readThread(
  questions: string[],
  index: MetaIndex,
  lookup: Lookup | undefined,
  source: object | undefined,
): Thread {
  let base: Frame | undefined
  let last: Thread | undefined
  for (const [position, question] of questions.entries()) {
    const parsed = parse(question, index, lookup, source)
    const followUp = position > 0 && base !== undefined && isFollowUp(question, parsed)
    const frame = frameOf(parsed, index, base, followUp)
    last = { parsed, frame, followUp, base }
    if (frame) base = frame
  }
  return last!
}

/** A dimension to break a measure down by, for an example in the model's words: a plain text it reaches. */
function breakdownExample(index: MetaIndex, cube: string): string {
  const near = reach(index, cube)
  const dims = index.cubes.filter((entry) => near.has(entry.name)).flatMap((entry) => entry.dimensions)
  const label = (dim: MetaMember): boolean => namesRows(index, dim)
  const text = dims.find(
    (dim) => dim.type === 'string' && !dim.primaryKey && !label(dim) && !/(^|_)(id|email|phone)$/.test(dim.name),
  )
  return text ? text.title.toLowerCase() : 'month'
}

/**
 * What a follow-up took from the frame before it, in words: the measure it did not name, the breakdowns, filters and
 * period it did not change ("and in 2024?" keeps "Revenue" and "by Region").
 */
function takenFrom(base: Frame, parsed: Parsed): string[] {
  const taken: string[] = []
  if (!(parsed.measure && parsed.measureNamed)) taken.push(base.measure.title)
  const dims = base.dimensions.filter((dim) => !parsed.dimensions.includes(dim))
  if (dims.length) taken.push(`by ${dims.map((dim) => dim.title).join(' and ')}`)
  if (base.granularity && !parsed.granularity) taken.push(`by ${base.granularity}`)
  const changed = new Set([...parsed.values, ...parsed.booleans].map((filter) => filter.member))
  for (const filter of base.values)
    if (!changed.has(filter.member) && !parsed.dropped.includes(filter.member)) taken.push(filterWords(filter))
  for (const flag of base.booleans)
    if (!changed.has(flag.member) && !parsed.dropped.includes(flag.member))
      taken.push(`${flag.member.title}: ${flag.value ? 'yes' : 'no'}`)
  const period = base.range ?? base.periods?.at(-1)
  if (period && !parsed.range && !parsed.periods)
    taken.push(base.periods ? base.periods.map((spec) => spec.label).join(' vs ') : period.label)
  return taken
}

const isRelative = (frame: Frame) =>
  [frame.range, ...(frame.periods ?? [])].some((spec) => spec && spec.kind !== 'absolute')

/** The frame with its periods as dates; relative periods count back from the latest date in the data. */
function resolve(frame: Frame, lookup: Lookup | undefined): Resolved | undefined {
  const latest = lookup?.dates.find((span) => span.member === frame.timeDimension?.path)?.latest ?? undefined
  const range = frame.range ? resolveRange(frame.range, latest) : undefined
  const periods = frame.periods?.map((spec) => resolveRange(spec, latest))
  if ((frame.range && !range) || periods?.some((period) => !period)) return undefined
  return { frame, range, periods: periods as Resolved['periods'] }
}

/**
 * Decides the next step from the thread's questions and what the tools returned so far: read the model, look up
 * values and dates with one search when the question needs them, run the queries that answer it, then write the
 * answer — or say which part of the question it cannot map. Deterministic: the same thread over the same data gives
 * the same answer.
 */
export function decide(questions: string[], exchanges: ToolExchange[]): Action {
  const question = questions.at(-1) ?? ''
  const meta = exchanges.find((exchange) => exchange.name === 'serviceMeta' && !exchange.input.searchQuery)
  if (!meta)
    return {
      kind: 'tools',
      reasoning: 'First I look up which measures and dimensions I may use.',
      calls: [{ name: 'serviceMeta', input: {} }],
    }
  if (!meta.output || typeof meta.output !== 'object' || 'error' in (meta.output as object))
    return {
      kind: 'answer',
      reasoning: 'The model could not be read.',
      text: `I could not read the data model: ${(meta.output as { error?: string })?.error ?? 'no result'}.`,
    }
  const index = indexOf(meta.output)
  const decline = (reason: Decline, reasoning: string): Action => ({
    kind: 'answer',
    reasoning,
    text: writeDecline(reason, index),
  })
  if (question.trim() === '') return decline({ kind: 'empty' }, 'The question is empty.')
  if (isGreeting(question))
    return decline(
      { kind: 'greeting', thanks: /\bthank/i.test(question) },
      'A greeting, not a question about the data: I say what I can answer.',
    )
  const future = CUES.future.exec(question.toLowerCase())
  if (future) return decline({ kind: 'future', phrase: future[0] }, 'The question asks for a forecast.')

  const search = exchanges.find((exchange) => exchange.name === 'serviceMeta' && exchange.input.searchQuery)
  const searchError = (search?.output as { error?: unknown } | undefined)?.error
  if (typeof searchError === 'string')
    return {
      kind: 'answer',
      reasoning: 'The search for values and dates failed.',
      text: `I could not look up the values and dates your question names: ${searchError}`,
    }
  const lookup = search ? lookupOf(search.output) : undefined
  const source =
    search && typeof search.output === 'object' && search.output !== null ? (search.output as object) : undefined
  const thread = readThread(questions, index, lookup, source)
  if (!lookup) {
    const searching = searchFor(questions, index, thread)
    if (searching) return searching
  }
  const resolved = understood(thread, question, index, lookup, decline)
  if (!('frame' in resolved)) return resolved
  return answerOf(resolved, thread, { question, index, lookup, exchanges })
}

/**
 * One search for values and dates, when the thread's questions hold words that may be values to filter on or
 * periods relative to the latest date; undefined when they need none.
 */
function searchFor(questions: string[], index: MetaIndex, thread: Thread): Action | undefined {
  const question = questions.at(-1) ?? ''
  const words = [...new Set(questions.flatMap((entry) => parse(entry, index, undefined, undefined).unknown))]
  const relative = thread.frame && isRelative(thread.frame)
  if (!(words.length || relative)) return undefined
  // A value written with a hyphen ("no-show") is searched whole: its short parts are no words to search.
  const compounds = (question.toLowerCase().match(/[\p{L}\p{N}]+(?:-[\p{L}\p{N}]+)+/gu) ?? []).filter((compound) =>
    compound.split('-').some((part) => words.includes(part)),
  )
  const terms = [...new Set([...compounds, ...words])]
  const searchQuery = terms.length ? terms.join(' ') : (thread.frame?.timeDimension?.title ?? 'date')
  return {
    kind: 'tools',
    reasoning: `${words.length ? `"${words.join(' ')}" may name values to filter on` : 'Relative periods count back from the latest date in the data'}; one search finds values and dates.`,
    calls: [{ name: 'serviceMeta', input: { searchQuery } }],
  }
}

/**
 * The frame of the thread with its periods as dates, or the decline that says which part of the question does not
 * map, what one query cannot give, or what the model lacks for it.
 */
function understood(
  thread: Thread,
  question: string,
  index: MetaIndex,
  lookup: Lookup | undefined,
  decline: (reason: Decline, reasoning: string) => Action,
): Resolved | Action {
  const { parsed, frame } = thread
  if (parsed.ambiguous)
    return decline(
      { kind: 'spelling', word: parsed.ambiguous.word, options: parsed.ambiguous.options },
      `"${parsed.ambiguous.word}" is as near to ${parsed.ambiguous.options.join(' as to ')}.`,
    )
  if (parsed.unsupported)
    return decline(
      { kind: 'incomplete', reason: parsed.unsupported },
      'The question asks for more than one query gives.',
    )
  if (parsed.unknown.length) {
    // With the question's own period ("top 10 customers in 2025"): the nearest answer keeps what was understood.
    const nearest =
      frame && !thread.followUp
        ? answerTitle(resolve(frame, lookup) ?? { frame, range: undefined, periods: undefined })
        : undefined
    return decline(
      {
        kind: 'unknown',
        // Quoted as asked: a word read as another ("Région" as "region") is the asker's.
        parts: phrases(
          parsed.unknown.map((word) => parsed.corrections.find((entry) => entry.to === word)?.from ?? word),
          question,
        ),
        values: lookup?.values ?? [],
        nearest,
      },
      `Part of the question does not map: ${parsed.unknown.join(', ')}.`,
    )
  }
  if (!frame) {
    const incomplete =
      parsed.analysis.kind === 'growth'
        ? 'a change needs two periods to compare; name them (for example "from 2023 to 2024").'
        : undefined
    return decline(
      incomplete ? { kind: 'incomplete', reason: incomplete } : { kind: 'no-measure', parts: [] },
      'No measure matches the question.',
    )
  }
  // ("What was the largest freight cost?" of a model that only totals it: answering the total answers another question.)
  if (
    parsed.extreme &&
    frame.analysis.kind === 'value' &&
    !frame.top &&
    !frame.dimensions.length &&
    !frame.granularity &&
    !['max', 'min'].includes(frame.measure.type)
  )
    return decline(
      {
        kind: 'incomplete',
        reason: `the model has no ${parsed.extreme} single value of ${frame.measure.title.toLowerCase()}, only measures over many rows; ask for it by something to rank (for example "${frame.measure.title} by month, highest first").`,
      },
      'An extreme of one row, which no measure gives.',
    )
  // ("What is the largest discount?": one row's extreme of a number column, where ranking the groups of that same
  // column, or of its yes-or-no flag, by another measure answers which group has the most revenue.)
  const ranked = extremeColumn(parsed, index)
  if (
    ranked &&
    !['max', 'min'].includes(frame.measure.type) &&
    frame.dimensions.length > 0 &&
    frame.dimensions.every((dim) => mentions(distinctive(dim), ranked.word))
  )
    return decline(
      {
        kind: 'incomplete',
        reason: `the model has no ${parsed.extreme} single value of ${ranked.column.title.toLowerCase()}, only measures over many rows; ask for one by something to rank (for example "${(measureNaming(index, ranked.word) ?? frame.measure).title} by month, highest first").`,
      },
      'An extreme of one row of a number column, which no measure gives.',
    )
  if (frame.analysis.kind === 'share' && !frame.dimensions.length && !frame.values.length && !frame.booleans.length)
    return decline(
      {
        kind: 'incomplete',
        reason: `a share needs a part to compare with the whole (for example "share of ${frame.measure.title.toLowerCase()} by ${breakdownExample(index, frame.measure.cube)}").`,
      },
      'No part for the share.',
    )
  if ((frame.granularity || frame.range || frame.periods) && !frame.timeDimension)
    return decline(
      { kind: 'incomplete', reason: `${frame.measure.title} has no date to slice by time.` },
      'No time dimension.',
    )
  return (
    resolve(frame, lookup) ??
    decline(
      { kind: 'incomplete', reason: 'I could not find the latest date in the data to count relative periods from.' },
      'No latest date.',
    )
  )
}

/**
 * The answer of a resolved frame: the queries that compute it asked for first (and, past the rows a query returns,
 * the highest, the lowest and a mean's total on their own), then the answer written from their results.
 */
function answerOf(
  resolved: Resolved,
  thread: Thread,
  asked: { question: string; index: MetaIndex; lookup: Lookup | undefined; exchanges: ToolExchange[] },
): Action {
  const { question, index, exchanges, lookup } = asked
  const { frame } = resolved
  const title = answerTitle(resolved)
  const planned = planQueries(resolved, index, (role, period) =>
    role === 'period' && resolved.periods
      ? `${frame.measure.title}, ${resolved.periods[period!].row}`
      : role === 'whole'
        ? `${frame.measure.title}, whole`
        : title,
  )
  const resultOf = (sql: string) =>
    exchanges.find((exchange) => exchange.name === 'serviceSqlApi' && exchange.input.sqlQuery === sql)?.output as
      SqlResult | undefined
  const missing = planned.filter((query) => !resultOf(query.sql))
  if (missing.length)
    return {
      kind: 'tools',
      reasoning: `I will compute ${title}: ${missing.map((query) => query.sql).join('; ')}`,
      calls: missing.map((query) => ({
        name: 'serviceSqlApi',
        input: { sqlQuery: query.sql, queryTitle: query.title, userRequest: question },
      })),
    }
  const failedOf = (queries: PlannedQuery[]): Action | undefined => {
    const failed = queries.map((query) => resultOf(query.sql)!).find((result) => result.error)
    return failed
      ? { kind: 'answer', reasoning: 'A query failed.', text: `I could not compute ${title}: ${failed.error}` }
      : undefined
  }
  const failed = failedOf(planned)
  if (failed) return failed
  // More rows than a query returns: the highest, the lowest (and a mean's total) are asked for separately, so the
  // summary speaks of every row, not of the first hundred.
  const main = planned.find((query) => query.role === 'main')
  const mainResult = main && resultOf(main.sql)
  const beyond =
    main && mainResult && ['value', 'why'].includes(frame.analysis.kind) && !frame.top
      ? (mainResult.totalRows ?? 0) > (mainResult.data ?? []).length
      : false
  const extra = beyond ? queriesBeyondRows(main!, resolved, index) : []
  const extraMissing = extra.filter((query) => !resultOf(query.sql))
  if (extraMissing.length)
    return {
      kind: 'tools',
      reasoning: `The result has ${mainResult!.totalRows} rows, more than the ${(mainResult!.data ?? []).length} a query returns: I ask for ${extraMissing.map((query) => query.sql).join('; ')}`,
      calls: extraMissing.map((query) => ({
        name: 'serviceSqlApi',
        input: { sqlQuery: query.sql, queryTitle: query.title, userRequest: question },
      })),
    }
  const extraFailed = failedOf(extra)
  if (extraFailed) return extraFailed
  const text = writeAnswer(
    resolved,
    index,
    [...planned, ...extra].map((query) => ({ query, result: resultOf(query.sql)! })),
  )
  return {
    kind: 'answer',
    reasoning: 'The queries returned; I will summarise them.',
    text: withNotes(text, thread, lookup),
  }
}

/**
 * Words read as others, and what a follow-up took from the thread, said under the answer's heading. (A value's
 * word as the data writes it: "Asia", not "asia".)
 */
function withNotes(text: string, thread: Thread, lookup: Lookup | undefined): string {
  const { parsed } = thread
  const valueWord = (word: string) =>
    (lookup?.values ?? [])
      .flatMap((hit) => hit.value.split(/[^\p{L}\p{N}]+/u))
      .find((said) => said.toLowerCase() === word) ?? word
  const read = parsed.corrections.map((entry) => `"${entry.from}" as "${valueWord(entry.to)}"`)
  const taken = thread.followUp && thread.base ? takenFrom(thread.base, parsed) : []
  const notes = [
    ...(taken.length ? [`From the question before I kept ${taken.join(', ')}.`] : []),
    ...(read.length ? [`I read ${read.join(', ')}.`] : []),
  ]
  const cut = text.indexOf('\n\n')
  return notes.length && cut > 0 ? `${text.slice(0, cut)}\n\n${notes.join(' ')}${text.slice(cut)}` : text
}

/** The number column (no key) the word right after the question's extreme word names ("the largest discount"). */
function extremeColumn(parsed: Parsed, index: MetaIndex): { word: string; column: MetaMember } | undefined {
  if (!parsed.extreme) return undefined
  const raw = parsed.tokens.raw
  const word = raw[raw.indexOf(parsed.extreme) + 1]
  if (word === undefined) return undefined
  for (const column of index.members.values())
    if (
      column.kind === 'dimension' &&
      column.type === 'number' &&
      !column.primaryKey &&
      mentions(distinctive(column), word)
    )
      return { word, column }
  return undefined
}

/** A measure the word names ("Discounts granted" of "discount"), to suggest in a decline. */
const measureNaming = (index: MetaIndex, word: string) =>
  [...index.members.values()].find((member) => member.kind === 'measure' && mentions(distinctive(member), word))
