/** Everyday words for what models usually call otherwise. */
const SYNONYMS: Record<string, string> = {
  selling: 'sold',
  sells: 'sold',
  sell: 'sold',
  sales: 'revenue',
  earnings: 'revenue',
  income: 'revenue',
  turnover: 'revenue',
  purchases: 'orders',
  clients: 'customers',
  client: 'customer',
  buyers: 'customers',
}

/** Lowercase words of a text: letters and digits, everything else a separator (`&` reads as `and`). */
export function words(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/&/g, ' and ')
    .split(/[^a-z0-9]+/)
    .filter(Boolean)
}

/** The words of a question, with everyday synonyms mapped to the usual model vocabulary. */
export function questionWords(text: string): string[] {
  return words(text).map((word) => SYNONYMS[word] ?? word)
}

/** `orders` ~ `order`, `categories` ~ `category`, `status` ~ `status`: good enough for matching member names. */
export function sameWord(left: string, right: string): boolean {
  if (left === right) return true
  return stem(left) === stem(right)
}

function stem(word: string): string {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`
  if (word.length > 5 && word.endsWith('ing')) return word.slice(0, -3)
  if (word.length > 4 && word.endsWith('ed')) return word.slice(0, -2)
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss') && !word.endsWith('us')) return word.slice(0, -1)
  return word
}

/** Index of `phrase` (a word list) inside `list`, or -1. */
export function findPhrase(list: readonly string[], phrase: readonly string[], from = 0): number {
  outer: for (let index = from; index + phrase.length <= list.length; index++) {
    for (let offset = 0; offset < phrase.length; offset++) if (!sameWord(list[index + offset], phrase[offset])) continue outer
    return index
  }
  return -1
}

/** Words that carry no meaning of their own in an analytics question. */
export const STOPWORDS = new Set(
  `a an the of in on for by per to from what which who how many much is are was were be been being show me give list
  tell please each every all and or with during between over across our we us do did does that this these those it its
  there their have has had get find see display as at than into within about i you your my can could would should
  some any value values data overall breakdown broken down split grouped group sorted sort order ordered trend trends
  compare comparison versus vs when where chart table numbers number count counts total totals sum average avg mean
  top bottom best worst highest lowest most least largest smallest biggest max min maximum minimum first last past
  previous recent latest this year years month months quarter quarters week weeks day days daily weekly monthly
  quarterly yearly annual annually since before after until through ytd date dates time period periods so far up
  placed made ordered bought sold purchased happened received generated earned like look looks got went came
  there here many much more less doing done distinct unique different`.split(
    /\s+/,
  ),
)

export const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december']
