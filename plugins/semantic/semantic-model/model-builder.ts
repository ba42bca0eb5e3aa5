import { ModelError, type ModelProblem } from '../errors'
import type { PolicyFilterFile, ViewFile } from './model-file'
import type { Located, RawCube } from './raw-model'
import { parseCondition, parseValueTemplate } from './policy-expression'
import {
  memberOf,
  titleOf,
  type Cube,
  type Dimension,
  type Edge,
  type Policy,
  type PolicyFilter,
  type SemanticModel,
  type SourceRef,
  type View,
} from './semantic-model'
import { didYouMean } from '../query/suggest'
import { qualifyColumn, quoteIdentifier, referencesIn } from './templates'
import { checkViews } from './view-builder'

type Report = (source: SourceRef, member: string, message: string) => void

function createCube(raw: RawCube, report: Report): Cube {
  const { def } = raw
  if (def.sql_table !== undefined && def.sql !== undefined)
    report(raw.source, def.name, 'set either sql_table or sql, not both')
  if (def.sql_table === undefined && def.sql === undefined) report(raw.source, def.name, 'needs sql_table or sql')
  const cube: Cube = {
    name: def.name,
    title: def.title ?? titleOf(def.name),
    description: def.description,
    synonyms: def.synonyms ?? [],
    label: def.label,
    roleOf: def.role_of,
    public: def.public ?? true,
    from: def.sql_table !== undefined ? quoteIdentifier(def.sql_table) : `(${def.sql ?? 'SELECT NULL'})`,
    table: def.sql_table,
    measures: new Map(),
    dimensions: new Map(),
    joins: [],
    policies: null,
    source: raw.source,
  }
  const seen = new Map<string, SourceRef>()
  const claim = (name: string, source: SourceRef): boolean => {
    const first = seen.get(name)
    if (first)
      report(source, `${def.name}.${name}`, `duplicate member name (also defined at ${first.file}:${first.line})`)
    else seen.set(name, source)
    return !first
  }
  // Claimed in the order written, so the later of two same-named members is the one reported.
  const written = [...raw.measures, ...raw.dimensions].sort((a, b) => a.source.line - b.source.line)
  const duplicates = new Set(written.filter(({ def, source }) => !claim(def.name, source)))
  for (const entry of raw.measures) {
    const { def: measure, source } = entry
    if (duplicates.has(entry)) continue
    if (measure.sql === undefined && measure.type !== 'count')
      report(source, `${def.name}.${measure.name}`, `a ${measure.type} measure needs sql`)
    cube.measures.set(measure.name, {
      kind: 'measure',
      name: measure.name,
      cube: def.name,
      path: `${def.name}.${measure.name}`,
      title: measure.title ?? titleOf(measure.name),
      description: measure.description,
      synonyms: measure.synonyms ?? [],
      public: measure.public ?? true,
      sql: measure.type === 'number' ? (measure.sql ?? 'NULL') : qualifyColumn(measure.sql ?? ''),
      hasSql: measure.sql !== undefined,
      type: measure.type,
      format: measure.format,
      filters: (measure.filters ?? []).map((filter) => filter.sql),
      source,
    })
  }
  for (const entry of raw.dimensions) {
    const { def: dimension, source } = entry
    if (duplicates.has(entry)) continue
    cube.dimensions.set(dimension.name, {
      kind: 'dimension',
      name: dimension.name,
      cube: def.name,
      path: `${def.name}.${dimension.name}`,
      title: dimension.title ?? titleOf(dimension.name),
      description: dimension.description,
      synonyms: dimension.synonyms ?? [],
      public: dimension.public ?? true,
      sql: qualifyColumn(dimension.sql ?? dimension.name),
      type: dimension.type,
      primaryKey: dimension.primary_key ?? false,
      source,
    })
  }
  const joinNames = new Set<string>()
  for (const { def: join, source } of raw.joins) {
    if (joinNames.has(join.name)) report(source, `${def.name} join ${join.name}`, 'duplicate join')
    joinNames.add(join.name)
    cube.joins.push({
      target: join.name,
      relationship: join.relationship,
      sql: join.sql,
      role: join.role,
      inferred: join.inferred ?? false,
      source,
    })
  }
  return cube
}

/** Checks the `{...}` references of one template; `allow` says which kinds of member the template may name. */
function checkTemplate(
  cube: Cube,
  sql: string,
  allow: 'dimension' | 'measure',
  source: SourceRef,
  label: string,
  report: Report,
): string[] {
  const uses: string[] = []
  for (const reference of referencesIn(sql)) {
    const ownCube = reference.head === 'CUBE' || reference.head === cube.name
    const name = reference.tail ?? (ownCube ? undefined : reference.head)
    if (name === undefined) continue
    if (!ownCube && reference.tail !== undefined) {
      report(source, label, `${reference.text}: members of other cubes can be referenced only in joins`)
      continue
    }
    const member = memberOf(cube, name)
    if (!member) {
      const names = [...cube.dimensions.keys(), ...(allow === 'measure' ? cube.measures.keys() : [])]
      report(source, label, `unknown reference ${reference.text}${didYouMean(name, names)}`)
    } else if (member.kind !== allow)
      report(
        source,
        label,
        `${reference.text} is a ${member.kind}; ${allow === 'measure' ? 'a number measure combines measures' : 'only dimensions can be referenced here'}`,
      )
    else uses.push(name)
  }
  return uses
}

function checkCycles(graph: Map<string, string[]>, cube: Cube, report: Report): void {
  const state = new Map<string, 'visiting' | 'done'>()
  const visit = (name: string, trail: string[]): void => {
    if (state.get(name) === 'done') return
    if (state.get(name) === 'visiting') {
      const member = memberOf(cube, name)
      if (member) report(member.source, member.path, `references itself: ${[...trail, name].join(' -> ')}`)
      return
    }
    state.set(name, 'visiting')
    for (const next of graph.get(name) ?? []) visit(next, [...trail, name])
    state.set(name, 'done')
  }
  for (const name of graph.keys()) visit(name, [])
}

function checkMembers(cube: Cube, report: Report): void {
  const graph = new Map<string, string[]>()
  for (const dimension of cube.dimensions.values())
    graph.set(dimension.name, checkTemplate(cube, dimension.sql, 'dimension', dimension.source, dimension.path, report))
  for (const measure of cube.measures.values()) {
    const allow = measure.type === 'number' ? 'measure' : 'dimension'
    const uses = checkTemplate(cube, measure.sql, allow, measure.source, measure.path, report)
    if (measure.type === 'number') graph.set(measure.name, uses)
    for (const filter of measure.filters) checkTemplate(cube, filter, 'dimension', measure.source, measure.path, report)
  }
  checkCycles(graph, cube, report)
  if (cube.label !== undefined && !cube.dimensions.has(cube.label))
    report(
      cube.source,
      `${cube.name} label`,
      `unknown dimension ${cube.label}${didYouMean(cube.label, cube.dimensions.keys())}`,
    )
}

function checkJoins(cube: Cube, cubes: Map<string, Cube>, report: Report): void {
  for (const join of cube.joins) {
    const label = `${cube.name} join ${join.target}`
    const target = cubes.get(join.target)
    if (!target) {
      report(join.source, label, `unknown join target ${join.target}${didYouMean(join.target, cubes.keys())}`)
      continue
    }
    for (const reference of referencesIn(join.sql)) {
      const owner =
        reference.head === 'CUBE' || reference.head === cube.name
          ? cube
          : reference.head === target.name
            ? target
            : undefined
      if (!owner) {
        report(
          join.source,
          label,
          `unknown reference ${reference.text}: a join may name only {CUBE}, {${target.name}} and their dimensions`,
        )
        continue
      }
      if (reference.tail !== undefined && !owner.dimensions.has(reference.tail))
        report(
          join.source,
          label,
          `unknown reference ${reference.text}${didYouMean(reference.tail, owner.dimensions.keys())}`,
        )
    }
  }
}

/** Every join that never multiplies rows, in each direction it can be followed. */
function edgesOf(cubes: Map<string, Cube>): Map<string, Edge[]> {
  const edges = new Map<string, Edge[]>([...cubes.keys()].map((name) => [name, []]))
  const add = (edge: Edge) => {
    const list = edges.get(edge.from)
    if (list && !list.some((existing) => existing.to === edge.to)) list.push(edge)
  }
  for (const cube of cubes.values())
    for (const join of cube.joins) {
      if (!cubes.has(join.target)) continue
      const base = { declaredOn: cube.name, sql: join.sql }
      if (join.relationship === 'many_to_one')
        add({ ...base, from: cube.name, to: join.target, relationship: 'many_to_one' })
      if (join.relationship === 'one_to_many')
        add({ ...base, from: join.target, to: cube.name, relationship: 'many_to_one' })
      if (join.relationship === 'one_to_one') {
        add({ ...base, from: cube.name, to: join.target, relationship: 'one_to_one' })
        add({ ...base, from: join.target, to: cube.name, relationship: 'one_to_one' })
      }
    }
  return edges
}

/** Cubes reachable from `start` without multiplying rows, with `start` itself. */
export function reachable(edges: Map<string, Edge[]>, start: string): Set<string> {
  const seen = new Set([start])
  const queue = [start]
  while (queue.length > 0)
    for (const edge of edges.get(queue.shift() as string) ?? [])
      if (!seen.has(edge.to)) {
        seen.add(edge.to)
        queue.push(edge.to)
      }
  return seen
}

function checkPolicies(
  raw: RawCube,
  cube: Cube,
  cubes: Map<string, Cube>,
  edges: Map<string, Edge[]>,
  report: Report,
): void {
  if (raw.policies === null) return
  const reach = reachable(edges, cube.name)
  cube.policies = raw.policies.map(({ def, source }, index): Policy => {
    const label = `${cube.name} access_policy[${index}]`
    if ((def.group === undefined) === (def.groups === undefined))
      report(source, label, 'set exactly one of group and groups')
    const groups = def.group === '*' || def.groups?.includes('*') ? '*' : (def.groups ?? (def.group ? [def.group] : []))
    const conditions = (def.conditions ?? []).flatMap((condition) => {
      try {
        return [parseCondition(condition.if)]
      } catch (error) {
        report(source, label, (error as Error).message)
        return []
      }
    })
    const filter = (entry: PolicyFilterFile): PolicyFilter | undefined => {
      if ('or' in entry) return { or: entry.or.map(filter).filter((item): item is PolicyFilter => item !== undefined) }
      if ('and' in entry)
        return { and: entry.and.map(filter).filter((item): item is PolicyFilter => item !== undefined) }
      const [head, tail] = entry.member.includes('.') ? entry.member.split('.', 2) : [cube.name, entry.member]
      const owner = cubes.get(head)
      const member: Dimension | undefined = owner?.dimensions.get(tail)
      if (!owner || !member) {
        const names = [...cube.dimensions.values()].map((dimension) => dimension.path)
        report(source, label, `row_level filter on unknown dimension ${entry.member}${didYouMean(entry.member, names)}`)
        return undefined
      }
      if (!reach.has(owner.name)) {
        report(
          source,
          label,
          `row_level filter on ${member.path}: ${owner.name} is not reachable from ${cube.name} through many_to_one or one_to_one joins`,
        )
        return undefined
      }
      try {
        return { member, operator: entry.operator, values: entry.values.map(parseValueTemplate) }
      } catch (error) {
        report(source, label, (error as Error).message)
        return undefined
      }
    }
    const names = (list: '*' | string[] | undefined, field: string, fallback: '*' | string[]): '*' | string[] => {
      if (list === undefined) return fallback
      if (list === '*') return list
      return list.map((name) => {
        const short = name.startsWith(`${cube.name}.`) ? name.slice(cube.name.length + 1) : name
        if (!memberOf(cube, short))
          report(
            source,
            label,
            `member_level ${field}: unknown member ${name}${didYouMean(short, [...cube.measures.keys(), ...cube.dimensions.keys()])}`,
          )
        return short
      })
    }
    const excludes = names(def.member_level?.excludes, 'excludes', [])
    const rowLevel = def.row_level
    return {
      groups,
      conditions,
      rowFilters: rowLevel?.filters
        ? rowLevel.filters.map(filter).filter((item): item is PolicyFilter => item !== undefined)
        : null,
      allowRows: rowLevel === undefined || rowLevel.filters !== undefined || rowLevel.allow_all !== false,
      includes: names(def.member_level?.includes, 'includes', '*'),
      excludes: excludes === '*' ? [...cube.measures.keys(), ...cube.dimensions.keys()] : excludes,
      source,
    }
  })
}

/**
 * Runs the checks that span definitions (member references, join targets, policies, views) and returns the
 * resolved model; throws `ModelError` listing every problem with file, line and member.
 */
export function buildModel(label: string, raws: RawCube[], viewFiles: Located<ViewFile>[]): SemanticModel {
  const problems: ModelProblem[] = []
  const report: Report = (source, member, message) => problems.push({ ...source, member, message })
  const cubes = new Map(raws.map((raw) => [raw.def.name, createCube(raw, report)]))
  for (const cube of cubes.values()) {
    checkMembers(cube, report)
    checkJoins(cube, cubes, report)
    if (cube.roleOf !== undefined && !cubes.has(cube.roleOf))
      report(cube.source, `${cube.name} role_of`, `unknown cube ${cube.roleOf}${didYouMean(cube.roleOf, cubes.keys())}`)
  }
  const edges = edgesOf(cubes)
  for (const raw of raws) checkPolicies(raw, cubes.get(raw.def.name) as Cube, cubes, edges, report)
  const views: Map<string, View> = checkViews(viewFiles, cubes, edges, report)
  if (problems.length > 0) throw new ModelError(label, problems)
  return { cubes, views, edges }
}
