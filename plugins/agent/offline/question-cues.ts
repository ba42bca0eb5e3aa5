import type { BooleanFilter, Frame, ValueFilter } from './frame'
import type { MetaIndex, MetaMember } from './meta-index'
import { cubeNoun, distinctive, sameNoun } from './members'
import type { Tokens } from './tokens'
import { findPhrase, sameWord, words } from './words'

/**
 * Cues of a question that decide what is counted, what a share is of, and what cannot be answered in one query:
 * read by `parseQuestion` beside the measures and dimensions it matches.
 */

export const mentionsMember = (member: MetaMember, word: string) =>
  distinctive(member).some((own) => sameWord(own, word)) || sameWord(word, cubeNoun(member.cube))

/** Whether the model has a weekday of its own (a dimension named so): then "by weekday" is that dimension. */
export function hasWeekday(index: MetaIndex): boolean {
  return index.cubes.some((cube) =>
    cube.dimensions.some((dim) => {
      const said = words(`${dim.name} ${dim.title}`)
      return said.some((word) => word.startsWith('weekday')) || (said.includes('day') && said.includes('week'))
    }),
  )
}

/** Nouns made of a value ("cancellations" of cancelled orders): they count the things the value marks. */
export const ORIGINAL_SYNONYM = /^cancellations?$/

/** Verbs of ordering: "how many customers ordered (bought, purchased, spent)" counts the customers who did. */
export const ORDERING = new Set([
  'ordered',
  'order',
  'ordering',
  'bought',
  'buy',
  'buying',
  'purchased',
  'purchase',
  'purchasing',
  'placed',
  'shopped',
  'spent',
  'spend',
  'spends',
  'paid',
])

/** The cube of the things counted: the first cube noun right after "how many" or "number of" (two words at most between). */
export function countedThings(tokens: Tokens, index: MetaIndex): string | undefined {
  const starts = [tokens.find(['many']), tokens.find(['number', 'of'])]
    .filter((at) => at >= 0)
    .map((at) => (tokens.list[at] === 'many' ? at + 1 : at + 2))
  for (const start of starts)
    for (let at = start; at < Math.min(tokens.length, start + 3); at++) {
      const cube = index.cubes.find(
        // A noun's forms only: "number of ordering customers" counts customers, not orders.
        (entry) => entry.measures.length > 0 && sameNoun(tokens.list[at], cubeNoun(entry.name)),
      )
      // "How many product categories": the noun qualifies a dimension of its cube, whose values are counted.
      const next = tokens.list[at + 1]
      if (
        cube &&
        next &&
        cube.dimensions.some((dim) => dim.type === 'string' && !dim.primaryKey && mentionsMember(dim, next))
      )
        return undefined
      if (cube) return cube.name
    }
  return undefined
}

/** Words after which a share's question names its part: "what share of Asia's orders WERE cancelled". */
const SHARE_SPLIT = new Set(['are', 'were', 'is', 'was', 'come', 'comes', 'came', 'from', 'had', 'has', 'have'])
const AS_SHARE_OF = ['share', 'percentage', 'percent', 'proportion', 'fraction', 'part'].flatMap((noun) => [
  ['as', 'a', noun, 'of'],
  ['as', noun, 'of'],
])

/**
 * Marks the filters that name a share's whole (`scope`), so the share is taken within them: "what share of VIP
 * customers are in Europe" is Europe's part of the VIP customers (127 of 409), not of all customers (127 of 8,000).
 * The whole is named first, then a verb or "from" and the part; "Electronics as a share of Europe's revenue" names
 * the part first. Without such a split, or when every filter falls on one side, the share is of everything.
 */
export function scopeShare(tokens: Tokens, filters: Array<ValueFilter | BooleanFilter>): void {
  const placed = filters.filter((filter) => filter.at !== undefined)
  if (placed.length < 2 || placed.length !== filters.length) return
  const asShare = AS_SHARE_OF.map((phrase) => findPhrase(tokens.list, phrase, 0)).find((at) => at >= 0)
  let whole: (filter: ValueFilter | BooleanFilter) => boolean
  if (asShare !== undefined) whole = (filter) => filter.at! > asShare
  else {
    const first = Math.min(...placed.map((filter) => filter.at!))
    const split = tokens.list.findIndex((word, at) => at > first && SHARE_SPLIT.has(word))
    if (split < 0) return
    whole = (filter) => filter.at! < split
  }
  const scoped = placed.filter(whole)
  if (scoped.length === 0 || scoped.length === placed.length) return
  for (const filter of scoped) filter.scope = true
}

/**
 * "The top product in each category": the first of every group, which one ranked query does not give (it gave the one
 * first pair of all). Returns what to say instead, or undefined when the question asks no such thing. `groups` are
 * the titles of the breakdown's dimensions and its time grain.
 */
export function topOfEachGroup(text: string, top: NonNullable<Frame['top']>, groups: string[]): string | undefined {
  if (groups.length < 2 || !/\b(?:in|for|within|of|across)\s+(?:each|every)\b|\bper\b|\beach\b/.test(text))
    return undefined
  // The group is the dimension the "each" names, else the first; the ranked things are another one.
  const group =
    groups.find((name) =>
      new RegExp(`\\b(?:each|every|per)\\s+${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`).test(text),
    ) ?? groups[0]
  const ranked = groups.find((name) => name !== group)
  if (!ranked) return undefined
  const end = top.direction === 'desc' ? 'top' : 'bottom'
  return `the ${end} ${top.n === 1 ? 'one' : top.n} within each ${group} takes one question a ${group}: ask for one at a time (for example "${end} ${ranked} in <a ${group}>"), or for the whole breakdown by ${groups.join(' and ')}.`
}
