import type { MetaMember } from './meta-index'
import type { Understanding } from './question'
import type { DateRange } from './time-range'
import { findPhrase, words } from './words'

/** A tool result of `serviceSqlApi`. */
export interface SqlResult {
  schema?: Array<{ name: string; column_type?: string }>
  data?: Array<Array<string | null>>
  totalRows?: number
  error?: string
}

export interface QueryFilters {
  values: Array<{ member: MetaMember; values: string[] }>
  range?: DateRange
}

const quote = (value: string) => `'${value.replace(/'/g, "''")}'`
/** A safe column alias from a member: `customers.region` → `region`. */
export const alias = (member: MetaMember, suffix = '') => `${member.name}${suffix}`.replace(/[^a-z0-9_]/gi, '_').toLowerCase()

/** The query for the latest date of a time dimension (relative ranges count back from it). */
export function latestDateQuery(time: MetaMember): string {
  return `SELECT MAX(${time.path}) AS latest FROM ${time.cube}`
}

/** The query listing a string dimension's values the caller may see (to recognise them in questions). */
export function valuesQuery(member: MetaMember): string {
  return `SELECT ${member.path} FROM ${member.cube} GROUP BY 1 ORDER BY 1 LIMIT 201`
}

/** String dimensions whose values may appear in a question: not keys, not contact details. */
export function lookupCandidates(dimensions: MetaMember[], near: Set<string>): MetaMember[] {
  return dimensions.filter((member) => member.type === 'string' && !member.primaryKey && near.has(member.cube) && !/email|phone|id$/.test(member.name))
}

/**
 * Matches leftover words of the question against the values a lookup returned; longer values first, so
 * `north america` wins over `america`. Lookups that hit their limit (too many values) are ignored.
 */
export function matchValues(question: string, lookups: Array<{ member: MetaMember; result: SqlResult }>): QueryFilters['values'] {
  const asked = words(question)
  const filters: QueryFilters['values'] = []
  const taken = new Set<number>()
  const options = lookups.flatMap(({ member, result }) => {
    if (!result.data || result.data.length > 200) return []
    return result.data.flatMap((row) => (row[0] ? [{ member, value: row[0], words: words(row[0]) }] : []))
  })
  options.sort((a, b) => b.words.length - a.words.length)
  for (const option of options) {
    if (option.words.length === 0) continue
    const at = findPhrase(asked, option.words)
    if (at < 0) continue
    const span = option.words.map((_, offset) => at + offset)
    if (span.some((position) => taken.has(position))) continue
    span.forEach((position) => taken.add(position))
    const existing = filters.find((filter) => filter.member.path === option.member.path)
    if (existing) existing.values.push(option.value)
    else filters.push({ member: option.member, values: [option.value] })
  }
  return filters
}

/** The main query of a question, in the semantic SQL of `serviceSqlApi`. */
export function mainQuery(understanding: Understanding, filters: QueryFilters): string {
  const { measure, dimensions, granularity, timeDimension, top } = understanding
  const select: string[] = dimensions.map((dimension) => `${dimension.path} AS ${alias(dimension)}`)
  if (granularity && timeDimension) select.push(`DATE_TRUNC('${granularity}', ${timeDimension.path}) AS ${alias(timeDimension, `_${granularity}`)}`)
  const groups = select.length
  select.push(`MEASURE(${measure.path}) AS ${alias(measure)}`)

  const where: string[] = []
  if (filters.range && timeDimension) {
    if (filters.range.from) where.push(`${timeDimension.path} >= ${quote(filters.range.from)}`)
    if (filters.range.to) where.push(`${timeDimension.path} < ${quote(filters.range.to)}`)
  }
  for (const filter of filters.values)
    where.push(filter.values.length === 1 ? `${filter.member.path} = ${quote(filter.values[0])}` : `${filter.member.path} IN (${filter.values.map(quote).join(', ')})`)
  for (const filter of understanding.booleanFilters) where.push(`${filter.member.path} = ${filter.value ? 'TRUE' : 'FALSE'}`)

  let sql = `SELECT ${select.join(', ')} FROM ${measure.cube}`
  if (where.length) sql += ` WHERE ${where.join(' AND ')}`
  if (groups > 0) sql += ` GROUP BY ${Array.from({ length: groups }, (_, index) => index + 1).join(', ')}`
  const measurePosition = groups + 1
  if (top) sql += ` ORDER BY ${measurePosition} ${top.direction.toUpperCase()} LIMIT ${top.n}`
  else if (granularity) sql += ` ORDER BY ${groups} ASC`
  else if (groups > 0) sql += ` ORDER BY ${measurePosition} DESC`
  return sql
}
