import type { MetaIndex, MetaMember } from './meta-index'
import { cubeNoun, cubeOf, distinctive, labelDimension, mentions, namesRows, reach, vocabularyOf } from './members'
import type { Tokens } from './tokens'
import { numberOf } from './time-range'
import { sameWord, stem } from './words'

/** Cues of the kinds of analysis, read from the question's text. */
export const CUES = {
  growth:
    /\b(growth|grow|grew|grown|growing|increase[sd]?|decrease[sd]?|rise|rose|risen|fell|fall|fallen|drop(?:ped)?|decline[sd]?|change[sd]?|up or down|go up|went up|went down|gone up|yoy|mom|year over year|year-over-year|month over month|difference)\b/,
  share: /\b(share|percentage|percent|proportion|fraction|portion)\b|%|\bhow much of\b/,
  compare: /\b(vs\.?|versus|compared?|comparing|comparison|against|side by side)\b/,
  // ("Drivers of revenue", "the key drivers": never "which driver", a thing a model may hold.)
  why: /\b(why|reasons?|explain|(?:key |main |biggest )?drivers? (?:of|behind)|(?:key|main) drivers?|what drove|what drives|what caused)\b/,
  future: /\b(will|forecast|predict(?:ed|ion)?|projected|projection|next (?:year|month|quarter|week))\b/,
  span: /\b(?:from|between)\b[^?]*\b(?:to|and|through|until)\b/,
}

/** Nouns of cubes whose rows are people: "who" asks for one of them. */
const PEOPLE = new Set(
  'customer customers client clients user users people person persons member members employee employees buyer buyers account accounts patient patients student students seller sellers agent agents rep reps contact contacts subscriber subscribers shopper shoppers guest guests owner owners author authors'.split(
    ' ',
  ),
)

/** The cube of people that "who" asks about, among `cubes` (those a measure reaches). */
export function peopleCube(tokens: Tokens, cubes: Iterable<string>): string | undefined {
  if (!tokens.raw.includes('who') && !tokens.raw.includes('whom')) return undefined
  return [...cubes].find((cube) => PEOPLE.has(cubeNoun(cube)))
}

export const DESC = [
  'top',
  'best',
  'highest',
  'largest',
  'biggest',
  'most',
  'greatest',
  'leading',
  'busiest',
  'strongest',
  'peak',
  'fastest',
  'priciest',
  'expensive',
]
export const ASC = [
  'bottom',
  'worst',
  'lowest',
  'smallest',
  'least',
  'fewest',
  'slowest',
  'weakest',
  'quietest',
  'cheapest',
  'cheap',
]
/**
 * "didn't", "wasn't" (read as "didn", "t"): said of the things that have the value, they negate it ("orders that
 * didn't have a discount"); said of others ("customers who didn't get a discount": none of their orders had one),
 * they are not a filter on those things, and the question is declined.
 */
const VERB_NEGATIONS = ['didn', 'doesn', 'don', 'wasn', 'weren', 'isn', 'aren', 'hasn', 'haven', 'hadn']

const NEGATIONS = [
  'non',
  'not',
  'without',
  'no',
  'excluding',
  'except',
  'exclude',
  'minus',
  'outside',
  ...VERB_NEGATIONS,
]
const WITH = ['with', 'has', 'have', 'had', 'having', 'got', 'get']

/** Superlatives that count the things they name ("the most orders"), rather than rank them by a number. */
const COUNTING = ['most', 'fewest', 'least']

export const superlative = (tokens: Tokens) => tokens.raw.some((word) => DESC.includes(word) || ASC.includes(word))
export const ascending = (tokens: Tokens) =>
  tokens.raw.some((word) => ASC.includes(word)) &&
  !tokens.raw.some((word) => ['top', 'best', 'highest', 'most'].includes(word))

/** Words that may stand between a negation and what it negates ("excluding orders from Corporate ..."). */
const BETWEEN = new Set(['a', 'an', 'the', 'any', 'from', 'for', 't', 'have', 'has', 'had', 'get', 'got'])

/**
 * A negation right before position `at` ("non-VIP", "without a discount", "excluding Corporate"); the model's nouns
 * (`nouns`, stems of its cubes' nouns) may stand between ("not customers from Asia").
 */
export function negatedAt(tokens: Tokens, at: number, ofCube?: string, nouns?: ReadonlySet<string>): number {
  for (let back = 1; back <= 4 && at - back >= 0; back++) {
    const word = tokens.list[at - back]
    if (VERB_NEGATIONS.includes(word))
      return ofCube === undefined || tokens.list.some((said) => sameWord(said, cubeNoun(ofCube))) ? at - back : -1
    if (NEGATIONS.includes(word)) return at - back
    // "regions other than North America"
    if (word === 'than' && tokens.list[at - back - 1] === 'other') return at - back - 1
    if (!BETWEEN.has(word) && !nouns?.has(stem(word))) return -1
  }
  return -1
}

/** "top 5", "3 biggest", "which 4": the N asked for, if any (a number that is not a year). */
export function rankedCount(tokens: Tokens): { n: number; at: number } | undefined {
  for (const [at, word] of tokens.list.entries()) {
    if (tokens.isUsed(at)) continue
    const n = numberOf(word)
    if (!Number.isInteger(n) || n < 1 || n > 100) continue
    const near = tokens.list.slice(Math.max(0, at - 2), at + 3)
    if (near.some((entry) => DESC.includes(entry) || ASC.includes(entry) || ['which', 'who', 'what'].includes(entry)))
      return { n, at }
  }
  return undefined
}

/** Boolean dimensions the question filters on ("VIP customers", "orders without a discount", "non-VIP"). */
export function booleansOf(tokens: Tokens, index: MetaIndex, measureWords: Set<string>) {
  const found: Array<{ member: MetaMember; value: boolean; at: number[] }> = []
  for (const cube of index.cubes)
    for (const member of cube.dimensions) {
      if (member.type !== 'boolean') continue
      const own = distinctive(member)
      if (own.length === 0) continue
      for (let at = tokens.find([own[0]]); at >= 0; at = tokens.find([own[0]], at + 1)) {
        const negation = negatedAt(tokens, at, cube.name, vocabularyOf(index).nouns)
        const withWord = WITH.includes(tokens.list[at - 1] ?? '') || WITH.includes(tokens.list[at - 2] ?? '')
        // "discounted orders", "orders that were discounted": the flag said of the things it marks (named too; "how
        // much was discounted" asks for the amount).
        const participle =
          tokens.list[at].endsWith('ed') &&
          !own[0].endsWith('ed') &&
          tokens.list.some((word) => sameWord(word, cubeNoun(cube.name)))
        // "discount" alone asks for the discount measure; "with a discount" for the flag.
        if (negation < 0 && !withWord && !participle && measureWords.has(own[0])) continue
        found.push({ member, value: negation < 0, at: negation >= 0 ? [negation, at] : [at] })
      }
    }
  return found
}

/**
 * "per customer", "per order", "a customer ... on average": the measure is to be divided by a count of those
 * things. Returns the entity's cube and the words used; "per region" is a breakdown, not a ratio.
 */
export function perEntity(
  tokens: Tokens,
  index: MetaIndex,
): { cube: string; noun: string; at: number[]; average: boolean } | undefined {
  const average = tokens.has('average')
  for (const [at, word] of tokens.list.entries()) {
    // "per customer", and "per VIP customer" when the words between are already understood (a flag, a value).
    let lead = at - 1
    while (
      lead > 0 &&
      at - lead < 3 &&
      tokens.isUsed(lead) &&
      !['per', 'a', 'each', 'every', 'one'].includes(tokens.list[lead])
    )
      lead--
    const leader = tokens.list[lead]
    if (!(leader === 'per' || (average && ['a', 'each', 'every', 'one'].includes(leader ?? '')))) continue
    const cube = index.cubes.find((entry) => sameWord(word, cubeNoun(entry.name)) && entry.measures.length > 0)
    // ("Per client industry" breaks down by the clients' industry: the word after the noun names a column of theirs.)
    const next = tokens.list[at + 1]
    const column =
      next !== undefined &&
      !tokens.isUsed(at + 1) &&
      cube?.dimensions.some((dim) => !dim.primaryKey && dim.type !== 'time' && mentions(distinctive(dim), next))
    if (cube && !column)
      return {
        cube: cube.name,
        noun: word,
        average,
        at: [lead, at, ...tokens.list.flatMap((entry, position) => (entry === 'average' ? [position] : []))],
      }
  }
  return undefined
}

/** The measure to divide by for "per <entity>": a distinct count of it on the measure's cube, else its own count. */
export function denominatorFor(index: MetaIndex, measure: MetaMember, entity: string): MetaMember | undefined {
  const noun = cubeNoun(entity)
  const distinct = cubeOf(index, measure.cube)?.measures.find(
    (entry) => entry.type === 'count_distinct' && mentions(distinctive(entry), noun),
  )
  if (distinct && entity !== measure.cube) return distinct
  const own = cubeOf(index, entity)?.measures
  return (
    own?.find((entry) => entry.type === 'count' && entry.name === 'count') ??
    own?.find((entry) => entry.type === 'count')
  )
}

/**
 * Single records ranked by one of their numbers: "the most expensive product", "which order had the biggest
 * discount", "the largest single order". Returns the attribute (a number dimension) and what to show beside it.
 */
export function recordOf(tokens: Tokens, index: MetaIndex, many = false) {
  if (!superlative(tokens) || tokens.has('average', 'total', 'sum')) return undefined
  const said = (word: string) => tokens.list.some((entry) => sameWord(entry, word))
  // "the 5 smallest orders": several records, each ranked by its own number, not the one extreme of a measure.
  // ("the most orders", "the fewest orders" count them: the 3 customers who placed the most orders.)
  const rankedRecords = (cube: string) =>
    many &&
    tokens.list.some(
      (word, at) =>
        (DESC.includes(word) || ASC.includes(word)) &&
        !COUNTING.includes(word) &&
        sameWord(tokens.list[at + 1] ?? '', cubeNoun(cube)),
    )
  // "Who had the biggest order": one order, shown with who placed it.
  const who = (cube: string) => peopleCube(tokens, [cube]) !== undefined
  // ("Who placed the most orders" counts each one's orders: no single order.)
  const single =
    tokens.has('single', 'individual') || (tokens.raw.includes('who') && !tokens.has('most', 'least', 'fewest'))
  const numbers = index.cubes.flatMap((cube) =>
    cube.dimensions.filter((dim) => dim.type === 'number' && !dim.primaryKey && !/(^|_)id$/.test(dim.name)),
  )
  const entityAsked = (cube: string) => said(cubeNoun(cube))
  const shown = (cube: string) => entityAsked(cube) || who(cube)
  // ("The film rented the most" counts rentals: a word naming a table names no number of a film's, "rental duration".)
  const nouns = vocabularyOf(index).nouns
  let attribute = numbers.find(
    (dim) =>
      distinctive(dim).some((word) => !sameWord(word, cubeNoun(dim.cube)) && !nouns.has(stem(word)) && said(word)) &&
      entityAsked(dim.cube) &&
      (tokens.has('which', 'what') || dim.name.includes('price')),
  )
  if (!attribute) {
    // "the largest single order", "the 3 largest orders": the column behind the cube's max (or min) measure.
    const extreme = index.cubes
      .flatMap((cube) => cube.measures)
      .find(
        (measure) =>
          (measure.type === 'max' || measure.type === 'min') &&
          entityAsked(measure.cube) &&
          (single || rankedRecords(measure.cube)),
      )
    attribute =
      extreme &&
      cubeOf(index, extreme.cube)?.dimensions.find(
        (dim) => dim.type === 'number' && extreme.name.split('_').includes(dim.name),
      )
  }
  if (!attribute) return undefined
  const show: MetaMember[] = []
  const own = labelDimension(index, attribute.cube)
  const key = cubeOf(index, attribute.cube)?.dimensions.find((dim) => dim.primaryKey)
  if (key) show.push(key)
  if (namesRows(index, own)) show.push(own)
  for (const cube of reach(index, attribute.cube)) {
    if (cube === attribute.cube || !shown(cube)) continue
    const label = labelDimension(index, cube)
    if (namesRows(index, label)) show.push(label)
  }
  const words = distinctive(attribute)
  return { attribute, show, direction: ascending(tokens) ? ('asc' as const) : ('desc' as const), words }
}

/** Time units a length is said in, in seconds. */
const TIME_UNITS: Record<string, number> = {
  second: 1,
  seconds: 1,
  secs: 1,
  minute: 60,
  minutes: 60,
  min: 60,
  mins: 60,
  hour: 3600,
  hours: 3600,
  hr: 3600,
  hrs: 3600,
  day: 86_400,
  days: 86_400,
}

/** The unit (in seconds) a length or duration column is kept in: what its words say, else minutes for a length. */
function unitOf(dim: MetaMember): number | undefined {
  const said = `${dim.name} ${dim.title} ${dim.description ?? ''}`.toLowerCase()
  if (!/length|duration|runtime|running time|minutes|seconds|hours/.test(said)) return undefined
  if (/\b(ms|millis|milliseconds?)\b|_ms\b/.test(said)) return 0.001
  if (/seconds?\b|\bsecs?\b/.test(said)) return 1
  if (/hours?\b/.test(said)) return 3600
  if (/\bdays?\b/.test(said)) return 86_400
  if (/minutes?\b|\bmins?\b/.test(said)) return 60
  // A duration without a unit (a rental's, in days?) is not guessed; a film's or track's length is in minutes.
  return /length|runtime|running time/.test(said) ? 60 : undefined
}

const COMPARISONS: Array<[RegExp, '>' | '>=' | '<' | '<=']> = [
  [/\b(?:over|above|more than|greater than|bigger than|larger than|exceeding|higher than|longer than)\s*$/, '>'],
  [/\b(?:at least|no less than|minimum of)\s*$/, '>='],
  [/\b(?:under|below|less than|smaller than|lower than|cheaper than|shorter than)\s*$/, '<'],
  [/\b(?:at most|no more than|up to|maximum of)\s*$/, '<='],
]

/**
 * Comparisons with a number on a number dimension: "orders over 1,000 dollars" is `orders.amount > 1000`, "products
 * under 20" `products.price < 20`. The dimension is one the question names, else the amount or price of the things
 * it names. Returns nothing for comparisons of aggregates ("customers with more than 20 orders").
 */
export function numberFilters(tokens: Tokens, index: MetaIndex, question: string) {
  const found: Array<{ member: MetaMember; op: '>' | '>=' | '<' | '<=' | 'none'; value: number; words: string[] }> = []
  const amount = '\\$?\\s?(\\d[\\d,]*(?:\\.\\d+)?)\\s*(k|thousand|million|m)?\\b'
  const valueOf = (digits: string, unit: string | undefined) =>
    Number(digits.replace(/,/g, '')) *
    (unit ? ({ k: 1e3, thousand: 1e3, million: 1e6, m: 1e6 } as Record<string, number>)[unit.toLowerCase()] : 1)
  const text = question.toLowerCase()
  const numbers = index.cubes.flatMap((cube) =>
    cube.dimensions.filter((dim) => dim.type === 'number' && !dim.primaryKey && !/(^|_)id$/.test(dim.name)),
  )
  const said = (word: string) => tokens.list.some((entry) => sameWord(entry, word))
  const memberOf = () =>
    numbers.find((dim) => distinctive(dim).some((word) => !sameWord(word, cubeNoun(dim.cube)) && said(word))) ??
    numbers.find((dim) => /^(amount|price|value|total)$/.test(dim.name) && said(cubeNoun(dim.cube)))
  const wordsOf = (...parts: string[]) => [
    ...parts.flatMap((part) => part.split(/[^a-z0-9]+/).filter(Boolean)),
    'dollars',
    'usd',
    'eur',
    'euros',
    'bucks',
  ]
  // "orders between 100 and 500": both bounds (two years are a span of time, read elsewhere).
  const range = new RegExp(`\\bbetween\\s+${amount}\\s+and\\s+${amount}`, 'gi')
  const bounded: Array<[number, number]> = []
  for (let match = range.exec(text); match; match = range.exec(text)) {
    const [low, high] = [valueOf(match[1], match[2]), valueOf(match[3], match[4])]
    // Two bare years are a span of time; "$1900", "2k" are amounts.
    const years =
      !match[0].includes('$') &&
      !match[2] &&
      !match[4] &&
      [match[1], match[3]].every((digits) => /^(19|20)\d\d$/.test(digits))
    if (years || !(low <= high)) continue
    const member = memberOf()
    if (!member) continue
    const words = wordsOf(match[0])
    found.push({ member, op: '>=', value: low, words }, { member, op: '<=', value: high, words })
    bounded.push([match.index, match.index + match[0].length])
  }
  const pattern = new RegExp(amount, 'gi')
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    if (bounded.some(([from, to]) => match!.index >= from && match!.index < to)) continue
    const before = text.slice(0, match.index)
    const comparison = COMPARISONS.find(([regex]) => regex.test(before))
    if (!comparison) continue
    const value = valueOf(match[1], match[2])
    const after = text
      .slice(match.index + match[0].length)
      .split(/[^a-z]+/)
      .filter(Boolean)
      .slice(0, 2)
    if (after.some((word) => index.cubes.some((cube) => sameWord(word, cubeNoun(cube.name))))) continue
    const lead = comparison[0].exec(before)?.[0] ?? ''
    // "longer than 3 hours": a length in the unit its column is kept in (minutes unless its words say otherwise).
    const unit = TIME_UNITS[after[0] ?? '']
    if (unit) {
      const lengths = numbers
        .map((dim) => ({ dim, kept: unitOf(dim) }))
        .filter((entry): entry is { dim: MetaMember; kept: number } => entry.kept !== undefined)
      const length = lengths.find((entry) => said(cubeNoun(entry.dim.cube))) ?? lengths[0]
      if (!length) continue
      found.push({
        member: length.dim,
        op: comparison[1],
        value: (value * unit) / length.kept,
        words: wordsOf(lead, match[0].toLowerCase(), after[0]),
      })
      continue
    }
    const member = memberOf()
    if (!member) continue
    found.push({ member, op: comparison[1], value, words: wordsOf(lead, match[0].toLowerCase()) })
  }
  // "rentals never returned", "orders not yet shipped": the things whose date of it is empty.
  if (/\b(?:never|not|yet|still)\b|n[’']t\b/.test(text))
    for (const cube of index.cubes) {
      if (!said(cubeNoun(cube.name))) continue
      for (const dim of cube.dimensions) {
        if (dim.type !== 'time') continue
        const verb = distinctive(dim).find(
          (word) => word.length >= 3 && !['date', 'time', 'day', 'at', 'on'].includes(word),
        )
        if (!verb || !text.includes(verb.slice(0, 3))) continue
        const w = verb.replace(/e$/, '')
        // ("Return date": returned; "Shipped date": shipped.)
        const done = verb.endsWith('ed') ? verb : `(?:${w}e?d|${w}${w.at(-1)}ed|${w.replace(/y$/, 'i')}d)`
        const match = new RegExp(
          `(?:\\b(?:never|not yet|not|still not|yet to be)|n[’']t)\\s+(?:been\\s+|yet\\s+)?${done}\\b`,
        ).exec(text)
        if (!match || found.some((entry) => entry.member === dim)) continue
        const lead = /^n[’']/.test(match[0]) ? (text.slice(0, match.index).match(/[a-z]+$/)?.[0] ?? '') : ''
        found.push({ member: dim, op: 'none', value: 0, words: (lead + match[0]).split(/[^a-z0-9]+/).filter(Boolean) })
      }
    }
  // "discounted orders", "orders with a discount": the number above zero; "without a discount", "orders that didn't
  // have a discount", "not discounted": none of it (zero, or empty where a row has no value at all).
  for (const dim of numbers) {
    for (const word of distinctive(dim)) {
      // (A word of two letters, "kg" or "km", is a unit; "fee", "tax" or "tip" is a thing a row has or not.)
      if (word.length < 3 || !text.includes(word) || sameWord(word, cubeNoun(dim.cube))) continue
      // (A flag of the model's own says it: "has discount".)
      const flag = cubeOf(index, dim.cube)?.dimensions.some(
        (other) => other.type === 'boolean' && distinctive(other).includes(word),
      )
      if (flag) continue
      const w = word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
      const none = new RegExp(
        `(?:\\b(?:without|no)\\s+(?:an?\\s+|any\\s+)?${w}s?\\b|(?:n[’']t|\\bnot)\\s+(?:(?:have|had|get|got|receive|received)\\s+(?:an?\\s+|any\\s+)?${w}s?\\b|(?:been\\s+)?${w}ed\\b)|\\bun${w}ed\\b)`,
      ).exec(text)
      const some = none
        ? undefined
        : new RegExp(
            `\\b(?:(?:with|had|have|having|got|get|received)\\s+(?:an?\\s+|any\\s+|some\\s+)?${w}s?\\b|${w}ed\\s+([a-z]+))`,
          ).exec(text)
      // ("How much was discounted" asks for the discount: the participle filters only the things it names.)
      const thing = some?.[1]
      const named = !thing || index.cubes.some((cube) => sameWord(thing, cubeNoun(cube.name)))
      // (Said of other things, "customers who didn't get a discount" is none of their orders: not read here.)
      const match = (none && said(cubeNoun(dim.cube)) ? none : undefined) ?? (named ? some : undefined)
      if (!match || found.some((entry) => entry.member === dim)) continue
      found.push({
        member: dim,
        op: none ? 'none' : '>',
        value: 0,
        // ("didn't" is read as "didn", "t".)
        words: ((/^n[’']/.test(match[0]) ? (text.slice(0, match.index).match(/[a-z]+$/)?.[0] ?? '') : '') + match[0])
          .split(/[^a-z0-9]+/)
          .filter((part) => part && part !== thing),
      })
      break
    }
  }
  return found
}
