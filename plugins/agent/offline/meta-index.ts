/** A member of the model as the offline analyst sees it in `serviceMeta`'s result. */
export interface MetaMember {
  /** `cube.member`. */
  path: string
  cube: string
  name: string
  title: string
  kind: 'measure' | 'dimension'
  type: string
  format?: string
  description?: string
  /** Other words people use for it (the model's `synonyms`). */
  synonyms?: string[]
  primaryKey: boolean
}

export interface MetaCube {
  name: string
  title: string
  measures: MetaMember[]
  dimensions: MetaMember[]
  description?: string
  /** Other words people use for its rows (the model's `synonyms`). */
  synonyms?: string[]
  /** The dimension that names a row (the model's `label`), as `cube.member`. */
  label?: string
  /** Cubes this one joins to, as the meta lists them. */
  joins: string[]
  /** Cubes this one reaches without repeating its rows (many-to-one and one-to-one joins). */
  lookups: string[]
  /** Set when an access policy limits the rows the caller may see (`limited by an access policy on Region`). */
  rowAccess?: string
}

export interface MetaIndex {
  cubes: MetaCube[]
  members: Map<string, MetaMember>
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined)
const texts = (value: unknown): string[] | undefined => {
  const list = Array.isArray(value)
    ? value.filter((entry): entry is string => typeof entry === 'string' && entry !== '')
    : []
  return list.length ? list : undefined
}

function singular(title: string): string {
  return title.endsWith('ies') ? `${title.slice(0, -3)}y` : title.endsWith('s') ? title.slice(0, -1) : title
}

function titleOf(name: string): string {
  const spaced = name.replace(/_/g, ' ')
  return spaced.charAt(0).toUpperCase() + spaced.slice(1)
}

/** The cube's label as `cube.member`: given as a member name, a path, or `{ name }`. */
function labelPath(value: unknown, cube: string): string | undefined {
  const name = text(value) ?? text((value as { name?: unknown } | undefined)?.name)
  if (!name) return undefined
  return name.includes('.') ? name : `${cube}.${name}`
}

/**
 * Reads `serviceMeta`'s result tolerantly: member names with or without their cube prefix, titles optional, views
 * skipped (the analyst queries cubes), joins as names or `{ name | target }` objects.
 */
export function indexMeta(meta: unknown): MetaIndex {
  const cubes: MetaCube[] = []
  const members = new Map<string, MetaMember>()
  const list = (meta as { cubes?: unknown })?.cubes
  if (!Array.isArray(list)) return { cubes, members }
  for (const raw of list as Array<Record<string, unknown>>) {
    const name = text(raw.name)
    if (!name || raw.type === 'view') continue
    const read = (entries: unknown, kind: 'measure' | 'dimension'): MetaMember[] =>
      (Array.isArray(entries) ? (entries as Array<Record<string, unknown>>) : []).flatMap((entry) => {
        const full = text(entry.name)
        if (!full) return []
        const short = full.startsWith(`${name}.`) ? full.slice(name.length + 1) : full
        let title = text(entry.title) ?? text(entry.shortTitle) ?? titleOf(short)
        // A cube's `name` dimension reads better as the thing it names: "Product", not "Name". (A `title` is not
        // always a name: the title of an employee is their job.)
        if (kind === 'dimension' && short === 'name' && /^name$/i.test(title))
          title = singular(text(raw.title) ?? titleOf(name))
        const member: MetaMember = {
          path: `${name}.${short}`,
          cube: name,
          name: short,
          title,
          kind,
          type: text(entry.type) ?? (kind === 'measure' ? 'number' : 'string'),
          format: text(entry.format),
          description: text(entry.description),
          synonyms: texts(entry.synonyms),
          primaryKey: entry.primaryKey === true || entry.primary_key === true,
        }
        members.set(member.path, member)
        return [member]
      })
    const joins: string[] = []
    const lookups: string[] = []
    for (const join of Array.isArray(raw.joins) ? raw.joins : []) {
      const entry = (typeof join === 'string' ? { name: join } : join) as Record<string, unknown>
      const target = text(entry?.target) ?? text(entry?.name)
      if (!target) continue
      joins.push(target)
      // Without a relationship, assume the safe direction: the query engine refuses what would inflate a sum.
      if (
        entry.relationship === undefined ||
        entry.relationship === 'many_to_one' ||
        entry.relationship === 'one_to_one'
      )
        lookups.push(target)
    }
    const measures = read(raw.measures, 'measure')
    const dimensions = read(raw.dimensions, 'dimension')
    cubes.push({
      name,
      title: text(raw.title) ?? titleOf(name),
      description: text(raw.description),
      synonyms: texts(raw.synonyms),
      label: labelPath(raw.label, name),
      measures,
      dimensions,
      joins,
      lookups,
      rowAccess: text(raw.rowAccess),
    })
  }
  const index = { cubes, members }
  // "Revenue", "sales", "how much did we earn": the model's main money, when no word of the model says revenue.
  const said = (text: string | undefined) => /\b(revenue|sales|turnover|income|earnings)\b/i.test(text ?? '')
  const named = cubes.some((cube) =>
    [...cube.measures, ...cube.dimensions].some(
      (member) => said(member.name.replace(/_/g, ' ')) || said(member.title) || member.synonyms?.some(said),
    ),
  )
  const money = named ? undefined : moneyMeasure(index)
  if (money) money.synonyms = [...(money.synonyms ?? []), 'revenue']
  return index
}

/** Money that is not what a business earns: never read as its revenue. */
const NOT_EARNED = /discount|tax|cost|refund|shipping|freight|expense|salary|wage|budget/

/**
 * The model's main money measure, read as "revenue" ("sales", "how much did we earn") when the model has no such
 * word: a currency sum that is not a discount, a tax or a cost, on the cube most measures reach time from.
 */
export function moneyMeasure(index: MetaIndex): MetaMember | undefined {
  const sums = index.cubes.flatMap((cube) =>
    cube.measures.filter(
      (measure) => measure.type === 'sum' && measure.format === 'currency' && !NOT_EARNED.test(measure.path),
    ),
  )
  const earned = (measure: MetaMember) =>
    /revenue|sales|amount|total|paid|payment|fee|price|value|gross|net|income/.test(
      `${measure.name} ${measure.title}`.toLowerCase(),
    )
  const dated = (measure: MetaMember) =>
    index.cubes.find((cube) => cube.name === measure.cube)?.dimensions.some((dim) => dim.type === 'time') ?? false
  return [...sums].sort((a, b) => Number(earned(b)) - Number(earned(a)) || Number(dated(b)) - Number(dated(a)))[0]
}
