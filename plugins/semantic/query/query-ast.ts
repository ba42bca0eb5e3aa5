/**
 * The subset of Postgres SQL the semantic layer accepts, as a small tree of its own. The parser fills it from
 * node-sql-parser's AST and refuses everything else; the planner resolves the names against the caller's model.
 */
export type Literal = { type: 'literal'; value: string | number | boolean | null; date: boolean }

export type Reference = { type: 'ref'; table: string | undefined; name: string }

export type Granularity = 'hour' | 'day' | 'week' | 'month' | 'quarter' | 'year'
export const GRANULARITIES: readonly Granularity[] = ['hour', 'day', 'week', 'month', 'quarter', 'year']

export type AggregateFunction = 'count' | 'sum' | 'avg' | 'min' | 'max'

export type Expression =
  | Reference
  | Literal
  | { type: 'measure'; ref: Reference }
  | { type: 'aggregate'; fn: AggregateFunction; distinct: boolean; arg: Reference | '*' }
  | { type: 'truncate'; granularity: Granularity; arg: Reference }
  | { type: 'position'; index: number }
  | { type: 'compare'; operator: '=' | '<>' | '<' | '<=' | '>' | '>='; left: Expression; right: Expression }
  | { type: 'logical'; operator: 'and' | 'or'; args: Expression[] }
  | { type: 'not'; arg: Expression }
  | { type: 'in'; arg: Expression; list: Literal[]; negated: boolean }
  | { type: 'between'; arg: Expression; low: Literal; high: Literal; negated: boolean }
  | { type: 'like'; arg: Expression; pattern: string; caseInsensitive: boolean; negated: boolean }
  | { type: 'isNull'; arg: Expression; negated: boolean }

export interface SelectItem {
  expression: Expression
  alias: string | undefined
}

export interface OrderItem {
  expression: Expression
  descending: boolean
  nulls: 'first' | 'last' | undefined
}

export interface SelectStatement {
  from: { name: string; alias: string | undefined }
  columns: SelectItem[]
  where: Expression | undefined
  groupBy: Expression[]
  having: Expression | undefined
  orderBy: OrderItem[]
  limit: number | undefined
  offset: number | undefined
}
