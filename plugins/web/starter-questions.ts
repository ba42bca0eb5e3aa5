import type { MetaMember, MetaResult } from '../semantic/model'

const MAX_QUESTIONS = 4

const lower = (title: string) => title.charAt(0).toLowerCase() + title.slice(1)

/** Dimensions a person would group by: text, not keys and not contact details. */
function groupable(member: MetaMember): boolean {
  const short = member.name.slice(member.name.indexOf('.') + 1)
  return member.type === 'string' && !member.primaryKey && !/(^|_)(id|email|phone|name)$/.test(short)
}

/** The cube the starters ask about, its main measures and the text dimensions they are broken down by. */
export function starterPlan(meta: MetaResult) {
  const cube = meta.cubes.find((candidate) => candidate.type === 'cube' && candidate.measures.length > 0)
  if (!cube) return undefined
  const firstOf = (type: string) => cube.measures.find((member) => member.type === type)
  const picked = [firstOf('sum'), firstOf('count')].filter((member): member is MetaMember => member !== undefined)
  const measures = picked.length ? picked : cube.measures.slice(0, 2)
  const joined = new Set(cube.joins.map((join) => join.name))
  const dimensions = [
    ...cube.dimensions.filter(groupable),
    ...meta.cubes.filter((other) => joined.has(other.name)).flatMap((other) => other.dimensions.filter(groupable)),
  ]
  const hasTime = cube.dimensions.some((member) => member.type === 'time')
  return { cube, measures, dimensions, hasTime }
}

/**
 * Questions to start an empty thread with, built from what the user may see of the deployment's model: the first
 * cube's main measures over time and by its (and its joined cubes') text dimensions, such as "Revenue by month"
 * and "Number of orders by region". The first sum and the first count: they read best as totals. `pointless` names
 * dimensions to leave out: those the user's row-level security pins to one value (one bar is no breakdown).
 */
export function starterQuestions(meta: MetaResult, pointless: ReadonlySet<string> = new Set()): string[] {
  const plan = starterPlan(meta)
  if (!plan) return []
  const { measures, hasTime } = plan
  const dimensions = plan.dimensions.filter((dimension) => !pointless.has(dimension.name))
  const questions: string[] = []
  if (hasTime && measures[0]) questions.push(`${measures[0].title} by month`)
  dimensions.slice(0, 2).forEach((dimension, index) => {
    const measure = measures[index % measures.length]
    questions.push(`${measure.title} by ${lower(dimension.title)}`)
  })
  if (hasTime && measures[1]) questions.push(`${measures[1].title} by month`)
  return [...new Set(questions)].slice(0, MAX_QUESTIONS)
}
