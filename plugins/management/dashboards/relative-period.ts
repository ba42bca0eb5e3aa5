import { findPeriods, resolveRange, type RangeSpec } from '../../agent/offline/time-range'
import type { Expression, Literal, Reference, SelectStatement } from '../../semantic/query/query-ast'
import { parseQuery } from '../../semantic/query/query-parser'
import { normalizeTime } from '../../semantic/query/query-planner'
import { printQuery } from '../../semantic/query-printer'
import type { RelativePeriod } from '../model'

type RelativeSpec = Extract<RangeSpec, { kind: 'trailing' | 'this' | 'previous' }>

/** The spec a stored period stands for, as the question's words gave it. */
export function specOf(period: RelativePeriod): RelativeSpec {
  if (period.kind === 'trailing')
    return { kind: 'trailing', amount: period.amount ?? 1, unit: period.unit, label: period.label }
  return {
    kind: period.kind,
    unit: period.unit,
    label: period.label,
    ...(period.yearsBack !== undefined && { yearsBack: period.yearsBack }),
  }
}

/** A comparison of a member with a date, one bound of a date range in a WHERE. */
interface Bound {
  expression: Extract<Expression, { type: 'compare' } | { type: 'between' }>
  member: string
}

/** The parts of a WHERE joined by AND at its top: the conditions every row must meet. */
function conjuncts(expression: Expression | undefined): Expression[] {
  if (!expression) return []
  if (expression.type === 'logical' && expression.operator === 'and') return expression.args.flatMap(conjuncts)
  return [expression]
}

const isDate = (value: Expression): value is Literal =>
  value.type === 'literal' && typeof value.value === 'string' && normalizeTime(value.value) !== undefined

function memberOf(statement: SelectStatement, ref: Expression): string | undefined {
  if (ref.type !== 'ref') return undefined
  const table = ref.table === undefined || ref.table === statement.from.alias ? statement.from.name : ref.table
  return `${table}.${(ref as Reference).name}`
}

/** The WHERE's top-level comparisons of one member with dates: `m >= 'a'`, `m < 'b'`, `m BETWEEN 'a' AND 'b'`. */
function dateBounds(statement: SelectStatement): Bound[] {
  const bounds: Bound[] = []
  for (const part of conjuncts(statement.where)) {
    if (part.type === 'compare' && ['<', '<=', '>', '>='].includes(part.operator) && isDate(part.right)) {
      const member = memberOf(statement, part.left)
      if (member) bounds.push({ expression: part, member })
    } else if (part.type === 'between' && !part.negated && isDate(part.low) && isDate(part.high)) {
      const member = memberOf(statement, part.arg)
      if (member) bounds.push({ expression: part, member })
    }
  }
  return bounds
}

/** Whether the bounds close a range on both sides: a lower and an upper one, or a BETWEEN. */
function closed(bounds: Bound[]): boolean {
  const between = bounds.some((bound) => bound.expression.type === 'between')
  const lower = bounds.some((bound) => bound.expression.type === 'compare' && bound.expression.operator.startsWith('>'))
  const upper = bounds.some((bound) => bound.expression.type === 'compare' && bound.expression.operator.startsWith('<'))
  return between ? bounds.length === 1 : lower && upper && bounds.length === 2
}

/**
 * The relative period an answer's query stands for: the question named exactly one period, relative to the data
 * ("the last 6 months", "this quarter", "last year"), and the query bounds exactly one time member on both sides with
 * dates (which the analyst worked out from the latest date in the data). Anything else (a fixed period, two periods,
 * several ranges) is kept as the dates the answer used.
 */
export function relativePeriodOf(question: string, sql: string): RelativePeriod | undefined {
  const mentions = findPeriods(question)
  if (mentions.length !== 1) return undefined
  const { spec } = mentions[0]
  if (spec.kind !== 'trailing' && spec.kind !== 'this' && spec.kind !== 'previous') return undefined
  let statement: SelectStatement
  try {
    statement = parseQuery(sql)
  } catch {
    return undefined
  }
  const bounds = dateBounds(statement)
  const members = new Set(bounds.map((bound) => bound.member))
  if (members.size !== 1 || !closed(bounds)) return undefined
  return {
    member: [...members][0],
    kind: spec.kind,
    unit: spec.unit,
    ...(spec.kind === 'trailing' && { amount: spec.amount }),
    ...(spec.kind !== 'trailing' && spec.yearsBack !== undefined && { yearsBack: spec.yearsBack }),
    label: spec.label,
  }
}

const DAY = 86_400_000
const dayBefore = (date: string) => new Date(Date.parse(`${date}T00:00:00Z`) - DAY).toISOString().slice(0, 10)

/** A date literal of the same form as the one it replaces (a `CAST(... AS TIMESTAMP)` stays one). */
const dateLike = (old: Literal, value: string): Literal => ({ ...old, value })

/**
 * The query with its period moved to the one that ends with `latest` (the latest date in the data as this reader
 * may see it), each bound keeping its operator: `>= from`, `> the day before from`, `< to`, `<= the last day`.
 * With no latest date (no rows), or a query whose range is not there any more, the query is returned as it is.
 */
export function queryForPeriod(
  sql: string,
  period: RelativePeriod,
  latest: string | undefined,
): { query: string; from?: string; to?: string } {
  const range = resolveRange(specOf(period), latest)
  if (!range?.from || !range.to) return { query: sql }
  const statement = parseQuery(sql)
  const bounds = dateBounds(statement).filter((bound) => bound.member === period.member)
  if (!closed(bounds)) return { query: sql }
  const last = dayBefore(range.to)
  const moved = new Map<Expression, Expression>()
  for (const { expression } of bounds) {
    if (expression.type === 'between')
      moved.set(expression, {
        ...expression,
        low: dateLike(expression.low, range.from),
        high: dateLike(expression.high, last),
      })
    else {
      const value = { '>=': range.from, '>': dayBefore(range.from), '<': range.to, '<=': last }[
        expression.operator as '>=' | '>' | '<' | '<='
      ]
      moved.set(expression, { ...expression, right: dateLike(expression.right as Literal, value) })
    }
  }
  const replace = (expression: Expression): Expression => {
    const found = moved.get(expression)
    if (found) return found
    if (expression.type === 'logical' && expression.operator === 'and')
      return { ...expression, args: expression.args.map(replace) }
    return expression
  }
  return {
    query: printQuery({ ...statement, where: statement.where && replace(statement.where) }),
    from: range.from,
    to: last,
  }
}

/**
 * A widget title that says its period as the question did: "Revenue by month, the last 6 months" rather than the
 * dates of the day it was pinned ("... the last 6 months (2025-07-01 to 2025-12-31)").
 */
export function relativeTitle(title: string, period: RelativePeriod): string {
  const at = title.toLowerCase().indexOf(period.label.toLowerCase())
  if (at < 0) return `${title.replace(/\s*\([^()]*\d{4}[^()]*\)\s*$/, '')}, ${period.label}`
  const end = at + period.label.length
  const rest = title.slice(end).replace(/^\s*\([^()]*\)/, '')
  return `${title.slice(0, end)}${rest}`.trim()
}

/** Whether the query bounds `member` with dates on both sides, a range a relative period can move. */
export function hasPeriodRange(sql: string, member: string): boolean {
  try {
    return closed(dateBounds(parseQuery(sql)).filter((bound) => bound.member === member))
  } catch {
    return false
  }
}

/**
 * The query a widget runs now: its own, or, for a relative period, moved to end with the latest date `latestOf`
 * finds for the period's member (as the reader may see the data), with the dates it then covers.
 */
export async function currentWidgetQuery(
  widget: { query: string; period?: RelativePeriod },
  latestOf: (member: string, cube: string) => Promise<string | undefined>,
): Promise<{ query: string; period?: { label: string; from: string; to: string } }> {
  if (!widget.period) return { query: widget.query }
  const [cube, name] = widget.period.member.split('.')
  // Quoted: a cube may be named by a reserved word ("order", "group"), which the parser takes quoted only.
  const latest = await latestOf(`"${cube}"."${name}"`, `"${cube}"`)
  const moved = queryForPeriod(widget.query, widget.period, latest)
  if (moved.from === undefined || moved.to === undefined) return { query: moved.query }
  return { query: moved.query, period: { label: widget.period.label, from: moved.from, to: moved.to } }
}
