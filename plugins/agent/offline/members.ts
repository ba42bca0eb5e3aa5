import type { MetaCube, MetaIndex, MetaMember } from './meta-index'
import { findPhrase, lexiconWords, sameWord, stem, words } from './words'

/** One noun in singular or plural (`order`, `orders`), stricter than `sameWord` (`ordering` is no order). */
export const sameNoun = (word: string, noun: string) =>
  word === noun || `${word}s` === noun || word === `${noun}s` || word.replace(/ies$/, 'y') === noun.replace(/ies$/, 'y')
const GENERIC = new Set([
  'count',
  'number',
  'of',
  'total',
  'sum',
  'avg',
  'average',
  'the',
  'a',
  'is',
  'has',
  'id',
  'at',
])

/** The words that name a member (one per stem: `customer` and `customers` are one word). */
const distinctiveWords = new WeakMap<MetaMember, string[]>()
export function distinctive(member: MetaMember): string[] {
  let list = distinctiveWords.get(member)
  if (!list) {
    const seen = new Set<string>()
    list = [...words(member.name), ...words(member.title), ...(member.synonyms ?? []).flatMap(words)].filter(
      (word) => !GENERIC.has(word) && !seen.has(stem(word)) && seen.add(stem(word)),
    )
    distinctiveWords.set(member, list)
  }
  return list
}

/** The words of the values a description lists ("Africa, Asia, Europe or Oceania"); none for prose. */
function enumerated(description: string | undefined): string[] {
  if (!description || !/^[^.;:]+,[^.;:]+\b(or|and)\b[^.;:]+$/.test(description.trim())) return []
  return words(description).filter((word) => word !== 'or' && word !== 'and')
}

/** Words of a model read once per model: what the dimensions' descriptions mention, what measures are named by. */
export interface Vocabulary {
  described: Set<string>
  measureWords: Set<string>
  nouns: Set<string>
  /** Every word (and its stem) of the model's cube and member names and titles: the model's own words. */
  own: Set<string>
  /** Words a question's word may be a misspelling of: the model's own and descriptions', and the lexicon's. */
  known: Set<string>
  /** A cube's one-word synonyms (both numbers) and the cube's noun they stand for: "visits" → "appointments". */
  aliases: Map<string, string>
}
const vocabularies = new WeakMap<MetaIndex, Vocabulary>()
export function vocabularyOf(index: MetaIndex): Vocabulary {
  let vocabulary = vocabularies.get(index)
  if (!vocabulary) {
    vocabulary = {
      described: new Set(index.cubes.flatMap((cube) => cube.dimensions.flatMap((dim) => enumerated(dim.description)))),
      measureWords: new Set(
        index.cubes.flatMap((cube) =>
          cube.measures.filter((m) => m.type !== 'count' && m.type !== 'count_distinct').flatMap(distinctive),
        ),
      ),
      nouns: new Set(index.cubes.map((cube) => stem(cubeNoun(cube.name)))),
      own: new Set(
        index.cubes
          .flatMap((cube) => [
            cube.name,
            cube.title ?? '',
            ...(cube.synonyms ?? []),
            ...[...cube.measures, ...cube.dimensions].flatMap((member) => [
              member.name,
              member.title,
              ...(member.synonyms ?? []),
            ]),
          ])
          .flatMap((text) => words(text))
          .flatMap((word) => [word, stem(word)]),
      ),
      known: new Set(),
      aliases: new Map(),
    }
    const nouns = index.cubes.map((cube) => cubeNoun(cube.name))
    for (const cube of index.cubes) {
      const noun = cubeNoun(cube.name)
      // "Rented" is done to rentals: the verb a cube's noun is made from reads as the noun ("rented the most").
      const root = stem(noun).replace(/(al|ing|ment|ion)$/, '')
      if (root.length >= 4 && root !== stem(noun))
        for (const verb of [`${root}ed`, `${root}s`]) vocabulary.aliases.set(verb, noun)
      for (const synonym of cube.synonyms ?? []) {
        const said = words(synonym)
        // (Another table's own noun stays that table's: "items" of products are the line items where both are.)
        if (said.length !== 1 || sameWord(said[0], noun) || nouns.some((other) => sameWord(said[0], other))) continue
        const [plural, single] = [said[0], stem(said[0])]
        vocabulary.aliases.set(plural, plural === single ? stem(noun) : noun)
        if (plural !== single) vocabulary.aliases.set(single, stem(noun))
        else vocabulary.aliases.set(`${plural}s`, noun)
      }
    }
    vocabulary.known = new Set([
      ...vocabulary.own,
      ...lexiconWords(),
      ...index.cubes.flatMap((cube) =>
        words([cube.description ?? '', ...cube.dimensions.map((dim) => dim.description ?? '')].join(' ')),
      ),
    ])
    vocabularies.set(index, vocabulary)
  }
  return vocabulary
}
export const mentions = (list: readonly string[], word: string) => list.some((entry) => sameWord(entry, word))
// Read for every measure of every question: each cube's noun once.
const nounsOf = new Map<string, string>()
/** The noun a cube is named by: `line_items` → `items`, `orders` → `orders`. */
export const cubeNoun = (cube: string) => {
  let noun = nounsOf.get(cube)
  if (noun === undefined) {
    noun = words(cube).at(-1) ?? cube
    if (nounsOf.size < 10_000) nounsOf.set(cube, noun)
  }
  return noun
}
export const cubeOf = (index: MetaIndex, name: string): MetaCube | undefined =>
  index.cubes.find((cube) => cube.name === name)

/** Cubes a query on `start` may use without repeating `start`'s rows: many-to-one joins, followed transitively. */
const reaches = new WeakMap<MetaIndex, Map<string, Set<string>>>()
export function reach(index: MetaIndex, start: string): Set<string> {
  let byCube = reaches.get(index)
  if (!byCube) reaches.set(index, (byCube = new Map()))
  let found = byCube.get(start)
  if (!found) byCube.set(start, (found = reachOf(index, start)))
  return found
}

function reachOf(index: MetaIndex, start: string): Set<string> {
  const seen = new Set([start])
  const queue = [start]
  while (queue.length > 0) {
    const current = cubeOf(index, queue.shift()!)
    for (const next of current?.lookups ?? []) if (!seen.has(next)) (seen.add(next), queue.push(next))
  }
  return seen
}

/** Cubes linked to `start` by any join, in either direction. */
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

/** The words of a member's name and title, one per stem, without the generic ones (read once per member). */
const titleWordLists = new WeakMap<MetaMember, string[]>()
function titleWords(member: MetaMember): string[] {
  let list = titleWordLists.get(member)
  if (!list) {
    const all = [...words(member.name), ...words(member.title)]
    list = all.filter((word, at) => !GENERIC.has(word) && all.findIndex((other) => stem(other) === stem(word)) === at)
    titleWordLists.set(member, list)
  }
  return list
}

/** The words of a member's title without the generic ones (read once per member). */
const titleOnlyLists = new WeakMap<MetaMember, string[]>()
function titleOnlyWords(member: MetaMember): string[] {
  let list = titleOnlyLists.get(member)
  if (!list) titleOnlyLists.set(member, (list = words(member.title).filter((word) => !GENERIC.has(word))))
  return list
}

/** Things that are money: "total payments", "fees by doctor" ask for their sum, not how many there are. */
const MONEY_NOUNS = new Set(
  'payment payments charge charges fee fees spending spend receipt receipts takings sale sales revenue'.split(' '),
)

/**
 * "Tuition by group", "total tuition paid" of a table of tuition payments: the words before a money noun in a cube's
 * name say what is paid, so they name the money, not how many payments there were.
 */
function namesWhatIsPaid(question: readonly string[], cube: string): boolean {
  const noun = cubeNoun(cube)
  if (!MONEY_NOUNS.has(noun)) return false
  const before = words(cube).slice(0, -1)
  return before.length > 0 && before.every((word) => !GENERIC.has(word) && mentions(question, word))
}

function intentBonus(question: readonly string[], member: MetaMember): number {
  const has = (...list: string[]) => list.some((word) => question.includes(word))
  const type = member.type
  if (
    type === 'sum' &&
    member.format === 'currency' &&
    !has('many', 'number', 'count') &&
    (question.some((word) => MONEY_NOUNS.has(word) && sameNoun(word, cubeNoun(member.cube))) ||
      namesWhatIsPaid(question, member.cube))
  )
    return 4
  if (has('average') && type === 'avg') return 3
  // "The highest average price" ranks averages: its "highest" says the order, not the maximum.
  if (has('average', 'mean') && (type === 'max' || type === 'min')) return -4
  if ((has('many') || findPhrase(question, ['number', 'of']) >= 0) && (type === 'count' || type === 'count_distinct'))
    return 2
  if (has('distinct', 'unique', 'different') && type === 'count_distinct') return 2
  if (has('total', 'sum', 'revenue', 'amount', 'much') && type === 'sum') return 2
  if (has('rate') && (type === 'number' || member.format === 'percent')) return 2
  // "the biggest order", "our smallest order": the extreme of the cube's things.
  const extreme = (list: string[]) =>
    question.some((word, at) => list.includes(word) && sameNoun(question[at + 1] ?? '', cubeNoun(member.cube)))
  if ((has('maximum', 'max') || extreme(['biggest', 'largest', 'highest', 'greatest'])) && type === 'max') return 4
  if ((has('minimum', 'min') || extreme(['smallest', 'lowest', 'tiniest'])) && type === 'min') return 4
  // "The heaviest weight kg" is the largest of a weight, never of whatever else a table's largest measure gives.
  if (isWeight(member) && ((has('heaviest') && type === 'max') || (has('lightest') && type === 'min'))) return 4
  return 0
}

/** A measure of a weight ("Largest weight kg", `max_mass`): the one "heaviest" and "lightest" speak of. */
export function isWeight(member: MetaMember): boolean {
  return /\b(weights?|kgs?|kilos?|kilograms?|grams?|mass|lbs?|tonnes?|tons?)\b/i.test(
    `${member.name.split('.').at(-1)?.replace(/_/g, ' ')} ${member.title ?? ''}`,
  )
}

/**
 * How well a measure fits the words of a question; 0 when nothing of it is asked for. The cube's own noun counts
 * little ("orders" does not ask for the average order value), unless the measure is that cube's plain count.
 */
export function scoreMeasure(
  question: readonly string[],
  member: MetaMember,
  nouns?: ReadonlySet<string>,
): { score: number; matched: number } {
  const noun = cubeNoun(member.cube)
  // The words of its name and title; a synonym the question says counts as one of them matched.
  const synonym = (member.synonyms ?? []).some((entry) => words(entry).every((word) => mentions(question, word)))
  // A count titled by another table's noun ("Number of order details") counts its own rows, not that table's.
  const counting = member.type === 'count'
  const own = titleWords(member).filter((word) => !(counting && nouns?.has(stem(word))) && !sameNoun(word, noun))
  const titleOwn = titleOnlyWords(member).filter((word) => !sameNoun(word, noun))
  const cubeMentioned = mentions(question, noun)
  const intent = intentBonus(question, member)
  const fullTitle = titleOwn.length > 0 && titleOwn.every((word) => mentions(question, word)) ? 2 : 0
  if (own.length === 0)
    return cubeMentioned || synonym ? { score: 3 + intent, matched: 1 } : { score: intent, matched: 0 }
  // "the biggest order" names the largest order as much as its title does.
  // A maximum named by its "highest" alone is not asked for: "and the lowest?" turns a ranking around.
  const said = own.filter((word) => mentions(question, word))
  const extremeOnly = said.length > 0 && said.every((word) => EXTREMES.has(word)) && intent !== 4 && !synonym
  const matched = (extremeOnly ? 0 : said.length) + (intent === 4 ? 1 : 0) + (synonym ? 1 : 0)
  if (matched === 0 && intent === 0) return { score: 0, matched }
  const titleMatched = titleOwn.filter((word) => mentions(question, word)).length
  // A count only wins on its name when counting is asked for, or nothing more specific matches.
  const uncalledCount = (member.type === 'count' || member.type === 'count_distinct') && intent === 0 ? 2 : 0
  return {
    score:
      3 * matched - (titleOwn.length - titleMatched) + fullTitle + intent + (cubeMentioned ? 1 : 0) - uncalledCount,
    matched,
  }
}

const EXTREMES = new Set(['highest', 'lowest', 'largest', 'smallest', 'biggest', 'greatest', 'maximum', 'minimum'])

/** A `title` that is a role, not a name ("Job title", "the employee's position"). */
const ROLE = /\b(job|role|position|rank|honorific|salutation)\b/i

/**
 * The dimension that names the things of a cube: the model's `label`, else its `name`, else a `title` that is not a
 * job title, else its first plain string.
 */
export function labelDimension(index: MetaIndex, cube: string): MetaMember | undefined {
  const entry = cubeOf(index, cube)
  const dims = entry?.dimensions ?? []
  return (
    (entry?.label ? dims.find((dim) => dim.path === entry.label) : undefined) ??
    dims.find((dim) => dim.type === 'string' && dim.name === 'name') ??
    dims.find(
      (dim) => dim.type === 'string' && dim.name === 'title' && !ROLE.test(`${dim.title} ${dim.description ?? ''}`),
    ) ??
    dims.find((dim) => dim.type === 'string' && !dim.primaryKey && !/email|phone/.test(dim.name))
  )
}

/** Whether a dimension names the rows of its cube (its label, a name): rows are then grouped by their key. */
export function namesRows(index: MetaIndex, member: MetaMember | undefined): member is MetaMember {
  if (!member || member !== labelDimension(index, member.cube)) return false
  return cubeOf(index, member.cube)?.label === member.path || /^(name|title)$/.test(member.name)
}

/** The primary key beside a label dimension (`customers.name` → `customers.id`): things are grouped by identity. */
export function keyOf(index: MetaIndex, label: MetaMember): MetaMember | undefined {
  if (!namesRows(index, label)) return undefined
  return cubeOf(index, label.cube)?.dimensions.find((dim) => dim.primaryKey)
}

/**
 * The dimension a phrase names: a member (`region`, `order status`) or a cube (`products` → its name). A number
 * dimension only when `numbers` says so (a breakdown asked for by name, "by user" where `user` is a number column):
 * elsewhere its words are a quantity's ("average total"), not a breakdown's.
 */
export function matchDimension(
  index: MetaIndex,
  phrase: readonly string[],
  near: Set<string>,
  numbers = false,
): MetaMember | undefined {
  let best: { member: MetaMember; score: number } | undefined
  for (const cube of index.cubes)
    for (const member of cube.dimensions) {
      if (member.primaryKey || member.type === 'time' || (member.type === 'number') !== numbers) continue
      if (/(^|_)id$/.test(member.name) && !phrase.includes('id')) continue
      // "Order amount" is not named by "orders": the cube's noun names the cube, not the member.
      const own = distinctive(member).filter(
        (word) => !sameWord(word, cubeNoun(member.cube)) || namesRows(index, member),
      )
      if (own.length === 0) continue
      const matched = own.filter((word) => mentions(phrase, word)).length
      if (matched === 0) continue
      const score =
        3 * matched -
        (own.length - matched) +
        (near.has(member.cube) ? 2 : 0) +
        (mentions(phrase, cubeNoun(member.cube)) ? 1 : 0)
      if (!best || score > best.score) best = { member, score }
    }
  if (best || numbers) return best?.member
  // "By store": the things of a cube, by their label, or by their key when nothing names them.
  for (const cube of index.cubes)
    if (phrase.some((word) => sameWord(word, cubeNoun(cube.name)))) {
      const label = labelDimension(index, cube.name)
      if (namesRows(index, label)) return label
      const keys = cube.dimensions.filter((dim) => dim.primaryKey)
      if (!label && keys.length === 1) return keys[0]
    }
  return undefined
}

/** The time dimension for a measure: one the question names ("signup date"), else the measure's cube's own. */
export function timeDimensionFor(index: MetaIndex, question: readonly string[], cube: string): MetaMember | undefined {
  const near = [...reach(index, cube)]
  const times = index.cubes.flatMap((entry) => entry.dimensions.filter((dim) => dim.type === 'time'))
  const named = times.find(
    (dim) =>
      near.includes(dim.cube) &&
      // (Not by a particle: "go up" names no "sign-up date".)
      distinctive(dim).some(
        (word) => word.length > 2 && mentions(question, word) && !['date', 'created', 'day', 'time'].includes(word),
      ),
  )
  return (
    named ??
    times.find((dim) => dim.cube === cube) ??
    near.flatMap((name) => times.filter((dim) => dim.cube === name))[0]
  )
}
