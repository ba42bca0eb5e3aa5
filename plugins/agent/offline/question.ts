import type { MetaIndex, MetaMember } from './meta-index'
import { parseRange, type RangeSpec } from './time-range'
import { findPhrase, questionWords, sameWord, STOPWORDS, words } from './words'

export type Granularity = 'day' | 'week' | 'month' | 'quarter' | 'year'

/** What the offline analyst understood of a question, in terms of the model. */
export interface Understanding {
  measure: MetaMember
  dimensions: MetaMember[]
  granularity?: Granularity
  timeDimension?: MetaMember
  range?: RangeSpec
  top?: { n: number; direction: 'desc' | 'asc' }
  booleanFilters: Array<{ member: MetaMember; value: boolean }>
  /** Words left over that may be values of string dimensions (`europe`, `completed`). */
  candidates: string[]
  /** Other measures that fit the question, best first, from other cubes: tried when the query fails. */
  alternatives: MetaMember[]
}

export type Reading = { kind: 'understood'; understanding: Understanding } | { kind: 'unmapped'; reason: string }

const GENERIC = new Set(['count', 'number', 'of', 'total', 'sum', 'avg', 'average', 'the', 'a', 'is', 'has', 'id'])
const GRANULARITY_WORDS: Record<string, Granularity> = {
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
const DESC = ['top', 'best', 'highest', 'largest', 'biggest', 'most', 'greatest', 'leading']
const ASC = ['bottom', 'worst', 'lowest', 'smallest', 'least', 'fewest']
const GROUP_MARKERS = [['broken', 'down', 'by'], ['split', 'by'], ['grouped', 'by'], ['for', 'each'], ['for', 'every'], ['by'], ['per'], ['across'], ['each']]
const BOUNDARIES = new Set(['in', 'for', 'during', 'from', 'since', 'last', 'past', 'between', 'where', 'with', 'top', 'sorted', 'ordered', 'this', 'before', 'after', 'over', 'of', 'that', 'which', 'who', 'whose', 'only', 'excluding', 'including'])

const distinctive = (member: MetaMember) => [...new Set([...words(member.name), ...words(member.title)])].filter((word) => !GENERIC.has(word))
const mentions = (question: string[], word: string) => question.some((entry) => sameWord(entry, word))
const cubeNoun = (cube: string) => words(cube).at(-1) ?? cube

/** Cubes reachable from `start` through the joins the meta lists (either direction). */
export function related(index: MetaIndex, start: string): Set<string> {
  const seen = new Set([start])
  const queue = [start]
  while (queue.length > 0) {
    const current = queue.shift()!
    for (const cube of index.cubes) {
      const linked = cube.name === current ? cube.joins : cube.joins.includes(current) ? [cube.name] : []
      for (const next of linked) if (!seen.has(next)) (seen.add(next), queue.push(next))
    }
  }
  return seen
}

function intentBonus(question: string[], member: MetaMember): number {
  const has = (...list: string[]) => list.some((word) => question.includes(word))
  const type = member.type
  if (has('average', 'avg', 'mean') && type === 'avg') return 3
  if ((has('many', 'count') || findPhrase(question, ['number', 'of']) >= 0) && (type === 'count' || type === 'count_distinct')) return 2
  if (has('distinct', 'unique', 'different') && type === 'count_distinct') return 2
  if (has('total', 'sum', 'revenue', 'sales', 'amount') && type === 'sum') return 2
  if (has('rate', 'share', 'ratio', 'percentage', 'percent') && (type === 'number' || member.format === 'percent')) return 2
  if (has('maximum', 'max') && type === 'max') return 2
  if (has('minimum', 'min') && type === 'min') return 2
  return 0
}

function scoreMeasure(question: string[], member: MetaMember): number {
  const own = distinctive(member)
  const matched = own.filter((word) => mentions(question, word)).length
  const titleWords = words(member.title).filter((word) => !GENERIC.has(word))
  const fullTitle = titleWords.length > 0 && titleWords.every((word) => mentions(question, word)) ? 2 : 0
  const cubeMentioned = mentions(question, cubeNoun(member.cube)) ? 1 : 0
  const plainCount = member.name === 'count' && cubeMentioned ? 1 : 0
  const intent = intentBonus(question, member)
  if (matched === 0 && intent === 0) return 0
  // A bare count only wins on the cube's name when nothing more specific matches, or when counting is asked for.
  const uncalledCount = (member.type === 'count' || member.type === 'count_distinct') && intent === 0 ? 2 : 0
  return 3 * matched - (own.length - matched) + fullTitle + intent + cubeMentioned + plainCount - uncalledCount
}

function labelDimension(index: MetaIndex, cube: string): MetaMember | undefined {
  const dims = index.cubes.find((entry) => entry.name === cube)?.dimensions ?? []
  return (
    dims.find((dim) => dim.type === 'string' && (dim.name === 'name' || dim.name === 'title')) ??
    dims.find((dim) => dim.type === 'string' && !dim.primaryKey && !/email|phone/.test(dim.name))
  )
}

/** The dimension a phrase names: a member (`region`, `order status`) or a cube (`products` → its name). */
function matchDimension(index: MetaIndex, phrase: string[], near: Set<string>): MetaMember | undefined {
  let best: { member: MetaMember; score: number } | undefined
  for (const cube of index.cubes)
    for (const member of cube.dimensions) {
      if (member.primaryKey || member.type === 'time') continue
      // Keys (`product_id`) name rows, not groups: only when the question asks for the id itself.
      if (/(^|_)id$/.test(member.name) && !phrase.includes('id')) continue
      const own = distinctive(member)
      const matched = own.filter((word) => mentions(phrase, word)).length
      if (matched === 0) continue
      const score = 3 * matched - (own.length - matched) + (near.has(member.cube) ? 2 : 0) + (mentions(phrase, cubeNoun(member.cube)) ? 1 : 0)
      if (!best || score > best.score) best = { member, score }
    }
  if (best) return best.member
  for (const cube of index.cubes) if (phrase.some((word) => sameWord(word, cubeNoun(cube.name)))) return labelDimension(index, cube.name)
  return undefined
}

export function timeDimensionFor(index: MetaIndex, question: string[], cube: string): MetaMember | undefined {
  const near = [...related(index, cube)]
  const times = index.cubes.flatMap((entry) => entry.dimensions.filter((dim) => dim.type === 'time'))
  const named = times.find((dim) => near.includes(dim.cube) && distinctive(dim).some((word) => mentions(question, word) && !GRANULARITY_WORDS[word] && word !== 'date'))
  return named ?? times.find((dim) => dim.cube === cube) ?? near.flatMap((name) => times.filter((dim) => dim.cube === name))[0]
}

/** Reads a question against the model; says plainly when it cannot. */
export function understand(question: string, index: MetaIndex): Reading {
  const all = questionWords(question)
  if (all.length === 0) return { kind: 'unmapped', reason: 'The question is empty.' }
  const consumed = new Set<string>()
  const parsedRange = parseRange(question)
  parsedRange?.used.forEach((word) => consumed.add(word))

  let granularity: Granularity | undefined
  for (const [index, word] of all.entries()) {
    const unit = GRANULARITY_WORDS[word]
    if (!unit) continue
    const previous = all[index - 1]
    const adjective = /ly$|annual/.test(word)
    if (adjective || ['by', 'per', 'each', 'every', 'and'].includes(previous ?? '')) {
      granularity = unit
      consumed.add(word)
    }
  }
  if (!granularity && (all.includes('trend') || findPhrase(all, ['over', 'time']) >= 0)) granularity = 'month'

  let top: Understanding['top']
  const topMatch = /\b(top|bottom|best|worst|highest|lowest|largest|smallest|biggest)\s+(\d{1,3})\b/.exec(question.toLowerCase())
  const countFirst = /\b(\d{1,3})\s+(best|worst|top|bottom|highest|lowest|largest|smallest|biggest)\b/.exec(question.toLowerCase())
  if (topMatch || countFirst) {
    const word = (topMatch?.[1] ?? countFirst?.[2])!
    top = { n: Math.max(1, Number(topMatch?.[2] ?? countFirst?.[1])), direction: ASC.includes(word) ? 'asc' : 'desc' }
    consumed.add(topMatch?.[2] ?? countFirst![1])
  } else if (/\b(which|what)\b/.test(question.toLowerCase()) && all.some((word) => DESC.includes(word) || ASC.includes(word))) {
    top = { n: 1, direction: all.some((word) => ASC.includes(word)) ? 'asc' : 'desc' }
  } else if (all.includes('top') || all.includes('bottom')) {
    top = { n: 5, direction: all.includes('bottom') ? 'asc' : 'desc' }
  }

  // The measure: the best-scoring one, or the count of a cube the question names.
  const measures = index.cubes.flatMap((cube) => cube.measures)
  const scored = measures
    .map((candidate) => ({ candidate, score: scoreMeasure(all, candidate) }))
    .filter((entry) => entry.score > 0)
    .sort((a, b) => b.score - a.score)
  let measure: MetaMember | undefined = scored[0]?.candidate
  if (!measure) {
    const cube = index.cubes.find((entry) => mentions(all, cubeNoun(entry.name)))
    measure = cube?.measures.find((entry) => entry.type === 'count')
  }
  if (!measure) return { kind: 'unmapped', reason: 'No measure of the model matches the question.' }
  distinctive(measure).forEach((word) => all.filter((entry) => sameWord(entry, word)).forEach((entry) => consumed.add(entry)))
  consumed.add(cubeNoun(measure.cube))

  // Dimensions: the phrases after "by", "per", "across", ...; after "top N"; after "which".
  const near = related(index, measure.cube)
  const dimensions: MetaMember[] = []
  const phrases: string[][] = []
  for (const marker of GROUP_MARKERS) {
    let at = findPhrase(all, marker)
    while (at >= 0) {
      const phrase: string[] = []
      for (let cursor = at + marker.length; cursor < all.length && !BOUNDARIES.has(all[cursor]); cursor++) phrase.push(all[cursor])
      phrases.push(phrase)
      at = findPhrase(all, marker, at + 1)
    }
  }
  const lower = question.toLowerCase()
  const nounAfter = /\b(?:top|bottom|best|worst|which|what)\s+(?:\d{1,3}\s+)?([a-z]+(?:\s+[a-z]+)?)/.exec(lower)
  // "top 5 products", "which region": the noun names the dimension even if the measure's title shares it.
  const ranked = nounAfter ? words(nounAfter[1]) : undefined
  const isConsumed = (word: string) => [...consumed].some((entry) => sameWord(entry, word))
  if (ranked) phrases.push(ranked)
  for (const phrase of phrases) {
    for (const rawPart of splitOnAnd(phrase)) {
      // Words that named the measure ("by units sold") are not a dimension.
      const part = phrase === ranked ? rawPart : rawPart.filter((word) => !isConsumed(word))
      if (part.length === 0 || part.every((word) => GRANULARITY_WORDS[word] || STOPWORDS.has(word))) continue
      const member = matchDimension(index, part, near)
      if (member && !dimensions.some((entry) => entry.path === member.path) && dimensions.length < 2) {
        dimensions.push(member)
        part.forEach((word) => consumed.add(word))
      }
    }
  }

  const booleanFilters: Understanding['booleanFilters'] = []
  for (const cube of index.cubes)
    for (const member of cube.dimensions) {
      if (member.type !== 'boolean' || dimensions.includes(member) || !near.has(member.cube)) continue
      const own = distinctive(member)
      if (own.length === 0 || !own.every((word) => mentions(all, word) && !isConsumed(word))) continue
      const at = all.findIndex((word) => sameWord(word, own[0]))
      const negated = ['non', 'not', 'without', 'no'].includes(all[at - 1] ?? '')
      booleanFilters.push({ member, value: !negated })
      own.forEach((word) => consumed.add(word))
    }

  const range = parsedRange?.range
  const timeDimension = granularity || range ? timeDimensionFor(index, all, measure.cube) : undefined
  if ((granularity || range) && !timeDimension)
    return { kind: 'unmapped', reason: `${measure.title} has no date to slice by time.` }
  if (timeDimension) distinctive(timeDimension).forEach((word) => consumed.add(word))

  const candidates = all.filter(
    (word) => !consumed.has(word) && !STOPWORDS.has(word) && !/^\d+$/.test(word) && !index.cubes.some((cube) => sameWord(word, cubeNoun(cube.name))),
  )
  const chosen = measure
  const alternatives = scored.map((entry) => entry.candidate).filter((candidate) => candidate.cube !== chosen.cube).slice(0, 2)
  return { kind: 'understood', understanding: { measure, dimensions, granularity, timeDimension, range, top, booleanFilters, candidates, alternatives } }
}

function splitOnAnd(phrase: string[]): string[][] {
  const parts: string[][] = [[]]
  for (const word of phrase) {
    if (word === 'and') parts.push([])
    else parts[parts.length - 1].push(word)
  }
  return parts
}
