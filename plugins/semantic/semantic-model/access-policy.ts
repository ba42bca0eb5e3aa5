import type { UserAccess } from '../../auth/user-provisioner'
import type { FilterOperator } from './model-file'
import { evaluateCondition, resolveValues } from './policy-expression'
import type { Cube, Dimension, Member, Policy, PolicyFilter, SemanticModel } from './semantic-model'

/** Which rows of a cube the caller may read, with the caller's values already filled in. */
export type RowRule =
  | { kind: 'none' }
  | { kind: 'any'; of: RowRule[] }
  | { kind: 'all'; of: RowRule[] }
  | { kind: 'filter'; member: Dimension; operator: FilterOperator; values: Array<string | number | boolean> }

export interface CubeAccess {
  /** Short names of the members the caller may see and query. */
  members: Set<string>
  /** `null`: every row. */
  rows: RowRule | null
}

/** The caller's view of one model: what `serviceMeta` lists and what the query engine lets through. */
export interface AccessView {
  /** No user (an API key without `sessionSettings`): every public member and row. */
  unrestricted: boolean
  cubes: Map<string, CubeAccess>
  canSee(member: Member): boolean
}

const NONE: RowRule = { kind: 'none' }

function groupMatches(policy: Policy, access: UserAccess): boolean {
  return policy.groups === '*' || policy.groups.some((group) => access.groups.includes(group))
}

function filterRule(filter: PolicyFilter, access: UserAccess): RowRule {
  if ('or' in filter) return { kind: 'any', of: filter.or.map((item) => filterRule(item, access)) }
  if ('and' in filter) return { kind: 'all', of: filter.and.map((item) => filterRule(item, access)) }
  const values: Array<string | number | boolean> = []
  for (const template of filter.values) {
    const resolved = resolveValues(template, access)
    // A value the caller lacks must narrow access, never widen it: the whole filter then matches nothing.
    if (resolved === undefined) return NONE
    values.push(...resolved)
  }
  const single = ['gt', 'gte', 'lt', 'lte'].includes(filter.operator)
  if (single && values.length !== 1) return NONE
  return { kind: 'filter', member: filter.member, operator: filter.operator, values }
}

function publicMembers(cube: Cube): Set<string> {
  const names = new Set<string>()
  for (const member of [...cube.dimensions.values(), ...cube.measures.values()])
    if (member.public) names.add(member.name)
  return names
}

function cubeAccess(cube: Cube, access: UserAccess | null): CubeAccess {
  const all = publicMembers(cube)
  if (!cube.public) return { members: new Set(), rows: NONE }
  if (access === null || cube.policies === null) return { members: all, rows: null }
  const matching = cube.policies.filter(
    (policy) =>
      groupMatches(policy, access) && policy.conditions.every((condition) => evaluateCondition(condition, access)),
  )
  if (matching.length === 0) return { members: new Set(), rows: NONE }
  // Several matching policies combine with OR: the union of their members and of their rows.
  const members = new Set<string>()
  for (const policy of matching) {
    const excluded = new Set(policy.excludes)
    for (const name of policy.includes === '*' ? all : policy.includes)
      if (all.has(name) && !excluded.has(name)) members.add(name)
  }
  const rules: RowRule[] = []
  for (const policy of matching) {
    if (!policy.allowRows) continue
    if (policy.rowFilters === null) return { members, rows: null }
    rules.push(
      policy.rowFilters.length === 0
        ? { kind: 'all', of: [] }
        : { kind: 'all', of: policy.rowFilters.map((filter) => filterRule(filter, access)) },
    )
  }
  if (rules.some((rule) => rule.kind === 'all' && rule.of.length === 0)) return { members, rows: null }
  return { members, rows: rules.length === 0 ? NONE : { kind: 'any', of: rules } }
}

/**
 * Whether an access policy limits the rows a caller sees of a cube, in words for them: `limited by an access policy
 * on Region`, or undefined when they see every row. Only the members the policy filters on are named, and only when
 * the caller may see them: the policy's values (literals of the model, the host's security context) and members
 * hidden from the caller are theirs to keep. It lets an answer say that it covers only part of the data.
 */
export function describeRows(rule: RowRule | null, canSee: (member: Member) => boolean): string | undefined {
  if (rule === null) return undefined
  if (rule.kind === 'none') return 'no rows are visible'
  const members = new Map<string, Dimension>()
  const collect = (entry: RowRule) => {
    if (entry.kind === 'filter') members.set(entry.member.path, entry.member)
    else if (entry.kind === 'all' || entry.kind === 'any') entry.of.forEach(collect)
  }
  collect(rule)
  const named = [...members.values()]
  return named.length > 0 && named.every(canSee)
    ? `limited by an access policy on ${named.map((member) => member.title).join(', ')}`
    : 'limited by an access policy'
}

/**
 * Evaluates the model's access policies for one caller (Cube semantics): a cube without policies is fully
 * visible; a cube with policies is visible only through those matching the caller's groups and conditions; no
 * matching policy means no members and no rows. `access` null means the caller names no user and bypasses them.
 */
export function accessView(model: SemanticModel, access: UserAccess | null): AccessView {
  const cubes = new Map<string, CubeAccess>()
  for (const cube of model.cubes.values()) cubes.set(cube.name, cubeAccess(cube, access))
  return {
    unrestricted: access === null,
    cubes,
    canSee: (member) => cubes.get(member.cube)?.members.has(member.name) ?? false,
  }
}
