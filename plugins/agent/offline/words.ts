/** Everyday words for what models usually call otherwise. */
const SYNONYMS: Record<string, string> = {
  cancellation: 'cancelled',
  cancellations: 'cancelled',
  earn: 'revenue',
  earned: 'revenue',
  earning: 'revenue',
  sells: 'sold',
  sell: 'sold',
  selling: 'sold',
  sales: 'revenue',
  earnings: 'revenue',
  income: 'revenue',
  turnover: 'revenue',
  takings: 'revenue',
  spend: 'revenue',
  spends: 'revenue',
  spent: 'revenue',
  spending: 'revenue',
  purchases: 'orders',
  purchase: 'order',
  transactions: 'orders',
  transaction: 'order',
  clients: 'customers',
  client: 'customer',
  buyers: 'customers',
  buyer: 'customer',
  shoppers: 'customers',
  typical: 'average',
  mean: 'average',
  avg: 'average',
  signups: 'signup',
  signed: 'signup',
  registered: 'signup',
  joined: 'signup',
  discounted: 'discount',
  expensive: 'price',
  priciest: 'price',
  cheapest: 'price',
  cheap: 'price',
  pricey: 'price',
  catalog: 'catalogue',
  popular: 'sold',
  popularity: 'sold',
}

/** Lowercase words of a text: letters and digits of any script (`Ümsatz` stays whole), everything else a separator (`&` reads as `and`, `%` as `percent`). */
export function words(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/%/g, ' percent ')
    .replace(/\bnon-/g, 'non ')
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
}

/**
 * The words of a question, with everyday synonyms mapped to the usual model vocabulary, except words the model uses
 * itself (`own`): in a model with an "Active" flag, "active customers" are those, not the customers who ordered.
 */
export function questionWords(
  text: string,
  own?: ReadonlySet<string>,
  aliases?: ReadonlyMap<string, string>,
): string[] {
  return words(text).map((word) => {
    // A cube's synonym ("visits" of appointments) is read as the cube's own noun.
    const alias = aliases?.get(word)
    if (alias) return alias
    if (own?.has(word) || own?.has(stem(word))) return word
    // Read as the model's word only when the model has that word: on a model whose status has the value "active",
    // "active subscriptions" are those, not ordering ones.
    const known = KNOWN_SYNONYMS[word]
    if (known && own?.has(known)) return known
    const mapped = SYNONYMS[word] ?? word
    return own ? modelWord(mapped, own) : mapped
  })
}

/**
 * Words of one meaning: a question's word is read as the one of its group the model uses. A model with a "Sales"
 * measure is asked for "revenue" by that name, and one with "Clients" for "customers".
 */
export const GROUPS: string[][] = [
  ['revenue', 'sales', 'turnover', 'income', 'earnings', 'takings'],
  ['orders', 'purchases', 'transactions', 'invoices', 'bookings'],
  ['order', 'purchase', 'transaction', 'invoice', 'booking'],
  ['customers', 'clients', 'buyers', 'shoppers', 'patrons'],
  ['customer', 'client', 'buyer', 'shopper', 'patron'],
]

/**
 * The model's word for a lexicon word: the word itself when the model has it, else the word of its group the model
 * has. (A model without a word for revenue has "revenue" among its main money measure's synonyms.)
 */
export function modelWord(word: string, own: ReadonlySet<string>): string {
  if (own.has(word)) return word
  const group = GROUPS.find((list) => list.includes(word))
  const owned = group?.find((entry) => own.has(entry))
  if (owned) return owned
  return word
}

/** Synonyms that hold only for a model that names the word they map to. */
const KNOWN_SYNONYMS: Record<string, string> = {
  active: 'ordering',
}

/** `orders` ~ `order`, `categories` ~ `category`, `status` ~ `status`: good enough for matching member names. */
export function sameWord(left: string, right: string): boolean {
  return left === right || stem(left) === stem(right) || esPlural(left, right) || esPlural(right, left)
}

/** "statuses" and "status", "boxes" and "box": a plural that adds "es" (where "houses" only adds "s" to "house"). */
function esPlural(plural: string, singular: string): boolean {
  return plural.length === singular.length + 2 && plural.endsWith('es') && plural.startsWith(singular)
}

// Questions use few distinct words and compare them often: each word is stemmed once.
const stems = new Map<string, string>()
export function stem(word: string): string {
  let stemmed = stems.get(word)
  if (stemmed === undefined) {
    stemmed = stemOf(word)
    if (stems.size < 50_000) stems.set(word, stemmed)
  }
  return stemmed
}

function stemOf(word: string): string {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`
  if (word.length > 5 && word.endsWith('ing')) return word.slice(0, -3)
  if (word.length > 4 && word.endsWith('ed')) return word.slice(0, -2)
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss') && !word.endsWith('us')) return word.slice(0, -1)
  return word
}

/**
 * The forms of the verb a date's title starts with ("Shipped on": shipped, ship, ships, shipping), none for a title
 * that starts with no past participle ("Exam date"). A word in -ed whose stem is under three letters, or in -eed, is
 * taken for no verb's ("Feed date", "Need by", "Seed date", "Speed date": no "fee", "see", "we" or "speed" is the rows'
 * event, and one read as such would be dropped from a question that means something else; "Agreed on" goes with them).
 */
export function eventVerbForms(title: string): string[] {
  const verb = words(title)[0] ?? ''
  if (!verb.endsWith('ed') || verb.endsWith('eed')) return []
  const stemmed = verb.slice(0, -2)
  if (stemmed.length < 3 || !/[aeiouy]/.test(stemmed)) return []
  // "shipped": ship, "enrolled": enroll, "hired": hire (a form no one writes, "shipp", matches nothing).
  const bases = [stemmed, stemmed.replace(/([^aeiou])\1$/, '$1'), `${stemmed}e`]
  return [verb, `${stemmed}ing`, ...bases.flatMap((base) => [base, `${base}s`])]
}

/** Index of `phrase` (a word list) inside `list`, or -1. */
export function findPhrase(list: readonly string[], phrase: readonly string[], from = 0): number {
  outer: for (let index = from; index + phrase.length <= list.length; index++) {
    for (let offset = 0; offset < phrase.length; offset++)
      if (!sameWord(list[index + offset], phrase[offset])) continue outer
    return index
  }
  return -1
}

const set = (text: string) => new Set(text.split(/\s+/).filter(Boolean))

/** Words that carry no meaning of their own in an analytics question. */
export const STOPWORDS =
  set(`a an the of in on for by per to from what which who whom how many much is are was were be been
  being show me give list tell please each every all and or with during between over across our we us do did does that
  this these those it its there their have has had get find see display as at than into within about i you your my can
  could would should some any value values data overall breakdown broken down split grouped group sorted sort ordered
  trend trends trending trended chart table numbers number count counts total totals sum overall amount amounts so far up placed made
  bought purchased happened received generated earned like look looks got went came come comes coming here more less
  doing done distinct unique different let lets let's know just only also too now then again same instead them they
  one ones whole entire ever single kind type types level levels figure figures result results report stats statistics
  across along place places put bring brought make makes generate generates say see shown per cent tally people thing
  things items item new break it its please want wanted need needed ok okay filter filters s t d ll re ve m given give gave giving granted paid pay pays paying buy buys earn earns
  receive receives get gets getting generating bringing bring in out our ours overall currently current actually
  exactly roughly approximately about around total overall named called whose hi hello hey thanks thank still yet
  everything anything where whereas whether while`)

/**
 * Stopwords that name a breakdown after "by" ("revenue by group", "by type"): a model's dimension of that name, else a
 * breakdown the question asks for and the model lacks, never nothing.
 */
export const BREAKDOWN_NOUNS = set(`group groups type types kind kinds level levels value values item items place
  places thing things figure figures result results amount amounts`)

/** Words that say what kind of analysis is asked; understood, never a member or a value. */
export const INTENT_WORDS = set(`growth grow grew grown growing change changes changed changing increase increased
  increasing decrease decreased decreasing rise rose risen fall fell fallen drop dropped dropping decline declined
  declining difference delta yoy qoq mom wow dod share shares percentage percent proportion fraction portion ratio rate compare
  compared comparing comparison versus vs against side relative why reason reasons explain cause caused
  top bottom best worst highest lowest most least largest smallest biggest greatest leading max min maximum minimum
  fastest slowest strongest weakest busiest quietest peak record best-selling average fewest go goes going went up
  down better worse improve improved how much many`)

const MONTH_ABBREVIATIONS: Record<string, string> = {
  jan: 'january',
  feb: 'february',
  mar: 'march',
  apr: 'april',
  jun: 'june',
  jul: 'july',
  aug: 'august',
  sep: 'september',
  sept: 'september',
  oct: 'october',
  nov: 'november',
  dec: 'december',
}

/**
 * "Sept 2025", "in Jan" as the months' names, so every reader of the question sees one word for a month: only before
 * a year or after a word that leads a date, and never a word the model uses itself (an "APR" measure, an account
 * named Jan is matched by its value later, and "from Jan" stays the account).
 */
export function expandMonthAbbreviations(question: string, own?: ReadonlySet<string>): string {
  return question.replace(
    /(?<=\b(?:in|of|during|since|until|till|before|after|through|between|and|to|vs)\s+)(jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\b\.?|\b(jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\b\.?(?=\s*'?\d{2}(?:\d{2})?\b)/gi,
    (abbreviation) => {
      const word = abbreviation.replace('.', '').toLowerCase()
      return own?.has(word) ? abbreviation : (MONTH_ABBREVIATIONS[word] ?? abbreviation)
    },
  )
}

export const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
]

/** Every word the analyst reads without the model: synonyms, groups, stop and intent words, months. */
export function lexiconWords(): Set<string> {
  return new Set([
    ...Object.keys(SYNONYMS),
    ...Object.values(SYNONYMS),
    ...Object.keys(KNOWN_SYNONYMS),
    ...GROUPS.flat(),
    ...STOPWORDS,
    ...INTENT_WORDS,
    ...MONTHS,
    ...Object.keys(MONTH_ABBREVIATIONS),
  ])
}
