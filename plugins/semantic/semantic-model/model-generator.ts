import { stringify } from 'yaml'
import type { TableInfo } from '../sources/introspect'
import { dimensionsOf, draftOf, labelOf } from './model-cubes'
import { addRoleCubes, joinsOf, nameLineRevenues, nameSales } from './model-joins'
import { distinctCounts, measuresOf, recordRevenue } from './model-measures'
import { singularWords, titleWords } from './model-naming'
import {
  type GenerateOptions,
  type Generation,
  type IdentifierQuoting,
  type Plan,
  planJoins,
  planOf,
  safeName,
} from './model-plan'

export { dimensionTypeOf, type GenerateOptions, type IdentifierQuoting } from './model-plan'

/** What `model generate` wrote: file name → YAML, and what a person should know about it. */
export interface GeneratedModel {
  files: Map<string, string>
  /** What was inferred (labels, revenue, joins guessed from names, roles), one line each. */
  inferred: string[]
  /** What a person should check, one line each. */
  check: string[]
}

/** Everyday words for the rows of common tables, by the singular of the table's last word. */
const ENTITY_SYNONYMS: Record<string, string[]> = {
  product: ['catalogue', 'catalog', 'items', 'goods', 'articles'],
  customer: ['clients', 'buyers', 'accounts', 'shoppers'],
  client: ['customers', 'buyers', 'accounts'],
  employee: ['staff', 'people', 'workers', 'reps', 'sales reps'],
  staff: ['employees', 'people', 'workers', 'reps'],
  supplier: ['vendors', 'suppliers'],
  vendor: ['suppliers'],
  category: ['categories', 'product categories', 'types'],
}

/**
 * Cube-style model files from a database's tables, written to be asked questions of without edits: titles in
 * words, a label per cube (the column that names a row, or first and last name joined), measures by what each
 * column is (a count; distinct counts of the entities a table references; money summed and averaged; a line's
 * revenue from its unit price and quantity; durations and sizes averaged and maxed, weights and distances summed
 * too; other numbers summed and averaged; never a sum of a key, code, year or price), joins from foreign keys (a second key to the same table or one to itself through a cube of its
 * own in that role, `manager`), and, for tables without declared keys, keys and joins guessed from names
 * (`customer_id`, `CustomerId`) and marked `inferred`. Member names never clash, and column names that are not
 * plain identifiers are quoted as the source's SQL quotes them.
 */
export function generateModel(tables: TableInfo[], options: GenerateOptions = {}): GeneratedModel {
  const quoting = options.quoting ?? 'double'
  const inferred: string[] = []
  // Names the query parser tells apart: it reads `Order` and `order`, or `a b` and `a_b` made safe, as one cube.
  const cubeNames = new Set<string>()
  const plans = tables.map((table) => {
    let name = safeName(table.name)
    for (let index = 2; cubeNames.has(name.toLowerCase()); index++) name = `${safeName(table.name)}_${index}`
    cubeNames.add(name.toLowerCase())
    return planOf(table, options, inferred, name)
  })
  const plansByTable = new Map(plans.map((plan) => [plan.table.name, plan]))
  const byWords = new Map<string, TableInfo>()
  for (const table of tables) byWords.set(singularWords(table.name).join(' '), table)
  const declaredKeys = tables.some((table) => table.foreignKeys.length > 0)
  for (const plan of plans) planJoins(plan, { planOf: plansByTable, byWords, declaredKeys }, inferred)

  const generation: Generation = {
    quoting,
    q: (name) => quoteIdentifierIfNeeded(name, quoting),
    inferred,
    check: [],
    cubeNames,
    planOf: plansByTable,
    files: new Map(),
    salesHeaders: new Set(),
    revenues: new Map(),
    lineHeaders: new Map(),
    roleCubes: [],
    tableWords: new Set(byWords.keys()),
  }
  for (const plan of plans) generation.files.set(`${plan.name}.yml`, cubeOf(generation, plan))
  nameLineRevenues(generation)
  nameSales(generation)
  addRoleCubes(generation)

  const texts = new Map<string, string>()
  for (const [file, def] of generation.files) {
    texts.set(
      file,
      `# Generated from the table ${String(def.sql_table ?? String(def.sql).slice('SELECT * FROM '.length))}; edit freely (titles, synonyms, descriptions, measures, access policies).\n${stringify({ cubes: [def] }, { lineWidth: 0, aliasDuplicateObjects: false })}`,
    )
  }
  const { check } = generation
  if (inferred.some((line) => line.includes('guessed from the name')))
    check.push('joins guessed from column names are marked `inferred: true`: check that each joins what it says')
  if (!inferred.some((line) => line.includes(': revenue = ')))
    check.push(
      'no revenue found (no amount or total beside a date, no unit price beside a quantity): add one if the data has sales',
    )
  return { files: texts, inferred, check }
}

/** The model file of one table: its dimensions, label, measures and joins. */
function cubeOf(generation: Generation, plan: Plan): Record<string, unknown> {
  const draft = draftOf(plan, generation.q)
  const { table, name } = plan
  const dimensions = dimensionsOf(generation, draft)
  const label = labelOf(generation, draft, dimensions)
  const measures = measuresOf(generation, draft)
  recordRevenue(generation, plan, measures)
  measures.list.push(...distinctCounts(generation, draft, label, measures))
  const joins = joinsOf(generation, plan)

  // `sql_table` splits a dotted name into schema and table: a table named with a dot is read through `sql`.
  const source = table.name.includes('.')
    ? { sql: `SELECT * FROM ${generation.q(table.name)}` }
    : { sql_table: table.name }
  const cube: Record<string, unknown> = { name, ...source, title: titleWords(plan.plural) }
  if (table.comment) cube.description = table.comment
  const everyday = ENTITY_SYNONYMS[plan.singular.at(-1) ?? '']
  if (everyday) cube.synonyms = everyday.filter((word) => !plan.plural.includes(word))
  if (label) cube.label = label
  if (joins.length > 0) cube.joins = joins
  cube.dimensions = dimensions
  cube.measures = measures.list
  return cube
}

/** A column name as SQL: bare when it is a plain identifier, else quoted as the source quotes identifiers. */
function quoteIdentifierIfNeeded(name: string, quoting: IdentifierQuoting): string {
  if (/^[a-z_][a-z0-9_]*$/.test(name)) return name
  return quoting === 'backquote' ? `\`${name.replace(/`/g, '``')}\`` : `"${name.replace(/"/g, '""')}"`
}
