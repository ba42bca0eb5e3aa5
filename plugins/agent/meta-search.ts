import type { ServiceMetaInput } from '../semantic/model'
import { sqlMember, sqlName } from '../semantic/query/sql-names'
import { editDistance, placeForms } from './offline/lexicon'
import type { AnalystTools } from './tool-calls'

/** A dimension value that contains a word searched for. */
export interface ValueHit {
  member: string
  value: string
}

/** The first and latest date of a time dimension, as the caller may see them. */
export interface DateSpan {
  member: string
  first: string | null
  latest: string | null
}

interface MetaMemberLike {
  name?: string
  type?: string
  primaryKey?: boolean
}
interface MetaLike {
  cubes?: Array<{ name?: string; type?: string; dimensions?: MetaMemberLike[] }>
  error?: string
}

/**
 * Searched words without their endings (`returns` finds `returned`), three letters or more (or a letter and a digit,
 * `8B`), at most twelve; a word written with hyphens whole ("no-show"), and a people's word also as its place
 * ("asian" finds "Asia"). Letters of every script belong to their word: "crème" is searched whole, not as "cr" and
 * "me".
 */
const searchWords = (query: string) =>
  [
    ...new Set(
      query
        .toLowerCase()
        .split(/[^\p{L}\p{N}-]+/u)
        .map((word) => word.replace(/^-+|-+$/g, ''))
        .flatMap((word) =>
          word.includes('-') ? [word] : [word.replace(/(ies|es|s|ed|ing)$/, ''), ...placeForms(word)],
        )
        // (Two characters only as a code of a letter and a digit: "8B", "A1" name a group or a grade.)
        .filter((word) => (word.length >= 3 || /^(\p{L}\p{N}|\p{N}\p{L})$/u.test(word)) && !/^\d+$/.test(word)),
    ),
  ].slice(0, 12)

/** Words of a value one or two letters from a searched word ("electroncis" of "Electronics"). */
const nearValue = (value: string, term: string) =>
  value
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .some(
      (word) => word[0] === term[0] && editDistance(word, term, term.length >= 8 ? 2 : 1) <= (term.length >= 8 ? 2 : 1),
    )

/** Dimensions with fewer values than this are read whole for a misspelled word; longer lists (names) are not. */
const NEAR_LIMIT = 200

/** String dimensions whose values people name in questions: not keys, not contact details. */
function searchable(member: MetaMemberLike): boolean {
  const name = member.name ?? ''
  return member.type === 'string' && !member.primaryKey && !/(email|phone|(^|[._])id)$/.test(name)
}

/**
 * `serviceMeta` with a search: the members that match, plus the values of string dimensions that contain one of
 * the searched words and the date span of every time dimension, all as the caller may see them (row-level
 * security applies to the value and date queries). One lookup answers "which dimension holds `Asia`?" and "how
 * recent is the data?", instead of one query per dimension shown to the user.
 */
export async function searchMeta(tools: AnalystTools, input: ServiceMetaInput): Promise<unknown> {
  const query = typeof input?.searchQuery === 'string' ? input.searchQuery : ''
  const found = (await tools.serviceMeta(input)) as MetaLike
  if (query.trim() === '' || found?.error) return found
  const whole = (await tools.serviceMeta({})) as MetaLike
  const cubes = (whole?.cubes ?? []).filter((cube) => cube.type !== 'view' && cube.name)
  const terms = searchWords(query)
  let answered = 0
  let failure: string | undefined
  const rows = async (sqlQuery: string) => {
    const result = (await tools.serviceSqlApi({ sqlQuery })) as { data?: Array<Array<string | null>>; error?: string }
    if (typeof result?.error === 'string') failure ??= result.error
    else answered++
    return result?.data ?? []
  }
  const valueSearches = terms.length
    ? cubes.flatMap((cube) =>
        (cube.dimensions ?? []).filter(searchable).map(async (member): Promise<ValueHit[]> => {
          const where = terms.map((term) => `${sqlMember(member.name!)} ILIKE '%${term}%'`).join(' OR ')
          const data = await rows(
            `SELECT ${sqlMember(member.name!)} FROM ${sqlName(cube.name!)} WHERE ${where} GROUP BY 1 ORDER BY 1 LIMIT 50`,
          )
          return data.flatMap((row) => (row[0] ? [{ member: member.name!, value: row[0] }] : []))
        }),
      )
    : []
  const dateSearches = cubes.flatMap((cube) =>
    (cube.dimensions ?? [])
      .filter((member) => member.type === 'time')
      .map(async (member): Promise<DateSpan> => {
        const [row] = await rows(
          `SELECT MIN(${sqlMember(member.name!)}) AS first, MAX(${sqlMember(member.name!)}) AS latest FROM ${sqlName(cube.name!)}`,
        )
        return { member: member.name!, first: row?.[0] ?? null, latest: row?.[1] ?? null }
      }),
  )
  const [values, dates] = await Promise.all([Promise.all(valueSearches), Promise.all(dateSearches)])
  // Not one search answered (the database is down, say): the question's words were not looked up, which is no
  // finding that the data lacks them.
  if (answered === 0 && failure !== undefined) return { error: failure }
  const hits = values.flat()
  // Words no value contains may be misspelled: the values of the shorter lists are read for near ones.
  const missed = terms.filter(
    (term) => term.length >= 5 && !term.includes('-') && !hits.some((hit) => hit.value.toLowerCase().includes(term)),
  )
  if (missed.length) {
    const near = await Promise.all(
      cubes.flatMap((cube) =>
        (cube.dimensions ?? []).filter(searchable).map(async (member): Promise<ValueHit[]> => {
          const data = await rows(
            `SELECT ${sqlMember(member.name!)} FROM ${sqlName(cube.name!)} GROUP BY 1 ORDER BY 1 LIMIT ${NEAR_LIMIT}`,
          )
          if (data.length >= NEAR_LIMIT) return []
          return data.flatMap((row) =>
            row[0] && missed.some((term) => nearValue(row[0]!, term)) ? [{ member: member.name!, value: row[0] }] : [],
          )
        }),
      ),
    )
    hits.push(
      ...near.flat().filter((hit) => !hits.some((other) => other.member === hit.member && other.value === hit.value)),
    )
  }
  return { ...found, values: hits, dates }
}
