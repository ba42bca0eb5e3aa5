import { BadRequestError } from '../../lib/errors'
import type { DashboardFilter, DashboardTimeGrain } from '../management/model'
import type { Expression, Literal, Reference, SelectStatement } from '../semantic/query/query-ast'
import { parseQuery } from '../semantic/query/query-parser'
import { normalizeTime } from '../semantic/query/query-planner'
import { printQuery } from '../semantic/query-printer'

/** What a viewer chose on the dashboard: new values for its filters, other grains for its time grains (by member). */
export interface ViewerControls {
  filters?: Record<string, string[]>
  timeGrains?: Record<string, DashboardTimeGrain['granularity']>
}

/** The dashboard's filters and time grains with the viewer's choices applied; a viewer never adds new ones. */
export function effectiveControls(
  filters: DashboardFilter[],
  timeGrains: DashboardTimeGrain[],
  chosen: ViewerControls,
) {
  return {
    filters: filters.map((filter) => {
      const values = chosen.filters?.[filter.member]
      if (values && filter.operator === 'inDateRange') checkDateRange(filter.member, values)
      return { ...filter, values: values ?? filter.values }
    }),
    timeGrains: timeGrains.map((grain) => ({
      ...grain,
      granularity: chosen.timeGrains?.[grain.member] ?? grain.granularity,
    })),
  }
}

/**
 * A viewer's date range: two dates (from, to), or none to show every date. One date, or text that is no date, was
 * dropped and the widgets showed every date while the control still showed what the viewer typed.
 */
function checkDateRange(member: string, values: string[]): void {
  if (values.length !== 0 && values.length !== 2)
    throw new BadRequestError(
      `filters.${member}: a date range is two dates, from and to (["2024-01-01", "2024-12-31"]), or none; got ${values.length}`,
      'INVALID_CONTROLS',
    )
  const wrong = values.find((value) => normalizeTime(value) === undefined)
  if (wrong !== undefined)
    throw new BadRequestError(
      `filters.${member}: ${JSON.stringify(wrong)} is not a date; write dates like 2024-01-31`,
      'INVALID_CONTROLS',
    )
}

/** Text as the parser holds it (as written in SQL: backslashes and quotes doubled), so the printed query reads back to it. */
const escaped = (value: string) => value.replace(/\\/g, '\\\\').replace(/'/g, "''")
const text = (value: string): Literal => ({ type: 'literal', value: escaped(value), date: false })

function typed(value: string, memberType: string): Literal {
  if (memberType === 'time') return { ...text(value), date: true }
  if (memberType === 'number') {
    const number = Number(value)
    if (value.trim() === '' || !Number.isFinite(number))
      throw new BadRequestError(`"${value}" is not a number`, 'INVALID_CONTROLS')
    return { type: 'literal', value: number, date: false }
  }
  if (memberType === 'boolean') {
    // Anything but true or false filtered on false, so a viewer's "yes" showed the rows of "no".
    if (!/^(true|false)$/i.test(value)) throw new BadRequestError(`"${value}" is not true or false`, 'INVALID_CONTROLS')
    return { type: 'literal', value: value.toLowerCase() === 'true', date: false }
  }
  return text(value)
}

/** `a AND b AND c` as the parser builds it: pairs, from the left. */
function both(operator: 'and' | 'or', parts: Expression[]): Expression {
  return parts.reduce((left, right) => ({ type: 'logical', operator, args: [left, right] }))
}

/** The condition of one filter, or undefined when it has no values to filter on (it then shows everything). */
function condition(filter: DashboardFilter, ref: Reference, memberType: string): Expression | undefined {
  const values = filter.values.map((value) => typed(value, memberType))
  const first = values[0]
  switch (filter.operator) {
    case 'set':
    case 'notSet':
      return { type: 'isNull', arg: ref, negated: filter.operator === 'set' }
    case 'equals':
    case 'notEquals':
      if (!first) return undefined
      return values.length === 1
        ? { type: 'compare', operator: filter.operator === 'equals' ? '=' : '<>', left: ref, right: first }
        : { type: 'in', arg: ref, list: values, negated: filter.operator === 'notEquals' }
    case 'contains': {
      const parts = filter.values.map((value): Expression => ({
        type: 'like',
        arg: ref,
        pattern: `%${escaped(value.replace(/[%_\\]/g, ''))}%`,
        caseInsensitive: true,
        negated: false,
      }))
      return parts.length === 0 ? undefined : both('or', parts)
    }
    case 'inDateRange':
      if (values.length !== 2) return undefined
      return { type: 'between', arg: ref, low: values[0], high: values[1], negated: false }
    default: {
      if (!first) return undefined
      const operator = ({ gt: '>', gte: '>=', lt: '<', lte: '<=' } as const)[filter.operator]
      return { type: 'compare', operator, left: ref, right: first }
    }
  }
}

/** Whether a reference of the statement names `member` (`cube.member`), with or without the FROM alias. */
function names(statement: SelectStatement, ref: Reference, member: string): boolean {
  const table = ref.table === undefined || ref.table === statement.from.alias ? statement.from.name : ref.table
  return `${table}.${ref.name}` === member
}

function regrain(statement: SelectStatement, expression: Expression, grains: DashboardTimeGrain[]): Expression {
  if (expression.type !== 'truncate') return expression
  const grain = grains.find((candidate) => names(statement, expression.arg, candidate.member))
  return grain ? { ...expression, granularity: grain.granularity } : expression
}

/**
 * A widget query with the dashboard's filters added to its WHERE and its time grains put into its DATE_TRUNCs.
 * `memberTypes` gives each filter member's type, so values become the right literals. The result is checked to
 * read back to the same tree, so no value can change the query's shape.
 */
export function applyControls(
  sql: string,
  controls: { filters: DashboardFilter[]; timeGrains: DashboardTimeGrain[] },
  memberTypes: Map<string, string>,
): string {
  if (controls.filters.length === 0 && controls.timeGrains.length === 0) return sql
  const statement = parseQuery(sql)
  const conditions: Expression[] = []
  for (const filter of controls.filters) {
    const [cube, name] = filter.member.split('.')
    const ref: Reference = {
      type: 'ref',
      table: cube === statement.from.name && statement.from.alias ? statement.from.alias : cube,
      name,
    }
    const found = condition(filter, ref, memberTypes.get(filter.member) ?? 'string')
    if (found) conditions.push(found)
  }
  const where = [...(statement.where ? [statement.where] : []), ...conditions]
  const changed: SelectStatement = {
    ...statement,
    columns: statement.columns.map((column) => ({
      ...column,
      expression: regrain(statement, column.expression, controls.timeGrains),
    })),
    groupBy: statement.groupBy.map((expression) => regrain(statement, expression, controls.timeGrains)),
    orderBy: statement.orderBy.map((item) => ({
      ...item,
      expression: regrain(statement, item.expression, controls.timeGrains),
    })),
    where: where.length === 0 ? undefined : both('and', where),
  }
  const printed = printQuery(changed)
  if (JSON.stringify(parseQuery(printed)) !== JSON.stringify(changed))
    throw new BadRequestError('A filter value cannot be used as it is', 'INVALID_CONTROLS')
  return printed
}
