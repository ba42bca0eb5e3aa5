import { CUES, superlative } from './intents'
import type { MetaCube, MetaMember } from './meta-index'
import { cubeNoun, cubeOf, distinctive, namesRows, reach, sameNoun, scoreMeasure } from './members'
import { countedThings, mentionsMember, ORDERING, ORIGINAL_SYNONYM } from './question-cues'
import type { MeasureFit, QuestionDraft } from './question-draft'
import { eventVerbForms, GROUPS, sameWord, words } from './words'

/** Nouns of the things ordering makes: "how many orders were placed" counts them, not who placed them. */
const ORDER_NOUNS = new Set(GROUPS.slice(1, 3).flat())

/** Words that rank things by how much they do or are asked for: counted, not summed. */
const BUSY = new Set(['busiest', 'busy', 'quietest', 'popular', 'popularity'])

/**
 * How measures score against words, and which reach every dimension and filter. Words that name ranked things
 * ("our 3 biggest customers") are not measures.
 */
export function measureFit(draft: QuestionDraft): MeasureFit {
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
export function chooseMeasure(draft: QuestionDraft, fit: MeasureFit): void {
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
  const withoutFilters = unused.filter((word) => ![...filterNouns].some((noun) => sameWord(noun, word)))
  // "Number of orders by user", where the user is a number column: its words name the breakdown, not the measure, and
  // a measure of that column ("Total user") is no answer to "total by user" ("by units sold" may name the measure
  // of a ranking, but no column's).
  // (Nor do the words of a breakdown that names nothing: "average number of orders per user" where users are only
  // a column is declined by "user", not answered with "Total user per order".)
  const numberBy = new Set([
    ...pending
      .filter((entry) => entry.origin === 'by' && entry.member.type === 'number')
      .flatMap((entry) => entry.words),
    ...draft.unmatched.filter(
      (word) => tokens.has('average') && ['per', 'each', 'every'].includes(tokens.list[tokens.find([word]) - 1]),
    ),
  ])
  const scoreOf = (free: string[], apart: Set<string> = numberBy) =>
    score(free.filter((word) => !apart.has(word))).filter(
      (entry) => !distinctive(entry.candidate).some((word) => apart.has(word)),
    )
  let choice = pick(scoreOf(withoutFilters))
  // "Number of orders by user", "Average total by user": where the question breaks down and ranks nothing, the
  // words of its breakdowns name them, not the measure, while the rest of it names one ("orders") or asks for a sum
  // or an average; the users' count or a "Total user" found by "user" alone would drop the breakdown asked for.
  let aggregated = false
  if (choice && choice.matched > 0 && pending.length > 0 && pending.every((entry) => entry.origin === 'by')) {
    const breakdownWords = new Set(pending.flatMap((entry) => entry.words))
    const rest = withoutFilters.filter((word) => !breakdownWords.has(word))
    const own = pick(scoreOf(rest, new Set([...numberBy, ...breakdownWords])))
    const namedByBreakdown = !score(rest).some((entry) => entry.candidate === choice?.candidate && entry.matched > 0)
    const aggregate = tokens.raw.some((word) => ['average', 'avg', 'mean', 'sum', 'total'].includes(word))
    if (
      own &&
      namedByBreakdown &&
      fits(own.candidate, pendingMembers) &&
      (own.matched > 0 || (aggregate && own.score > 0 && !['count', 'count_distinct'].includes(own.candidate.type)))
    )
      ((choice = own), (aggregated = own.matched === 0))
  }
  // "Lost shipments by carrier": where only the breakdown's words name the measure (the carriers' count), the things
  // a filter qualifies are what is counted, by the breakdown; counting carriers by carrier drops the breakdown.
  if (choice && choice.matched > 0 && pending.length > 0 && pending.every((entry) => entry.origin === 'by')) {
    const breakdownWords = new Set(pending.flatMap((entry) => entry.words))
    const rest = withoutFilters.filter((word) => !breakdownWords.has(word))
    const namedByBreakdown = !score(rest).some((entry) => entry.candidate === choice?.candidate && entry.matched > 0)
    const qualified = [...values, ...booleans]
      .map((filter) => filter.member.cube)
      .find((cube) => tokens.list.some((word) => sameNoun(word, cubeNoun(cube))))
    const count = qualified ? cubeOf(index, qualified)?.measures.find((entry) => entry.type === 'count') : undefined
    if (namedByBreakdown && count && count !== choice.candidate && fits(count, pendingMembers))
      choice = { candidate: count, score: 3, matched: 1 }
  }
  // "VIP customers" qualifies the filter, unless nothing else names what to count ("how many VIP customers").
  let qualifierOnly = false
  if (!choice || (choice.matched === 0 && !aggregated)) {
    const retry = pick(scoreOf(unused))
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
export function countTheThingsNamed(draft: QuestionDraft, fit: MeasureFit): void {
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
  else notACount(draft, fit)
  if (draft.measure) for (const word of distinctive(draft.measure)) tokens.useWord(word)
}

/** Where "how many", "number of" or "count of" stands: the word after it, which names the things counted. */
function countedWord(draft: QuestionDraft): string | undefined {
  const { tokens } = draft
  const many = tokens.find(['many'])
  if (many >= 0) return tokens.list[many + 1]
  for (const lead of [
    ['number', 'of'],
    ['count', 'of'],
  ]) {
    const at = tokens.find(lead)
    if (at >= 0) return tokens.list[at + 2]
  }
  return undefined
}

/**
 * "Number of users" where no table is of users, only a number column `user`: a sum titled by the word ("Total user",
 * the sum of that column) or the count of other rows is no count of users, so there is no measure; the word stays
 * unknown and the question is declined, not answered with another figure. Where a table is of users, its count.
 */
function notACount(draft: QuestionDraft, fit: MeasureFit): void {
  const { measure, tokens, index } = draft
  const noun = countedWord(draft)
  if (!measure || !noun || measure.type === 'count_distinct') return
  const things = index.cubes.find(
    (cube) => sameNoun(noun, cubeNoun(cube.name)) || (cube.synonyms ?? []).some((word) => sameWord(word, noun)),
  )
  if (measure.type === 'count') {
    const column = index.cubes.some((cube) =>
      cube.dimensions.some((dim) => dim.type === 'number' && !dim.primaryKey && mentionsMember(dim, noun)),
    )
    // ("Number of exams" of a table of exam results: the word before its noun names its rows as well.)
    const ownRows = words(measure.cube).some((word) => sameWord(word, noun))
    if (things || !column || ownRows || sameNoun(noun, cubeNoun(measure.cube))) return
  } else {
    const said = distinctive(measure).filter(
      (word) => word.length > 2 && tokens.list.some((entry) => sameWord(entry, word)),
    )
    if (said.length === 0 || !said.every((word) => sameWord(word, noun))) return
    const count = things?.measures.find((entry) => entry.type === 'count')
    if (things) {
      if (
        count &&
        fit.fits(
          count,
          draft.pending.map((entry) => entry.member),
        )
      )
        draft.measure = count
      return
    }
  }
  draft.measure = undefined
  draft.unmatched.push(noun)
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
    (tokens.has('many') || tokens.find(['number', 'of']) >= 0 || tokens.find(['count', 'of']) >= 0) &&
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
    // ("How many clients shipped in 2024": the verb of a date of the rows that name them, as "ordered" is.)
    const said = [...tokens.raw, ...tokens.list]
    const eventOfOthers = index.cubes
      .filter((cube) => cube.name !== countedCube && reach(index, cube.name).has(countedCube))
      .some((cube) =>
        cube.dimensions.some(
          (dim) => dim.type === 'time' && eventVerbForms(dim.title).some((form) => said.includes(form)),
        ),
      )
    const ordering = !orderLike && (said.some((word) => ORDERING.has(word)) || eventOfOthers)
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
