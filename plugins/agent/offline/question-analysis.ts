import type { MetaMember } from './meta-index'
import type { Analysis, Frame } from './frame'
import { ASC, CUES, DESC, ascending, denominatorFor, peopleCube, superlative } from './intents'
import {
  cubeNoun,
  cubeOf,
  distinctive,
  isWeight,
  labelDimension,
  matchDimension,
  namesRows,
  reach,
  timeDimensionFor,
} from './members'
import type { Tokens } from './tokens'
import { FILLER } from './lexicon'
import { hasWeekday } from './question-cues'
import type { MeasureFit, QuestionDraft } from './question-draft'
import { BREAKDOWN_NOUNS, eventVerbForms, INTENT_WORDS, STOPWORDS, sameWord, stem, words } from './words'
import { GRANULARITY } from './question-phrases'

/**
 * The dimensions named, placed beside the measure: a breakdown asked for is never dropped (more than three at once
 * are declined), one that names the measure is no dimension; "who spent the most" ranks the people behind it.
 */
export function placeBreakdowns(draft: QuestionDraft): void {
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

/** A number dimension of the measure's own cube that a word names wholly (`user` for "per user"). */
function columnNamed(draft: QuestionDraft, measure: MetaMember, noun: string): MetaMember | undefined {
  const column = matchDimension(draft.index, [noun], new Set([measure.cube]), true)
  return column && column.cube === measure.cube ? column : undefined
}

/**
 * Whether the why cue the question has is only "drivers" ("How many drivers of each depot?") on a model whose rows or
 * columns are drivers: there the word names the model's own things, never the reasons for a figure.
 */
function namesModelDrivers(draft: QuestionDraft): boolean {
  const cue = CUES.why.exec(draft.text)?.[0] ?? ''
  if (!/\bdrivers?\b/.test(cue)) return false
  const driver = (word: string) => sameWord(word, 'driver') || sameWord(word, 'drivers')
  return draft.index.cubes.some(
    (cube) =>
      driver(cubeNoun(cube.name)) || cube.dimensions.some((dim) => !dim.primaryKey && distinctive(dim).some(driver)),
  )
}

/** What kind of analysis the question asks for, and what it ranks. */
export function readAnalysis(draft: QuestionDraft, fit: MeasureFit): { analysis: Analysis; top: Frame['top'] } {
  const { tokens, index, dimensions, record, counted, per, granularity, periods, growth, text } = draft
  let measure = draft.measure
  let analysis: Analysis = { kind: 'value' }
  let top: Frame['top']
  if (record && !dimensions.length) {
    analysis = { kind: 'record', attribute: record.attribute, direction: record.direction, show: record.show }
    for (const word of record.words) tokens.useWord(word)
    for (const member of record.show) tokens.useWord(cubeNoun(member.cube))
    top = { n: counted?.n ?? 1, direction: record.direction }
  } else if (
    per &&
    measure &&
    !per.average &&
    !reach(index, measure.cube).has(per.cube) &&
    columnNamed(draft, measure, per.noun)
  ) {
    // "Orders per user" where the orders name their user by a number column and do not reach the users table: by
    // that column, not the users' own count by user.
    const column = columnNamed(draft, measure, per.noun) as MetaMember
    if (!dimensions.includes(column)) dimensions.push(column)
    tokens.useWord(per.noun)
  } else if (per && measure && ['avg', 'max', 'min'].includes(measure.type) && per.cube !== measure.cube) {
    // "Average score per group": an average or an extreme divided by a count of groups means nothing; it is the
    // figure of each group, or declined where the model does not link them.
    const label = labelDimension(index, per.cube)
    if (!label || !reach(index, measure.cube).has(per.cube))
      draft.unlinked = `the model does not link ${measure.title.toLowerCase()} to ${per.noun}, so it cannot be given for each.`
    else if (!dimensions.includes(label)) dimensions.push(label)
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
  } else if (CUES.why.test(text) && !namesModelDrivers(draft)) {
    analysis = { kind: 'why', drivers: [] }
    // ("The key drivers of revenue": the words of the cue ask for the analysis, naming nothing of the model.)
    for (const word of words(CUES.why.exec(text)?.[0] ?? ''))
      if (/^(key|main|biggest|drivers?|drives)$/.test(word)) tokens.useWord(word)
  } else if ((CUES.share.test(text) || (draft.valueCounted && /\brate\b/.test(text))) && !(growth && periods))
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
/**
 * The verb of a date the measure's rows have ("shipped" of "Shipped on", "enrolled" of `enrolled_on`): "weight
 * shipped" is the rows' own event, said of the date they are counted by; a date of another event ("delivered") says
 * which date a period is of, and alone it may mean only the rows that have one, so it is understood only with a period.
 */
function eventWords(draft: QuestionDraft): Set<string> {
  const { index, measure, tokens } = draft
  const understood = new Set<string>()
  if (!measure) return understood
  const main = timeDimensionFor(index, [], measure.cube)
  const withPeriod = Boolean(draft.range || draft.periods || draft.granularity)
  for (const cube of reach(index, measure.cube))
    for (const dim of cubeOf(index, cube)?.dimensions ?? []) {
      if (dim.type !== 'time' || (dim !== main && !withPeriod)) continue
      const forms = eventVerbForms(dim.title)
      for (const word of tokens.list) if (forms.includes(word)) understood.add(word)
    }
  return understood
}

export function unknownWords(draft: QuestionDraft): string[] {
  const { tokens, index, measure, text } = draft
  // (A state a description names, "including cancelled ones", says which rows there are, never that a question's
  // "cancelled visits" are all of them: it stays unknown.)
  const explained = new Set([
    ...words([cubeOf(index, measure?.cube ?? '')?.description ?? '', measure?.description ?? ''].join(' ')).filter(
      (word) => !/..ed$/.test(word),
    ),
    ...words(
      (measure ? [...reach(index, measure.cube)].map((cube) => cubeOf(index, cube)?.title ?? '') : []).join(' '),
    ),
  ])
  const dated = eventWords(draft)
  // ("The heaviest weight kg": the extreme of a weight its measure gives.)
  if (measure?.type === 'max' && isWeight(measure)) dated.add('heaviest')
  if (measure?.type === 'min' && isWeight(measure)) dated.add('lightest')
  const unknown = tokens
    .unused()
    .filter(
      ({ word }) =>
        !STOPWORDS.has(word) &&
        !FILLER.has(word) &&
        !INTENT_WORDS.has(word) &&
        !GRANULARITY[word] &&
        !explained.has(word) &&
        !dated.has(word),
    )
    .map(({ word }) => word)
  for (const word of draft.unmatched)
    if (
      tokens.find([word]) >= 0 &&
      !unknown.includes(word) &&
      (!STOPWORDS.has(word) || BREAKDOWN_NOUNS.has(word)) &&
      !INTENT_WORDS.has(word)
    )
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
