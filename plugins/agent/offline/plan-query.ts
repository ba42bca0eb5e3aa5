import { sqlMember, sqlName } from '../../semantic/query/sql-names'
import type { BooleanFilter, Frame, Resolved, ValueFilter } from './frame'
import type { MetaIndex, MetaMember } from './meta-index'
import { withKeys } from './question'
import type { DateRange } from './time-range'

/** A tool result of `serviceSqlApi`. */
export interface SqlResult {
  schema?: Array<{ name: string; column_type?: string }>
  data?: Array<Array<string | null>>
  totalRows?: number
  /** Present when the answer came from the cache: when the database computed it. */
  cached?: { computedAt: string }
  error?: string
}

/** One query of a plan, and what its rows mean for the answer. */
export interface PlannedQuery {
  sql: string
  title: string
  /**
   * `main`: the answer's rows; `period` i: one period of a comparison; `part`/`whole` of a share; `denominator`;
   * `high`/`low`/`total`: the extremes and the total of a main result longer than the rows a query returns.
   */
  role: 'main' | 'period' | 'part' | 'whole' | 'denominator' | 'high' | 'low' | 'total'
  period?: number
  /** Label columns first (dimensions, then the time bucket), then one column per measure. */
  labels: number
  measures: MetaMember[]
}

const quote = (value: string) => `'${value.replace(/'/g, "''")}'`
/** A safe column alias from a member: `customers.region` → `region` (`"from"` for a reserved word). */
export const alias = (member: MetaMember, suffix = '') =>
  sqlName(`${member.name}${suffix}`.replace(/[^a-z0-9_]/gi, '_').toLowerCase())
/** A member as the query names it: quoted where a model names a cube or member by a reserved word (`"order".id`). */
const ref = (member: MetaMember) => sqlMember(member.path)

interface Spec {
  measures: MetaMember[]
  dimensions: MetaMember[]
  granularity?: Frame['granularity']
  time?: MetaMember
  range?: DateRange
  values: ValueFilter[]
  booleans: BooleanFilter[]
  top?: Frame['top']
  /** Order by the first label column (periods) instead of the measure. */
  chronological?: boolean
}

function where(spec: Pick<Spec, 'time' | 'range' | 'values' | 'booleans'>): string[] {
  const clauses: string[] = []
  if (spec.range && spec.time) {
    if (spec.range.from) clauses.push(`${ref(spec.time)} >= ${quote(spec.range.from)}`)
    if (spec.range.to) clauses.push(`${ref(spec.time)} < ${quote(spec.range.to)}`)
  }
  for (const filter of spec.values) {
    if (filter.op === 'none') {
      // ("No declared value": a number is none where it is empty or zero; a date only where it is empty.)
      clauses.push(
        filter.member.type === 'number'
          ? `(${ref(filter.member)} IS NULL OR ${ref(filter.member)} <= 0)`
          : `${ref(filter.member)} IS NULL`,
      )
      continue
    }
    if (filter.op) {
      clauses.push(`${ref(filter.member)} ${filter.op} ${Number(filter.values[0])}`)
      continue
    }
    const list = filter.values.map(quote).join(', ')
    clauses.push(
      filter.values.length === 1
        ? `${ref(filter.member)} ${filter.negated ? '<>' : '='} ${list}`
        : `${ref(filter.member)} ${filter.negated ? 'NOT IN' : 'IN'} (${list})`,
    )
  }
  for (const filter of spec.booleans) clauses.push(`${ref(filter.member)} = ${filter.value ? 'TRUE' : 'FALSE'}`)
  return clauses
}

/** One semantic SQL query: labels, then `MEASURE()` columns, filtered, grouped, ordered and limited. */
function build(spec: Spec): { sql: string; labels: number } {
  const select = spec.dimensions.map((dim) => `${ref(dim)} AS ${alias(dim)}`)
  if (spec.granularity && spec.time)
    select.push(`DATE_TRUNC('${spec.granularity}', ${ref(spec.time)}) AS ${alias(spec.time, `_${spec.granularity}`)}`)
  const labels = select.length
  for (const measure of spec.measures) select.push(`MEASURE(${ref(measure)}) AS ${alias(measure)}`)
  const clauses = where(spec)
  let sql = `SELECT ${select.join(', ')} FROM ${sqlName(spec.measures[0].cube)}`
  if (clauses.length) sql += ` WHERE ${clauses.join(' AND ')}`
  if (labels > 0) sql += ` GROUP BY ${Array.from({ length: labels }, (_, index) => index + 1).join(', ')}`
  // One row more than asked: a row level with the last one asked for is a tie, said rather than cut off.
  if (spec.top && labels > 0)
    sql += ` ORDER BY ${labels + 1} ${spec.top.direction.toUpperCase()} LIMIT ${spec.top.n + 1}`
  else if (spec.granularity || spec.chronological) sql += ` ORDER BY ${labels} ASC`
  else if (labels > 0) sql += ` ORDER BY ${labels + 1} DESC`
  return { sql, labels }
}

/** The queries that answer a resolved frame (one for most questions; one per period, part and whole, ...). */
export function planQueries(
  resolved: Resolved,
  index: MetaIndex,
  title: (role: PlannedQuery['role'], period?: number) => string,
): PlannedQuery[] {
  const { frame, range, periods } = resolved
  const dims = withKeys(index, frame.dimensions)
  const base: Spec = {
    measures: [frame.measure],
    dimensions: dims,
    granularity: frame.granularity,
    time: frame.timeDimension,
    range,
    values: frame.values,
    booleans: frame.booleans,
    top: frame.top,
  }
  const query = (spec: Spec, role: PlannedQuery['role'], period?: number): PlannedQuery => ({
    ...build(spec),
    role,
    period,
    title: title(role, period),
    measures: spec.measures,
  })
  const analysis = frame.analysis
  switch (analysis.kind) {
    case 'compare':
    case 'growth':
      if (periods)
        return periods.map((entry, number) =>
          query({ ...base, range: entry, granularity: undefined, top: undefined }, 'period', number),
        )
      return [query({ ...base, top: undefined }, 'main')]
    case 'share': {
      // Filters on other members than the breakdown are a condition: "the share of VIP customers by region" is the
      // VIP share within each region. Without one, each group's share of the whole.
      // A filter a follow-up added narrows the whole too ("for Europe only": the status mix within Europe).
      // A filter the question names as the whole ("of Asia's orders") narrows the whole too.
      const conditions =
        frame.values.some((filter) => !frame.dimensions.includes(filter.member) && !filter.scope) ||
        frame.booleans.some((filter) => !filter.scope)
      const part = query({ ...base, top: undefined }, 'part')
      const within = dims.length > 0 && conditions
      const whole = within
        ? query(
            {
              ...base,
              values: frame.values.filter((filter) => frame.dimensions.includes(filter.member) || filter.scope),
              booleans: frame.booleans.filter((filter) => filter.scope),
              top: undefined,
            },
            'whole',
          )
        : query(
            {
              ...base,
              dimensions: dims.length ? [] : dims,
              granularity: undefined,
              values: dims.length ? frame.values : frame.values.filter((filter) => filter.scope),
              booleans: dims.length ? frame.booleans : frame.booleans.filter((filter) => filter.scope),
              top: undefined,
            },
            'whole',
          )
      return [part, whole]
    }
    case 'ratio':
      if (analysis.denominator.cube === frame.measure.cube)
        return [query({ ...base, measures: [frame.measure, analysis.denominator] }, 'main')]
      return [query(base, 'main'), query({ ...base, measures: [analysis.denominator], top: undefined }, 'denominator')]
    case 'why':
      return [query({ ...base, measures: [frame.measure, ...analysis.drivers] }, 'main')]
    case 'record': {
      const show = analysis.show.filter((member) => member !== analysis.attribute)
      const select = [...show, analysis.attribute].map((member) => `${ref(member)} AS ${alias(member)}`)
      const clauses = where({ ...base, time: frame.timeDimension })
      let sql = `SELECT ${select.join(', ')} FROM ${sqlName(analysis.attribute.cube)}`
      if (clauses.length) sql += ` WHERE ${clauses.join(' AND ')}`
      sql += ` ORDER BY ${select.length} ${analysis.direction.toUpperCase()} LIMIT ${(frame.top?.n ?? 1) + 1}`
      return [{ sql, labels: show.length, role: 'main', title: title('main'), measures: [analysis.attribute] }]
    }
    default:
      return [query(base, 'main')]
  }
}

/**
 * For a main query whose rows are more than a query returns (100): its highest and lowest rows (the same query
 * ordered by the measure, one row), and for a mean over periods the total without the periods. The answer's
 * summary is then about all rows, not the first hundred.
 */
export function queriesBeyondRows(main: PlannedQuery, resolved: Resolved, index: MetaIndex): PlannedQuery[] {
  if (main.labels === 0) return []
  // Every grouped query ends with its ORDER BY (see `build`).
  const unordered = main.sql.slice(0, main.sql.lastIndexOf(' ORDER BY '))
  const extreme = (direction: 'DESC' | 'ASC', role: 'high' | 'low'): PlannedQuery => ({
    ...main,
    sql: `${unordered} ORDER BY ${main.labels + 1} ${direction} LIMIT 1`,
    role,
    title: `${main.title}, ${role === 'high' ? 'highest' : 'lowest'}`,
  })
  const queries = [extreme('DESC', 'high'), extreme('ASC', 'low')]
  const { frame } = resolved
  // The total over the number of periods is their mean only for a measure that adds up (not distinct customers).
  if (frame.averagePer && ['sum', 'count'].includes(frame.measure.type)) {
    const [total] = planQueries(
      {
        ...resolved,
        frame: { ...frame, dimensions: [], granularity: undefined, averagePer: undefined, top: undefined },
      },
      index,
      () => `${main.title}, total`,
    )
    queries.push({ ...total, role: 'total' })
  }
  return queries
}

/** The query for the latest date of a time dimension (relative ranges count back from it). */
export function latestDateQuery(time: MetaMember): string {
  return `SELECT MAX(${ref(time)}) AS latest FROM ${sqlName(time.cube)}`
}
