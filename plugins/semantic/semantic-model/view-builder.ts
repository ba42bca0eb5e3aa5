import type { ViewFile } from './model-file'
import type { Located } from './raw-model'
import { memberOf, titleOf, type Cube, type Edge, type SourceRef, type View, type ViewMember } from './semantic-model'
import { didYouMean } from '../query/suggest'

type Report = (source: SourceRef, member: string, message: string) => void

/**
 * Resolves views: each `join_path` must start at the view's root (its first cube) and follow many_to_one or
 * one_to_one joins, so a view never multiplies rows; its members are aliases of cube members.
 */
export function checkViews(
  files: Located<ViewFile>[],
  cubes: Map<string, Cube>,
  edges: Map<string, Edge[]>,
  report: Report,
): Map<string, View> {
  const views = new Map<string, View>()
  for (const { def, source } of files) {
    const root = def.cubes[0].join_path.split('.')[0]
    const members = new Map<string, ViewMember>()
    for (const entry of def.cubes) {
      const steps = entry.join_path.split('.')
      const label = `${def.name} join_path ${entry.join_path}`
      if (steps[0] !== root) report(source, label, `every join_path of a view starts at its first cube, ${root}`)
      const unknown = steps.find((step) => !cubes.has(step))
      if (unknown) {
        report(source, label, `unknown cube ${unknown}${didYouMean(unknown, cubes.keys())}`)
        continue
      }
      const broken = steps.findIndex(
        (step, index) => index > 0 && !(edges.get(steps[index - 1]) ?? []).some((edge) => edge.to === step),
      )
      if (broken > 0) {
        report(source, label, `${steps[broken - 1]} to ${steps[broken]} is not a many_to_one or one_to_one join`)
        continue
      }
      const cube = cubes.get(steps[steps.length - 1]) as Cube
      const all = [...cube.dimensions.values(), ...cube.measures.values()].filter((member) => member.public)
      const includes =
        entry.includes === undefined || entry.includes === '*' ? all.map((member) => member.name) : entry.includes
      const excludes = new Set(entry.excludes ?? [])
      for (const name of [...includes, ...excludes])
        if (!memberOf(cube, name))
          report(
            source,
            label,
            `unknown member ${cube.name}.${name}${didYouMean(
              name,
              all.map((member) => member.name),
            )}`,
          )
      for (const name of includes) {
        const member = memberOf(cube, name)
        if (!member || excludes.has(name)) continue
        const alias = entry.prefix ? `${cube.name}_${name}` : name
        if (members.has(alias))
          report(
            source,
            `${def.name}.${alias}`,
            'duplicate member name in the view: set prefix: true on one of its cubes',
          )
        else members.set(alias, { name: alias, member })
      }
    }
    views.set(def.name, {
      name: def.name,
      title: def.title ?? titleOf(def.name),
      description: def.description,
      public: def.public ?? true,
      root,
      members,
      source,
    })
  }
  return views
}
