import { InvalidQueryError } from '../errors'
import type { Edge, SemanticModel } from './semantic-model'

/**
 * How a query's cubes are joined: a tree rooted at one cube, following only many_to_one and one_to_one joins
 * (so the root's rows are never repeated), with the cubes below the root that may repeat.
 */
export interface JoinTree {
  root: string
  /** The edge each reachable cube is joined through (breadth first, so paths are shortest). */
  parents: Map<string, Edge | null>
  /** Cubes the query joins, root first, each after its parent. */
  included: string[]
  /** Cubes whose rows repeat once per root row (reached through a many_to_one): their sums would inflate. */
  multiplied: Set<string>
  /** Adds `cube` and the cubes on its path from the root; false when it cannot be reached. */
  include(cube: string): boolean
}

function breadthFirst(model: SemanticModel, root: string): Map<string, Edge | null> {
  const parents = new Map<string, Edge | null>([[root, null]])
  const queue = [root]
  while (queue.length > 0)
    for (const edge of model.edges.get(queue.shift() as string) ?? [])
      if (!parents.has(edge.to)) {
        parents.set(edge.to, edge)
        queue.push(edge.to)
      }
  return parents
}

function tree(root: string, parents: Map<string, Edge | null>): JoinTree {
  const included = [root]
  const multiplied = new Set<string>()
  const pathOf = (cube: string): Edge[] => {
    const path: Edge[] = []
    for (let edge = parents.get(cube); edge; edge = parents.get(edge.from)) path.unshift(edge)
    return path
  }
  const result: JoinTree = {
    root,
    parents,
    included,
    multiplied,
    include(cube) {
      if (!parents.has(cube)) return false
      for (const edge of pathOf(cube)) {
        if (!included.includes(edge.to)) included.push(edge.to)
        if (edge.relationship === 'many_to_one' || multiplied.has(edge.from)) multiplied.add(edge.to)
      }
      return true
    },
  }
  return result
}

/**
 * Picks the root: the FROM cube when every other cube of the query can be reached from it without multiplying
 * rows, else another queried cube, else any cube of the model that reaches them all (line items, say, for
 * orders by product category). Throws `InvalidQueryError` when no cube reaches them all.
 */
export function planJoins(model: SemanticModel, cubes: Set<string>, fromCube: string): JoinTree {
  const candidates: Array<{ root: string; parents: Map<string, Edge | null>; rank: number; size: number }> = []
  for (const root of model.cubes.keys()) {
    const parents = breadthFirst(model, root)
    if (![...cubes].every((cube) => parents.has(cube))) continue
    const rank = root === fromCube ? 0 : cubes.has(root) ? 1 : 2
    candidates.push({ root, parents, rank, size: parents.size })
  }
  candidates.sort((a, b) => a.rank - b.rank || a.size - b.size || a.root.localeCompare(b.root))
  const best = candidates[0]
  if (!best) {
    const names = [...cubes].sort().join(', ')
    throw new InvalidQueryError(
      `Members of ${names} cannot be combined in one query: no cube reaches all of them through many_to_one or one_to_one joins, so rows would be multiplied. Query them separately.`,
    )
  }
  const result = tree(best.root, best.parents)
  for (const cube of cubes) result.include(cube)
  return result
}
