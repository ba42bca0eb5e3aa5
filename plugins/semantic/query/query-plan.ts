import type { AggregateFunction, Granularity } from './query-ast'
import type { Dimension, Measure } from '../semantic-model/semantic-model'

/** The column types of results (Cube's names). */
export type ColumnType = 'string' | 'number' | 'time' | 'boolean'

/** A query expression with every name resolved to a visible member. */
export type Resolved =
  | { kind: 'dimension'; member: Dimension }
  | { kind: 'truncate'; granularity: Granularity; member: Dimension }
  | { kind: 'measure'; member: Measure }
  /** `member` null is `COUNT(*)`: rows of the FROM cube. */
  | { kind: 'aggregate'; fn: AggregateFunction; distinct: boolean; member: Dimension | null }
  | { kind: 'literal'; value: string | number | boolean | null }
  /** A select item, by index (an alias or a position in GROUP BY, HAVING and ORDER BY). */
  | { kind: 'column'; index: number }
  | { kind: 'compare'; operator: '=' | '<>' | '<' | '<=' | '>' | '>='; left: Resolved; right: Resolved }
  | { kind: 'logical'; operator: 'and' | 'or'; args: Resolved[] }
  | { kind: 'not'; arg: Resolved }
  | { kind: 'in'; arg: Resolved; list: Resolved[]; negated: boolean }
  | { kind: 'between'; arg: Resolved; low: Resolved; high: Resolved; negated: boolean }
  | { kind: 'like'; arg: Resolved; pattern: string; caseInsensitive: boolean; negated: boolean }
  | { kind: 'isNull'; arg: Resolved; negated: boolean }

export interface PlannedColumn {
  name: string
  type: ColumnType
  expression: Resolved
  /** Aggregated (a measure or an aggregate function) rather than grouped by. */
  aggregated: boolean
}

export interface QueryPlan {
  /** The cube the query starts from, as named in FROM (a view's first cube for a view). */
  fromCube: string
  columns: PlannedColumn[]
  where: Resolved | undefined
  /** Dimensions and truncations the rows are grouped by (selected ones and GROUP BY extras). */
  grouping: Resolved[]
  having: Resolved | undefined
  orderBy: Array<{ expression: Resolved; descending: boolean; nulls: 'first' | 'last' | undefined }>
  limit: number | undefined
  offset: number | undefined
  /** Every cube whose members the query reads. */
  cubes: Set<string>
}

/** A stable key for comparing resolved expressions (is this ORDER BY item the same as that select item?). */
export function keyOf(expression: Resolved): string {
  switch (expression.kind) {
    case 'dimension':
    case 'measure':
      return `${expression.kind}:${expression.member.path}`
    case 'truncate':
      return `truncate:${expression.granularity}:${expression.member.path}`
    case 'aggregate':
      return `aggregate:${expression.fn}:${expression.distinct}:${expression.member?.path ?? '*'}`
    case 'column':
      return `column:${expression.index}`
    default:
      return `${expression.kind}:${JSON.stringify(expression)}`
  }
}

/** The sub-expressions of a condition (members inside dimensions and measures are not expressions). */
export function childrenOf(expression: Resolved): Resolved[] {
  switch (expression.kind) {
    case 'compare':
      return [expression.left, expression.right]
    case 'logical':
      return expression.args
    case 'not':
    case 'like':
    case 'isNull':
      return [expression.arg]
    case 'in':
      return [expression.arg, ...expression.list]
    case 'between':
      return [expression.arg, expression.low, expression.high]
    default:
      return []
  }
}
