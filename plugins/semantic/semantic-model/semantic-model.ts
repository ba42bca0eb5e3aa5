import type { DimensionType, FilterOperator, MeasureType } from './model-file'
import type { Condition, ValueTemplate } from './policy-expression'

/** Where a definition came from, for error messages: `models/orders.yml:12`. */
export interface SourceRef {
  file: string
  line: number
}

interface MemberBase {
  /** The short name inside its cube (`status`). */
  name: string
  cube: string
  /** `cube.name`. */
  path: string
  title: string
  description: string | undefined
  /** Other words for it, as written (empty when none). */
  synonyms: string[]
  public: boolean
  /** The SQL template (`{CUBE}.status`); a bare column name is already qualified with `{CUBE}`. */
  sql: string
  source: SourceRef
}

export interface Measure extends MemberBase {
  kind: 'measure'
  type: MeasureType
  /** Absent for `count` without `sql`. */
  hasSql: boolean
  format: 'currency' | 'percent' | 'number' | undefined
  filters: string[]
}

export interface Dimension extends MemberBase {
  kind: 'dimension'
  type: DimensionType
  primaryKey: boolean
}

export type Member = Measure | Dimension

export interface Join {
  /** The cube the join leads to. */
  target: string
  relationship: 'many_to_one' | 'one_to_many' | 'one_to_one'
  /** The SQL template; `{CUBE}` is the declaring cube. */
  sql: string
  /** What the target's row is to the declaring cube's (`manager`), when the model says. */
  role: string | undefined
  /** Guessed from column names rather than a declared key. */
  inferred: boolean
  source: SourceRef
}

/**
 * A join that may be followed without multiplying rows (many_to_one or one_to_one), in the direction it is
 * followed: declared ones, and the reverse of a declared one_to_many or one_to_one.
 */
export interface Edge {
  from: string
  to: string
  /** The declaring cube (what `{CUBE}` means in `sql`). */
  declaredOn: string
  sql: string
  relationship: 'many_to_one' | 'one_to_one'
}

export type PolicyFilter =
  | { member: Dimension; operator: FilterOperator; values: ValueTemplate[] }
  | { or: PolicyFilter[] }
  | { and: PolicyFilter[] }

export interface Policy {
  /** `'*'` for everyone, else the groups it applies to. */
  groups: '*' | string[]
  conditions: Condition[]
  /** `null`: the policy puts no limit on rows (Cube: a policy without `row_level` allows all rows). */
  rowFilters: PolicyFilter[] | null
  /** `false` only for `row_level: { allow_all: false }` without filters: no rows. */
  allowRows: boolean
  includes: '*' | string[]
  excludes: string[]
  source: SourceRef
}

export interface Cube {
  name: string
  title: string
  description: string | undefined
  synonyms: string[]
  /** The dimension that names a row, when the model names one. */
  label: string | undefined
  /** The cube whose rows this one reads in a role (`manager` of `employee`). */
  roleOf: string | undefined
  public: boolean
  /** The FROM of the cube: a quoted table name or a parenthesised query. */
  from: string
  /** `sql_table` as written (quoted by each source's dialect), when the cube reads a table. */
  table: string | undefined
  measures: Map<string, Measure>
  dimensions: Map<string, Dimension>
  joins: Join[]
  /** `null` when the cube has no `access_policy`: fully visible. */
  policies: Policy[] | null
  source: SourceRef
}

export interface ViewMember {
  /** The name inside the view. */
  name: string
  member: Member
}

export interface View {
  name: string
  title: string
  description: string | undefined
  public: boolean
  /** The first cube of the first join path: where the view's queries start. */
  root: string
  members: Map<string, ViewMember>
  source: SourceRef
}

/** One deployment branch's model, checked and resolved. */
export interface SemanticModel {
  cubes: Map<string, Cube>
  views: Map<string, View>
  /** Joins that never multiply rows, by the cube they start from. */
  edges: Map<string, Edge[]>
}

export function memberOf(cube: Cube, name: string): Member | undefined {
  return cube.measures.get(name) ?? cube.dimensions.get(name)
}

/** `created_at` → `Created at`: Cube's default title. */
export function titleOf(name: string): string {
  const words = name.replace(/_/g, ' ').trim()
  return words.charAt(0).toUpperCase() + words.slice(1)
}
