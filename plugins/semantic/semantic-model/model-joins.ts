import { lowerWords, pluralWords, singularWords, titleOfName, titleWords } from './model-naming'
import { type Generation, type Plan, roleWords, safeName } from './model-plan'

const ORDER_COUNT_SYNONYMS = ['orders', 'invoices', 'purchases', 'transactions', 'sales count']

/** Joins: one per target; a second key to the same table, or one to itself, through a cube in that role. */
export function joinsOf(generation: Generation, plan: Plan): Array<Record<string, unknown>> {
  const { q, cubeNames } = generation
  const table = plan.table
  const joins: Array<Record<string, unknown>> = []
  const joined = new Set<string>()
  for (const join of plan.joins) {
    const target = (generation.planOf.get(join.target) as Plan).name
    const role = roleWords(join.column, join.target)
    const roleName = role?.join(' ')
    const selfReference = join.target === table.name
    if (!selfReference && !joined.has(target.toLowerCase())) {
      joined.add(target.toLowerCase())
      const entry: Record<string, unknown> = {
        name: target,
        relationship: 'many_to_one',
        sql: `{CUBE}.${q(join.column)} = {${target}}.${q(join.targetColumn)}`,
      }
      if (roleName) entry.role = roleName
      if (join.inferred) entry.inferred = true
      joins.push(entry)
      continue
    }
    // A role cube: the target's table again, named by the role (`manager`), joined from this cube.
    const words =
      selfReference && (!role || /^(reports|report|boss|supervisor|reports to)$/.test(roleName ?? ''))
        ? ['manager']
        : role
    if (!words) continue
    const taken = (name: string) => cubeNames.has(name.toLowerCase()) || joined.has(name.toLowerCase())
    let roleCube = safeName(words.join('_'))
    if (taken(roleCube)) roleCube = safeName(`${join.target}_${words.join('_')}`)
    if (taken(roleCube)) continue
    cubeNames.add(roleCube.toLowerCase())
    joined.add(roleCube.toLowerCase())
    const entry: Record<string, unknown> = {
      name: roleCube,
      relationship: 'many_to_one',
      sql: `{CUBE}.${q(join.column)} = {${roleCube}}.${q(join.targetColumn)}`,
      role: words.join(' '),
    }
    if (join.inferred) entry.inferred = true
    joins.push(entry)
    generation.roleCubes.push({ source: join.target, name: roleCube, role: words })
    generation.inferred.push(
      `${table.name}.${join.column} → ${join.target}: ${selfReference ? 'a self-reference' : 'a second key'}, joined as the cube ${roleCube} (role ${words.join(' ')})`,
    )
  }
  return joins
}

/**
 * Where orders carry their own revenue (after an order's discount, with shipping), a line's revenue is the part
 * of it by product: "revenue" alone is the orders'.
 */
export function nameLineRevenues(generation: Generation): void {
  const { files, revenues } = generation
  for (const [line, headers] of generation.lineHeaders) {
    const header = headers.find((name) => revenues.has(name))
    const measure = revenues.get(line)
    if (!header || !measure) continue
    const lineTitle = String((files.get(`${line}.yml`) as Record<string, unknown>).title).toLowerCase()
    const headerTitle = String((files.get(`${header}.yml`) as Record<string, unknown>).title).toLowerCase()
    measure.title = `Revenue of ${lineTitle}`
    measure.description = `The ${lineTitle}' revenue, by what they name (products); the ${headerTitle}' own revenue is the total.`
    measure.synonyms = ['product revenue', 'line revenue', 'revenue by product', 'sales by product']
    generation.check.push(
      `${line}: its revenue and ${header}'s are both kept; "revenue" is ${header}'s, "revenue of ${lineTitle}" the lines' (check which one your business means)`,
    )
  }
}

/** The sales counted: the cube's words and its count's are orders, invoices, purchases (payments, when it is one). */
export function nameSales(generation: Generation): void {
  for (const header of generation.salesHeaders) {
    const cube = generation.files.get(`${header}.yml`) as Record<string, unknown>
    const own = lowerWords(String(cube.title))
    let words = own.some((word) => /^payments?$/.test(word))
      ? ['payments', 'transactions']
      : ORDER_COUNT_SYNONYMS.filter((word) => !own.includes(word))
    words = words.filter((word) => !own.includes(word))
    cube.synonyms = words
    const count = (cube.measures as Array<Record<string, unknown>>).find((measure) => measure.type === 'count')
    if (count) count.synonyms = words
  }
}

/** Role cubes: the table's dimensions again, in the role's name; no measures, so its rows are never counted twice. */
export function addRoleCubes(generation: Generation): void {
  const { files } = generation
  for (const role of generation.roleCubes) {
    const sourceName = (generation.planOf.get(role.source as string) as Plan).name
    const source = files.get(`${sourceName}.yml`) as Record<string, unknown>
    const sourceTitle = titleWords(singularWords(role.source as string))
    const words = role.role as string[]
    const cube: Record<string, unknown> = {
      name: role.name,
      ...(source.sql_table === undefined ? { sql: source.sql } : { sql_table: source.sql_table }),
      title: titleWords([...words.slice(0, -1), ...pluralWords(words[words.length - 1])]),
      description: `${titleOfName(role.source as string)} rows in the role of ${words.join(' ')}.`,
      role_of: sourceName,
    }
    if (source.label) cube.label = source.label
    cube.dimensions = (source.dimensions as Array<Record<string, unknown>>).map((dimension) => ({
      ...dimension,
      title: String(dimension.title).startsWith(sourceTitle)
        ? `${titleWords(words)}${String(dimension.title).slice(sourceTitle.length)}`
        : `${titleWords(words)} ${String(dimension.title).charAt(0).toLowerCase()}${String(dimension.title).slice(1)}`,
      synonyms: dimension.name === source.label ? [words.join(' '), pluralWords(words.join('_')).join(' ')] : undefined,
    }))
    files.set(`${role.name as string}.yml`, cube)
  }
}
