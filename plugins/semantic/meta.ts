import { describeRows, type AccessView } from './semantic-model/access-policy'
import type { MetaCube, MetaMember, MetaResult } from './model'
import type { Cube, Member, SemanticModel } from './semantic-model/semantic-model'

function metaMember(member: Member, name = member.path): MetaMember {
  const entry: MetaMember = { name, title: member.title, type: member.type }
  if (member.description) entry.description = member.description
  if (member.kind === 'measure' && member.format) entry.format = member.format
  if (member.kind === 'dimension' && member.primaryKey) entry.primaryKey = true
  if (member.synonyms.length > 0) entry.synonyms = member.synonyms
  return entry
}

const REVERSE = { many_to_one: 'one_to_many', one_to_many: 'many_to_one', one_to_one: 'one_to_one' } as const

/** Declared joins and the reverse of other cubes' joins to this one, limited to cubes the caller can see. */
function joinsOf(cube: Cube, model: SemanticModel, visible: Set<string>): MetaCube['joins'] {
  const joins = new Map<string, MetaCube['joins'][number]>()
  for (const join of cube.joins)
    if (visible.has(join.target)) {
      const entry: MetaCube['joins'][number] = { name: join.target, relationship: join.relationship }
      if (join.role !== undefined) entry.role = join.role
      if (join.inferred) entry.inferred = true
      joins.set(join.target, entry)
    }
  for (const other of model.cubes.values())
    for (const join of other.joins)
      if (join.target === cube.name && visible.has(other.name) && !joins.has(other.name)) {
        const entry: MetaCube['joins'][number] = { name: other.name, relationship: REVERSE[join.relationship] }
        if (join.inferred) entry.inferred = true
        joins.set(other.name, entry)
      }
  return [...joins.values()]
}

function matches(text: string | undefined, terms: string[]): boolean {
  if (!text) return false
  const lower = text.toLowerCase()
  return terms.some((term) => lower.includes(term))
}

/** Keeps what matches the search: a matching cube with all its members, else only its matching members. */
function search(cubes: MetaCube[], terms: string[]): MetaCube[] {
  const memberMatches = (member: MetaMember) =>
    matches(member.name, terms) ||
    matches(member.title, terms) ||
    matches(member.description, terms) ||
    (member.synonyms ?? []).some((word) => matches(word, terms))
  return cubes.flatMap((cube) => {
    if (
      matches(cube.name, terms) ||
      matches(cube.title, terms) ||
      matches(cube.description, terms) ||
      (cube.synonyms ?? []).some((word) => matches(word, terms))
    )
      return [cube]
    const measures = cube.measures.filter(memberMatches)
    const dimensions = cube.dimensions.filter(memberMatches)
    return measures.length + dimensions.length > 0 ? [{ ...cube, measures, dimensions }] : []
  })
}

/**
 * The cubes, views and members the caller may see (`serviceMeta`), optionally filtered by `searchQuery`: the
 * whole phrase first; when nothing matches it, any of its words of three letters or more.
 */
export function buildMeta(model: SemanticModel, view: AccessView, searchQuery?: string): MetaResult {
  const visible = new Set(
    [...model.cubes.values()]
      .filter((cube) => (view.cubes.get(cube.name)?.members.size ?? 0) > 0)
      .map((cube) => cube.name),
  )
  const cubes: MetaCube[] = []
  for (const cube of model.cubes.values()) {
    if (!visible.has(cube.name)) continue
    const entry: MetaCube = {
      name: cube.name,
      title: cube.title,
      type: 'cube',
      measures: [...cube.measures.values()].filter(view.canSee).map((member) => metaMember(member)),
      dimensions: [...cube.dimensions.values()].filter(view.canSee).map((member) => metaMember(member)),
      joins: joinsOf(cube, model, visible),
    }
    if (cube.description) entry.description = cube.description
    if (cube.synonyms.length > 0) entry.synonyms = cube.synonyms
    const label = cube.label !== undefined ? cube.dimensions.get(cube.label) : undefined
    if (label && view.canSee(label)) entry.label = label.path
    if (cube.roleOf !== undefined && visible.has(cube.roleOf)) entry.roleOf = cube.roleOf
    const rows = describeRows(view.cubes.get(cube.name)?.rows ?? null, view.canSee)
    if (rows) entry.rowAccess = rows
    cubes.push(entry)
  }
  for (const modelView of model.views.values()) {
    if (!modelView.public) continue
    const members = [...modelView.members.values()].filter((entry) => view.canSee(entry.member))
    if (members.length === 0) continue
    const entry: MetaCube = {
      name: modelView.name,
      title: modelView.title,
      type: 'view',
      measures: members
        .filter((item) => item.member.kind === 'measure')
        .map((item) => metaMember(item.member, `${modelView.name}.${item.name}`)),
      dimensions: members
        .filter((item) => item.member.kind === 'dimension')
        .map((item) => metaMember(item.member, `${modelView.name}.${item.name}`)),
      joins: [],
    }
    if (modelView.description) entry.description = modelView.description
    // A view reads its cubes' rows, and so only the rows their policies let the caller see.
    const limits = [
      ...new Set(
        [...new Set(members.map((item) => item.member.cube))].flatMap(
          (cube) => describeRows(view.cubes.get(cube)?.rows ?? null, view.canSee) ?? [],
        ),
      ),
    ]
    if (limits.length) entry.rowAccess = limits.join('; ')
    cubes.push(entry)
  }
  const phrase = searchQuery?.trim().toLowerCase() ?? ''
  if (phrase === '') return { cubes }
  const exact = search(cubes, [phrase])
  if (exact.length > 0) return { cubes: exact }
  const words = phrase.split(/[^a-z0-9_]+/).filter((word) => word.length >= 3)
  return { cubes: words.length > 0 ? search(cubes, words) : [] }
}
