import type { ValueHit } from '../meta-search'
import type { MetaIndex, MetaMember } from './meta-index'
import { words } from './words'

/** Why a question (or part of it) cannot be answered from the data. */
export type Decline =
  | { kind: 'empty' }
  /** A greeting or a question about the analyst itself ("hello", "what can you do?"): not about the data. */
  | { kind: 'greeting'; thanks: boolean }
  | { kind: 'future'; phrase: string }
  | { kind: 'unknown'; parts: string[]; values: ValueHit[]; nearest?: string }
  | { kind: 'no-measure'; parts: string[] }
  | { kind: 'incomplete'; reason: string; nearest?: string }
  /** A word as near to two words of the model: which one is meant is asked back. */
  | { kind: 'spelling'; word: string; options: string[] }

const quoteList = (parts: string[]) => parts.map((part) => `"${part}"`).join(', ')

/** Adjacent unknown words as phrases: `profit margin`, not `profit`, `margin`. */
export function phrases(list: string[], question: string): string[] {
  const all = words(question)
  const parts: string[][] = []
  let last = -2
  for (const word of list) {
    const at = all.indexOf(word, Math.max(0, last + 1))
    if (at === last + 1 && parts.length) parts[parts.length - 1].push(word)
    else parts.push([word])
    last = at
  }
  // Quoted as the user wrote them ("Asia", not "asia") when the words stand together in the question.
  // Word edges of any script: `\b` knows only ASCII letters, and "Ümsatz" was quoted lowercased.
  return parts.map(
    (part) =>
      new RegExp(`(?<![\\p{L}\\p{N}])${part.join('[^\\p{L}\\p{N}]+')}(?![\\p{L}\\p{N}])`, 'iu').exec(question)?.[0] ??
      part.join(' '),
  )
}

/** A sentence about one unknown word: a value of a dimension the caller cannot see, near values, or nothing. */
function aboutPart(part: string, index: MetaIndex, values: ValueHit[]): string {
  const partWords = words(part)
  const near = values.filter((hit) => partWords.some((word) => words(hit.value).includes(word))).slice(0, 5)
  if (near.length)
    return `"${part}" only partly matches ${near.map((hit) => `${index.members.get(hit.member)?.title ?? hit.member} "${hit.value}"`).join(', ')}; name the exact value.`
  const owner = [...index.members.values()].find(
    (member) =>
      member.kind === 'dimension' && partWords.every((word) => words(member.description ?? '').includes(word)),
  )
  if (owner)
    return `"${part}" looks like a ${owner.title}, but there is no ${owner.title} "${part}" in the data you may see, so I will not report a number for it.`
  return `I don't know what "${part}" is in this data: it is not a measure, a dimension or a value you may see.`
}

/** Clauses a greeting or a question about the analyst is made of; anything else is a question about the data. */
const GREETING =
  /^(hi|hello|hey|hiya|howdy|good (morning|afternoon|evening|day)|thanks|thank you|help|help me|what can you do|what do you do|who are you|what are you|what can i ask( you)?|how does this work|how do i use this|how can you help( me)?)( there| again)?$/

/** Whether `question` only greets or asks what the analyst can do ("Hi! What can you do?"). */
export function isGreeting(question: string): boolean {
  const clauses = question
    .toLowerCase()
    .split(/[.,!?;:]+/)
    .map((clause) => clause.replace(/\s+/g, ' ').trim())
    .filter(Boolean)
  return clauses.length > 0 && clauses.every((clause) => GREETING.test(clause))
}

/**
 * Members as a reader knows them: by their titles, once each, never their ids (`orders.total_amount` means nothing
 * to the person asking); a title two cubes share says whose it is (`Amount (Line items)`).
 */
function list(members: MetaMember[], index?: MetaIndex): string {
  const cubesOf = new Map<string, Set<string>>()
  for (const member of members) cubesOf.set(member.title, (cubesOf.get(member.title) ?? new Set()).add(member.cube))
  const cubeTitle = (member: MetaMember) => index?.cubes.find((cube) => cube.name === member.cube)?.title ?? member.cube
  const named = members.map((member) =>
    (cubesOf.get(member.title)?.size ?? 0) > 1 ? `${member.title} (${cubeTitle(member)})` : member.title,
  )
  return [...new Set(named)].join(', ')
}

/**
 * What the analyst says when it cannot map (part of) a question: which part, what it can do nearest to it, and no
 * table — numbers for a different question would be worse than none.
 */
export function writeDecline(decline: Decline, index: MetaIndex): string {
  let reason: string
  const details: string[] = []
  switch (decline.kind) {
    case 'empty':
      reason = 'the question is empty.'
      break
    case 'greeting':
      reason = ''
      break
    case 'future':
      reason = `it asks about the future ("${decline.phrase}"), and the data only holds what has happened. I can show past figures by month or year instead.`
      break
    case 'unknown':
      reason = `I could not map ${quoteList(decline.parts)}.`
      details.push(...decline.parts.map((part) => aboutPart(part, index, decline.values)))
      if (decline.nearest) details.push(`The nearest I can answer without it: ${decline.nearest}.`)
      break
    case 'no-measure':
      reason = decline.parts.length
        ? `no measure of the model matches ${quoteList(decline.parts)}.`
        : 'no measure of the model matches the question.'
      break
    case 'spelling':
      reason = `I am not sure what "${decline.word}" means here: did you mean ${decline.options.map((option) => `"${option}"`).join(' or ')}?`
      break
    case 'incomplete':
      reason = decline.reason
      if (decline.nearest) details.push(`The nearest I can answer: ${decline.nearest}.`)
  }
  const measures = index.cubes.flatMap((cube) => cube.measures).slice(0, 12)
  const dimensions = index.cubes
    .flatMap((cube) => cube.dimensions)
    .filter((dim) => !dim.primaryKey && dim.type !== 'time' && !/(^|_)id$/.test(dim.name))
    .slice(0, 12)
  if (measures.length === 0) return `I could not answer that: ${reason} There is no data I may show you in this model.`
  return [
    decline.kind === 'greeting'
      ? `${decline.thanks ? "You're welcome." : 'Hello!'} I answer questions about the data you may see, with figures from queries I run on it.`
      : `I could not map that question to the data: ${reason}`,
    ...details,
    '',
    `I can answer questions about these measures: ${list(measures, index)}.`,
    dimensions.length
      ? `I can break them down or filter by: ${list(dimensions, index)}, and by day, week, month, quarter or year.`
      : '',
    examplesOf(index, measures, dimensions),
  ]
    .filter((line, position, all) => line !== '' || all[position - 1] !== '')
    .join('\n')
}

/**
 * Questions this model answers, made from its own members: "Revenue by status", "Revenue by month", "Number of
 * orders by region". (Fixed demo questions were offered for every model, also ones with no revenue or region.)
 */
function examplesOf(index: MetaIndex, measures: MetaMember[], dimensions: MetaMember[]): string {
  const first = measures.find((member) => member.type === 'sum') ?? measures[0]
  const second = measures.find((member) => member !== first && member.type === 'count')
  // Text a person groups by: not names, ids or contact details (one row per customer reads as a list, not an answer).
  const texts = dimensions.filter(
    (member) => member.type === 'string' && !/(^|[._])(id|email|phone|name)$/.test(member.name),
  )
  const hasTime = index.cubes.some((cube) => cube.dimensions.some((member) => member.type === 'time'))
  const lower = (title: string) => title.charAt(0).toLowerCase() + title.slice(1)
  const questions = [
    texts[0] && `${first.title} by ${lower(texts[0].title)}`,
    hasTime && `${first.title} by month`,
    second && (texts[1] ?? texts[0]) && `${second.title} by ${lower((texts[1] ?? texts[0]).title)}`,
  ].filter((question): question is string => typeof question === 'string')
  if (questions.length === 0) questions.push(`${first.title}`)
  const quoted = questions.map((question) => `"${question}"`)
  return `For example: ${quoted.length > 1 ? `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}` : quoted[0]}.`
}
