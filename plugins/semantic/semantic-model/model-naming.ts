/**
 * Words of database names, for the titles and the guesses `model generate` makes: `InvoiceLine`, `invoice_line` and
 * `invoiceLine` are the words "invoice line"; `customerID` and `HTTPStatus` keep their acronyms.
 */

/** Words always written in capitals in a title. */
const ACRONYMS = new Set(['id', 'url', 'sku', 'vat', 'gst', 'iso', 'ip', 'uuid', 'isbn', 'ean', 'upc', 'api', 'usd'])

/** The words of a name, as written (case kept): letters of every script, so `Ünïcødé Tåble` is "Ünïcødé", "Tåble". */
export function splitWords(name: string): string[] {
  return name
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu}+)(\p{Lu}\p{Ll})/gu, '$1 $2')
    .split(/[^\p{L}\p{M}\p{N}]+/u)
    .filter((word) => word.length > 0)
}

/** The words of a name in lower case. */
export function lowerWords(name: string): string[] {
  return splitWords(name).map((word) => word.toLowerCase())
}

/** Words as a title: the first capitalised, acronyms in capitals, the rest in lower case. */
export function titleWords(words: string[], allCaps = false): string {
  return words
    .map((word, index) => {
      const lower = word.toLowerCase()
      if (ACRONYMS.has(lower)) return lower.toUpperCase()
      // A word written in capitals inside a mixed-case name (`customerID`, `HTTPStatus`) is an acronym.
      if (!allCaps && word.length >= 2 && word === word.toUpperCase() && /\p{Lu}/u.test(word)) return word
      return index === 0 ? lower.charAt(0).toUpperCase() + lower.slice(1) : lower
    })
    .join(' ')
}

/** `InvoiceDate` → "Invoice date", `customer_id` → "Customer ID", `HTTPStatus` → "HTTP status". */
export function titleOfName(name: string): string {
  const words = splitWords(name)
  // A name all in capitals (`ORDER_DATE`) is no acronym.
  return titleWords(words, name === name.toUpperCase())
}

/** The singular of an English word, as table names are written (`categories` → `category`). */
export function singular(word: string): string {
  const lower = word.toLowerCase()
  if (/(ss|us|is|news|series|data|media)$/.test(lower)) return word
  if (/ies$/.test(lower) && word.length > 4) return `${word.slice(0, -3)}${word.endsWith('IES') ? 'Y' : 'y'}`
  if (/(sses|xes|ches|shes|zes)$/.test(lower)) return word.slice(0, -2)
  if (/[^s]s$/.test(lower)) return word.slice(0, -1)
  return word
}

/** The plural of an English word (`category` → `categories`). */
export function plural(word: string): string {
  const lower = word.toLowerCase()
  if (/(news|series|data|media|staff|people)$/.test(lower)) return word
  if (/[^aeiou]y$/.test(lower)) return `${word.slice(0, -1)}ies`
  if (/(s|x|ch|sh|z)$/.test(lower)) return `${word}es`
  return `${word}s`
}

/** The words of a table's name with the last one singular (`order_details` → order detail). */
export function singularWords(name: string): string[] {
  const words = lowerWords(name)
  if (words.length === 0) return words
  return [...words.slice(0, -1), singular(words[words.length - 1])]
}

/** The words of a table's name with the last one plural (`invoice_line` → invoice lines). */
export function pluralWords(name: string): string[] {
  const words = singularWords(name)
  if (words.length === 0) return words
  return [...words.slice(0, -1), plural(words[words.length - 1])]
}
