import { cell, formatBucket, formatValue } from './format'
import type { MetaIndex, MetaMember } from './meta-index'
import type { SqlResult, QueryFilters } from './plan-query'
import type { Understanding } from './question'

const ADDITIVE = new Set(['count', 'sum'])

function describeFilters(understanding: Understanding, filters: QueryFilters): string {
  const parts: string[] = []
  for (const filter of filters.values) parts.push(`${filter.member.title} ${filter.values.length === 1 ? `= ${filter.values[0]}` : `in ${filter.values.join(', ')}`}`)
  for (const filter of understanding.booleanFilters) parts.push(`${filter.member.title} = ${filter.value ? 'yes' : 'no'}`)
  return parts.length ? ` (${parts.join('; ')})` : ''
}

/** The heading of an answer: `Revenue by Region in 2024 (Status = completed)`. */
export function answerTitle(understanding: Understanding, filters: QueryFilters): string {
  const { measure, dimensions, granularity } = understanding
  const by = [...dimensions.map((dimension) => dimension.title), ...(granularity ? [granularity] : [])]
  const range = filters.range ? ` ${filters.range.label}` : ''
  return `${measure.title}${by.length ? ` by ${by.join(' and ')}` : ''}${range}${describeFilters(understanding, filters)}`
}

/**
 * The final answer: a short summary of what the numbers say, then a markdown table of every number used, all from
 * the query result.
 */
export function writeAnswer(understanding: Understanding, filters: QueryFilters, result: SqlResult): string {
  const { measure, dimensions, granularity } = understanding
  const title = answerTitle(understanding, filters)
  const rows = result.data ?? []
  if (rows.length === 0) return `**${title}**\n\nNo data matched this question, so there is nothing to report.`
  const groups = dimensions.length + (granularity ? 1 : 0)
  const value = (row: Array<string | null>) => formatValue(row[groups], measure)
  const label = (row: Array<string | null>) =>
    [...dimensions.map((_, index) => row[index] ?? '–'), ...(granularity ? [formatBucket(row[dimensions.length], granularity)] : [])].join(', ')

  let summary: string
  if (groups === 0) {
    summary = `${measure.title}${filters.range ? ` ${filters.range.label}` : ''}${describeFilters(understanding, filters)}: **${value(rows[0])}**.`
  } else {
    const numeric = rows.map((row) => Number(row[groups])).filter((entry) => Number.isFinite(entry))
    const ranked = [...rows].sort((a, b) => Number(b[groups]) - Number(a[groups]))
    const highest = ranked[0]
    const lowest = ranked[ranked.length - 1]
    const total = numeric.reduce((sum, entry) => sum + entry, 0)
    const totalText = ADDITIVE.has(measure.type) && rows.length > 1 ? ` The total over these ${rows.length} rows is ${formatValue(total, measure)}.` : ''
    if (granularity && dimensions.length === 0) {
      summary =
        rows.length === 1
          ? `${measure.title} for ${label(rows[0])}: **${value(rows[0])}**.`
          : `${measure.title} ran from ${label(rows[0])} to ${label(rows[rows.length - 1])}: highest in ${label(highest)} (**${value(highest)}**), lowest in ${label(lowest)} (${value(lowest)}).${totalText}`
    } else if (understanding.top) {
      const first = rows[0]
      const word = understanding.top.direction === 'desc' ? 'highest' : 'lowest'
      summary =
        rows.length === 1
          ? `**${label(first)}** has the ${word} ${measure.title.toLowerCase()}: **${value(first)}**.`
          : `The ${understanding.top.direction === 'desc' ? 'top' : 'bottom'} ${rows.length} by ${measure.title.toLowerCase()}: **${label(first)}** leads with **${value(first)}**, followed by ${label(rows[1])} (${value(rows[1])}).${totalText}`
    } else {
      summary =
        rows.length === 1
          ? `${label(rows[0])}: **${value(rows[0])}**.`
          : `**${label(highest)}** has the highest ${measure.title.toLowerCase()} (**${value(highest)}**) and ${label(lowest)} the lowest (${value(lowest)}).${totalText}`
    }
  }

  const headers = [...dimensions.map((dimension) => dimension.title), ...(granularity ? [`${understanding.timeDimension?.title ?? 'Date'} (${granularity})`] : []), measure.title]
  const table = [
    `| ${headers.map(cell).join(' | ')} |`,
    `|${headers.map((_, index) => (index < groups ? '---' : '---:')).join('|')}|`,
    ...rows.map((row) => {
      const cells = [...dimensions.map((_, index) => row[index] ?? '–'), ...(granularity ? [formatBucket(row[dimensions.length], granularity)] : []), value(row)]
      return `| ${cells.map(cell).join(' | ')} |`
    }),
  ].join('\n')
  const more = result.totalRows !== undefined && result.totalRows > rows.length ? `\n\nShowing ${rows.length} of ${result.totalRows} rows.` : ''
  return `**${title}**\n\n${summary}\n\n${table}${more}`
}

/** What the analyst says when it cannot map a question: plainly, with what it can answer. */
export function writeUnmapped(reason: string, index: MetaIndex): string {
  const measures = index.cubes.flatMap((cube) => cube.measures).slice(0, 12)
  const dimensions = index.cubes
    .flatMap((cube) => cube.dimensions)
    .filter((dimension) => !dimension.primaryKey && dimension.type !== 'time')
    .slice(0, 12)
  const list = (members: MetaMember[]) => members.map((member) => `${member.title} (\`${member.path}\`)`).join(', ')
  if (measures.length === 0) return `I could not answer that: ${reason} There is no data I may show you in this model.`
  return [
    `I could not map that question to the data: ${reason}`,
    '',
    `I can answer questions about these measures: ${list(measures)}.`,
    dimensions.length ? `I can break them down by: ${list(dimensions)}, and by day, week, month, quarter or year.` : '',
    'I understand filters such as "in 2024", "from 2022 to 2023", "last 3 months", a value like a region or a status, and "top 5 ..." rankings.',
    'For example: "What was the revenue by region in 2024?" or "Top 5 products by units sold".',
  ]
    .filter((line) => line !== undefined)
    .join('\n')
}
