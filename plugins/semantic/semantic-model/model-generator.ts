import { stringify } from 'yaml'
import type { TableInfo } from '../sources/introspect'
import { lowerWords, pluralWords, singular, singularWords, titleOfName, titleWords } from './model-naming'

type DimensionType = 'string' | 'number' | 'time' | 'boolean'

/** A database column type as a model dimension type. */
export function dimensionTypeOf(type: string): DimensionType {
  const lower = type.toLowerCase()
  if (/^(boolean|bool|tinyint\(1\)|bit\(1\))/.test(lower)) return 'boolean'
  if (/(timestamp|datetime|^date$|^date )/.test(lower)) return 'time'
  if (/(int|numeric|decimal|real|double|float|number|money)/.test(lower)) return 'number'
  return 'string'
}

/** A cube or member name the model accepts: letters, digits and underscores, not starting with a digit. */
function safeName(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9_]/g, '_')
  return /^[A-Za-z_]/.test(cleaned) ? cleaned : `_${cleaned}`
}

/** How the source's SQL quotes an identifier: backquotes on MySQL and MariaDB, double quotes elsewhere. */
export type IdentifierQuoting = 'double' | 'backquote'

export interface GenerateOptions {
  quoting?: IdentifierQuoting
  /** SQLite keeps dates as text: a text column named like a date (`created_at`, `order_date`) is a time there. */
  sqlite?: boolean
}

/** What `model generate` wrote: file name → YAML, and what a person should know about it. */
export interface GeneratedModel {
  files: Map<string, string>
  /** What was inferred (labels, revenue, joins guessed from names, roles), one line each. */
  inferred: string[]
  /** What a person should check, one line each. */
  check: string[]
}

// What a numeric column is, by its words.
const KEY_WORDS = new Set(['id', 'key', 'code', 'zip', 'postal', 'postcode', 'phone', 'fax', 'no', 'ssn', 'ean', 'sku'])
const CALENDAR_WORDS = new Set(['year', 'month', 'day', 'week', 'quarter', 'hour', 'minute'])
const MONEY_WORDS = new Set([
  'amount',
  'total',
  'cost',
  'costs',
  'revenue',
  'fee',
  'fees',
  'sales',
  'charge',
  'charges',
  'freight',
  'salary',
  'balance',
  'tax',
  'payment',
  'paid',
  'spend',
  'spent',
  'income',
  'profit',
  'margin',
  'subtotal',
  'budget',
  'shipping',
  'wage',
  'commission',
])
/** Money words that say a sales row's value (its revenue), not a cost around it. */
const REVENUE_WORDS = new Set(['amount', 'total', 'revenue', 'sales', 'subtotal', 'payment'])
const PRICE_WORDS = new Set(['price', 'rate', 'msrp'])
const QUANTITY_WORDS = new Set(['quantity', 'qty', 'quantities'])
/** Counts of things held or planned, not sold: `units_in_stock`, `units_on_order`, `quantity_per_unit`. */
const HELD_WORDS = new Set(['stock', 'reorder', 'per', 'on', 'available', 'min', 'max'])
const MEASURED_WORDS = new Set([
  'duration',
  'length',
  'milliseconds',
  'ms',
  'seconds',
  'minutes',
  'hours',
  'days',
  'bytes',
  'size',
  'weight',
  'height',
  'width',
  'depth',
  'age',
  'runtime',
  'distance',
])
const AVERAGED_WORDS = new Set(['rating', 'score', 'percent', 'percentage', 'ratio', 'pct', 'stars', 'discount'])
/** A column that alone says nothing: its title takes the cube's name (`invoice.total` → "Invoice total"). */
const BARE_WORDS = new Set([
  'total',
  'amount',
  'name',
  'title',
  'date',
  'status',
  'type',
  'description',
  'value',
  'price',
  'quantity',
  'code',
  'number',
  'notes',
  'note',
  'comment',
  'comments',
  'rating',
  'length',
  'size',
  'level',
  'rank',
  'score',
  'id',
  'key',
  'cost',
  'duration',
])
const PERSON_FIRST = /^(first|given|fore)$/
const PERSON_LAST = /^(last|family|sur)$/

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
/** Words of a time column that say when a row was changed: no event of the business. */
const BOOKKEEPING_TIME = new Set(['updated', 'update', 'modified', 'last', 'deleted'])
/** Words of a time column that say when a person's row was made: their sign-up. */
const SIGNUP_WORDS = new Set(['created', 'create', 'signup', 'registered', 'registration', 'joined', 'since'])
const PEOPLE = new Set(['customer', 'user', 'member', 'client', 'subscriber', 'account', 'patient', 'student'])
const REVENUE_SYNONYMS = ['revenue', 'sales', 'turnover', 'income', 'takings']
const ORDER_COUNT_SYNONYMS = ['orders', 'invoices', 'purchases', 'transactions', 'sales count']
const ITEMS_SOLD_SYNONYMS = ['items sold', 'units sold', 'quantity sold']

interface ColumnFacts {
  name: string
  member: string
  type: DimensionType
  words: string[]
  comment?: string
}

interface Plan {
  table: TableInfo
  name: string
  singular: string[]
  plural: string[]
  columns: ColumnFacts[]
  primaryKey: string[]
  joins: Array<{ column: string; target: string; targetColumn: string; inferred: boolean }>
}

/** The table a column's words point at (`customer_id`, `CustomerId` → customer or customers), when one does. */
function referencedTable(words: string[], byWords: Map<string, TableInfo>): TableInfo | undefined {
  if (words.length < 2 || !/^(id|key)$/.test(words[words.length - 1])) {
    // `customerid` in one word.
    const last = words[words.length - 1] ?? ''
    if (words.length === 1 && /^[a-z]+id$/.test(last) && last.length > 3)
      return byWords.get(singular(last.slice(0, -2)))
    return undefined
  }
  const stem = words.slice(0, -1)
  for (let start = 0; start < stem.length; start++) {
    const found = byWords.get([...stem.slice(start, -1), singular(stem[stem.length - 1])].join(' '))
    if (found) return found
  }
  return undefined
}

/**
 * Cube-style model files from a database's tables, written to be asked questions of without edits: titles in
 * words, a label per cube (the column that names a row, or first and last name joined), measures by what each
 * column is (a count; distinct counts of the entities a table references; money summed and averaged; a line's
 * revenue from its unit price and quantity; durations and sizes averaged and maxed; never a sum of a key, code,
 * year or price), joins from foreign keys (a second key to the same table or one to itself through a cube of its
 * own in that role, `manager`), and, for tables without declared keys, keys and joins guessed from names
 * (`customer_id`, `CustomerId`) and marked `inferred`. Member names never clash, and column names that are not
 * plain identifiers are quoted as the source's SQL quotes them.
 */
export function generateModel(tables: TableInfo[], options: GenerateOptions = {}): GeneratedModel {
  const quoting = options.quoting ?? 'double'
  const inferred: string[] = []
  const cubeNames = new Set(tables.map((table) => safeName(table.name)))
  const plans = tables.map((table) => planOf(table, options, inferred))
  const plansByTable = new Map(plans.map((plan) => [plan.table.name, plan]))
  const byWords = new Map<string, TableInfo>()
  for (const table of tables) byWords.set(singularWords(table.name).join(' '), table)
  const declaredKeys = tables.some((table) => table.foreignKeys.length > 0)
  for (const plan of plans) planJoins(plan, { planOf: plansByTable, byWords, cubeNames, declaredKeys }, inferred)

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
  }
  for (const plan of plans) generation.files.set(`${plan.name}.yml`, cubeOf(generation, plan))
  nameLineRevenues(generation)
  nameSales(generation)
  addRoleCubes(generation)

  const texts = new Map<string, string>()
  for (const [file, def] of generation.files) {
    texts.set(
      file,
      `# Generated from the table ${String(def.sql_table)}; edit freely (titles, synonyms, descriptions, measures, access policies).\n${stringify({ cubes: [def] }, { lineWidth: 0, aliasDuplicateObjects: false })}`,
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

/** What the generation of one model keeps as it goes: the notes it reports, and what one cube tells the others. */
interface Generation {
  quoting: IdentifierQuoting
  /** A column name as the source's SQL writes it. */
  q: (name: string) => string
  inferred: string[]
  check: string[]
  /** Every cube name taken so far, role cubes included. */
  cubeNames: Set<string>
  planOf: Map<string, Plan>
  files: Map<string, Record<string, unknown>>
  /** Cubes whose lines carry a revenue: their orders (a joined table with a date) are the sales counted. */
  salesHeaders: Set<string>
  /** Each cube's revenue measure, and the cubes a line cube's revenue rolls up into. */
  revenues: Map<string, Record<string, unknown>>
  lineHeaders: Map<string, string[]>
  roleCubes: Array<Record<string, unknown>>
}

/** A column as the model reads it: its words, and the dimension type its database type and name say. */
function columnFactsOf(column: TableInfo['columns'][number], options: GenerateOptions): ColumnFacts {
  const words = lowerWords(column.name)
  let type = dimensionTypeOf(column.type)
  if (
    options.sqlite &&
    type === 'string' &&
    /^(text|varchar.*|char.*|)$/i.test(column.type.trim()) &&
    /^(date|at|time|timestamp|datetime|on)$/.test(words[words.length - 1] ?? '') &&
    words.length > 1
  )
    type = 'time'
  // `is_vip`, `has_discount` kept as integers (SQLite, MySQL) are yes/no, not numbers to add up.
  if (type === 'number' && /^(is|has)$/.test(words[0] ?? '') && words.length > 1 && /int|bit/i.test(column.type))
    type = 'boolean'
  return { name: column.name, member: '', type, words, comment: column.comment }
}

/** A table's plan, keys first: a table without a declared primary key gets `id` or `<table>_id` when it has one. */
function planOf(table: TableInfo, options: GenerateOptions, inferred: string[]): Plan {
  const singularName = singularWords(table.name)
  const columns = table.columns.map((column) => columnFactsOf(column, options))
  let primaryKey = table.primaryKey
  if (primaryKey.length === 0) {
    const key = columns.find(
      (column) => column.words.join(' ') === 'id' || column.words.join(' ') === [...singularName, 'id'].join(' '),
    )
    if (key) {
      primaryKey = [key.name]
      inferred.push(`${table.name}: primary key ${key.name} (by its name; the table declares none)`)
    }
  }
  return {
    table,
    name: safeName(table.name),
    singular: singularName,
    plural: pluralWords(table.name),
    columns,
    primaryKey,
    joins: [],
  }
}

/**
 * A plan's joins: its declared foreign keys, in column order; without any, joins from column names, to a table
 * whose key the column names and whose type it shares.
 */
function planJoins(
  plan: Plan,
  tables: {
    planOf: Map<string, Plan>
    /** Each table by its name's words in the singular. */
    byWords: Map<string, TableInfo>
    cubeNames: Set<string>
    /** Whether any table of the database declares a foreign key. */
    declaredKeys: boolean
  },
  inferred: string[],
): void {
  const { table } = plan
  const { planOf, byWords, cubeNames, declaredKeys } = tables
  const position = (column: string) => table.columns.findIndex((entry) => entry.name === column)
  if (table.foreignKeys.length > 0) {
    for (const key of [...table.foreignKeys].sort((a, b) => position(a.column) - position(b.column)))
      if (cubeNames.has(safeName(key.table)))
        plan.joins.push({ column: key.column, target: key.table, targetColumn: key.column2, inferred: false })
    return
  }
  for (const column of plan.columns) {
    if (plan.primaryKey.length === 1 && plan.primaryKey[0] === column.name) continue
    const target = referencedTable(column.words, byWords)
    if (!target || target === table) continue
    const targetPlan = planOf.get(target.name) as Plan
    const targetColumn =
      targetPlan.primaryKey.length === 1
        ? targetPlan.primaryKey[0]
        : target.columns.find((entry) => entry.name === column.name)?.name
    if (targetColumn === undefined) continue
    // A text code never joins a number (Postgres refuses `integer = varchar`): names alone are not enough.
    const targetType = targetPlan.columns.find((entry) => entry.name === targetColumn)?.type
    if (targetType !== column.type) continue
    plan.joins.push({ column: column.name, target: target.name, targetColumn, inferred: true })
    inferred.push(
      `${table.name}.${column.name} → ${target.name}.${targetColumn}: a join guessed from the name${declaredKeys ? '' : ' (the database declares no foreign keys)'}`,
    )
  }
}

/** One cube being written: its plan, the member names it has taken, and how its columns read. */
interface CubeDraft {
  plan: Plan
  /** The first free name of `candidates`, else the last one numbered; taken from then on. */
  unique: (...candidates: string[]) => string
  sqlOf: (column: string) => string
  columnTitle: (column: ColumnFacts) => string
  columnNamed: (test: (column: ColumnFacts) => boolean) => ColumnFacts | undefined
  foreignColumns: Set<string>
  keyColumns: Set<string>
  ownName: string
  singularTitle: string
}

function draftOf(plan: Plan, q: (name: string) => string): CubeDraft {
  const taken = new Set<string>()
  const unique = (...candidates: string[]) => {
    let found = candidates.find((candidate) => !taken.has(candidate))
    for (let index = 2; found === undefined; index++)
      if (!taken.has(`${candidates.at(-1)}_${index}`)) found = `${candidates.at(-1)}_${index}`
    taken.add(found)
    return found
  }
  const personal =
    plan.columns.some((column) => PERSON_FIRST.test(column.words[0] ?? '') && column.words.at(-1) === 'name') &&
    plan.columns.some((column) => PERSON_LAST.test(column.words[0] ?? '') && column.words.at(-1) === 'name')
  const columnTitle = (column: ColumnFacts): string => {
    const words = column.words
    // Beside a first and a last name, a title is a job title, not a name.
    if (words.join(' ') === 'title' && personal) return 'Job title'
    if (words.length === 1 && BARE_WORDS.has(words[0]) && words[0] !== plan.singular.at(-1))
      return titleWords([...plan.singular, ...splitOriginal(column.name)])
    return titleOfName(column.name)
  }
  const foreignColumns = new Set(plan.joins.map((join) => join.column))
  return {
    plan,
    unique,
    sqlOf: (column) => `{CUBE}.${q(column)}`,
    columnTitle,
    columnNamed: (test) => plan.columns.find(test),
    foreignColumns,
    keyColumns: new Set([...plan.primaryKey, ...foreignColumns]),
    ownName: plan.singular.join(' '),
    singularTitle: titleWords(plan.singular),
  }
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

  const cube: Record<string, unknown> = { name, sql_table: table.name, title: titleWords(plan.plural) }
  if (table.comment) cube.description = table.comment
  const everyday = ENTITY_SYNONYMS[plan.singular.at(-1) ?? '']
  if (everyday) cube.synonyms = everyday.filter((word) => !plan.plural.includes(word))
  if (label) cube.label = label
  if (joins.length > 0) cube.joins = joins
  cube.dimensions = dimensions
  cube.measures = measures.list
  return cube
}

/** Dimensions, one per column, and for a composite primary key one hidden dimension of its columns joined. */
function dimensionsOf(generation: Generation, draft: CubeDraft): Array<Record<string, unknown>> {
  const { q, quoting } = generation
  const { plan, unique, sqlOf } = draft
  const dimensions: Array<Record<string, unknown>> = plan.columns.map((column) => {
    column.member = unique(safeName(column.name))
    const dimension: Record<string, unknown> = { name: column.member, type: column.type }
    if (column.member !== column.name || q(column.name) !== column.name) dimension.sql = sqlOf(column.name)
    // A SQLite time is the column itself: the query compiler reads any text form of a time (a date alone, `T`,
    // fractions) as its moment, and bounds the column by day so its index serves date ranges. Read through
    // datetime(), it lost the index and its fractions of a second.
    dimension.title = draft.columnTitle(column)
    if (column.comment) dimension.description = column.comment
    if (
      column.type === 'time' &&
      PEOPLE.has(plan.singular.at(-1) ?? '') &&
      column.words.some((word) => SIGNUP_WORDS.has(word))
    )
      dimension.synonyms = ['signup date', 'sign-up date', 'joined', 'registration date', 'signed up']
    if (plan.primaryKey.length === 1 && plan.primaryKey[0] === column.name) dimension.primary_key = true
    return dimension
  })

  // Composite primary key: one hidden dimension of its columns joined, so distinct counts count rows.
  if (plan.primaryKey.length > 1) {
    const parts = plan.primaryKey.map((column) => `CAST(${sqlOf(column)} AS CHAR(40))`)
    const text = parts.map((part) => (quoting === 'backquote' ? part : part.replace('CHAR(40)', 'VARCHAR(40)')))
    dimensions.push({
      name: unique('row_key', `${plan.name}_row_key`),
      type: 'string',
      sql: quoting === 'backquote' ? `CONCAT(${text.join(", '|', ")})` : text.join(" || '|' || "),
      title: `${draft.singularTitle} key`,
      description: `The primary key's columns together (${plan.primaryKey.join(', ')}).`,
      primary_key: true,
      public: false,
    })
    generation.inferred.push(`${plan.table.name}: composite primary key (${plan.primaryKey.join(', ')})`)
  }
  return dimensions
}

/**
 * The label, the column that names a row (or first and last name joined, added to `dimensions`), with the cube's
 * own name as its synonyms: "by category", "which customer" mean it.
 */
function labelOf(
  generation: Generation,
  draft: CubeDraft,
  dimensions: Array<Record<string, unknown>>,
): string | undefined {
  const { plan, columnNamed, ownName, sqlOf } = draft
  const tableName = plan.table.name
  const first = columnNamed(
    (column) => column.type === 'string' && PERSON_FIRST.test(column.words[0] ?? '') && column.words.at(-1) === 'name',
  )
  const last = columnNamed(
    (column) => column.type === 'string' && PERSON_LAST.test(column.words[0] ?? '') && column.words.at(-1) === 'name',
  )
  const labelColumn =
    columnNamed(
      (column) => column.type === 'string' && ['name', 'full name', 'display name'].includes(column.words.join(' ')),
    ) ??
    columnNamed(
      (column) =>
        column.type === 'string' && [`${ownName} name`, `${ownName} title`, ownName].includes(column.words.join(' ')),
    ) ??
    (first && last
      ? undefined
      : (columnNamed((column) => column.type === 'string' && column.words.join(' ') === 'title') ??
        columnNamed(
          (column) =>
            column.type === 'string' && ['company name', `${ownName} description`].includes(column.words.join(' ')),
        )))
  let label: string | undefined
  if (!labelColumn && first && last) {
    label = draft.unique('full_name', `${plan.name}_full_name`)
    const parts = [sqlOf(first.name), sqlOf(last.name)]
    dimensions.push({
      name: label,
      type: 'string',
      sql:
        generation.quoting === 'backquote'
          ? `CONCAT(${parts[0]}, ' ', ${parts[1]})`
          : `${parts[0]} || ' ' || ${parts[1]}`,
      title: `${draft.singularTitle} name`,
      description: `${titleOfName(first.name)} and ${titleOfName(last.name).toLowerCase()} together.`,
      synonyms: ['name', 'full name'],
    })
    generation.inferred.push(`${tableName}: label full_name (${first.name} and ${last.name} joined)`)
  } else if (labelColumn) {
    label = labelColumn.member
    generation.inferred.push(`${tableName}: label ${labelColumn.name}`)
  } else if (plan.columns.some((column) => column.type === 'string' && !draft.keyColumns.has(column.name)))
    generation.check.push(`${tableName}: no column names a row (no name or title); rows are shown by their key`)
  const labelDimension = dimensions.find((dimension) => dimension.name === label)
  if (labelDimension) {
    const words = [plan.singular.join(' '), plan.plural.join(' ')]
    const own = (labelDimension.synonyms as string[] | undefined) ?? []
    labelDimension.synonyms = [...new Set([...words, ...own])]
  }
  return label
}

/** A cube's measures so far, its revenue if it has one, and whether its rows are a sale's lines. */
interface CubeMeasures {
  list: Array<Record<string, unknown>>
  revenue?: Record<string, unknown>
  /** A unit price beside a quantity: each row is a line of a sale. */
  isLine: boolean
}

/** Measures by what each column is: a count, then per number column, then a line's revenue. */
function measuresOf(generation: Generation, draft: CubeDraft): CubeMeasures {
  const { plan, columnNamed, keyColumns, sqlOf } = draft
  const count: Record<string, unknown> = {
    name: draft.unique('count', 'row_count'),
    type: 'count',
    title: `Number of ${titleWords(plan.plural).toLowerCase()}`,
  }
  const quantity = columnNamed(
    (column) =>
      column.type === 'number' &&
      !keyColumns.has(column.name) &&
      (column.words.some((word) => QUANTITY_WORDS.has(word)) || column.words.join(' ') === 'units') &&
      !column.words.some((word) => HELD_WORDS.has(word)),
  )
  const price = columnNamed(
    (column) =>
      column.type === 'number' &&
      !keyColumns.has(column.name) &&
      column.words.some((word) => PRICE_WORDS.has(word)) &&
      !column.words.some((word) => MONEY_WORDS.has(word)),
  )
  const measures: CubeMeasures = { list: [count], isLine: quantity !== undefined && price !== undefined }
  const hasTime = plan.columns.some((column) => column.type === 'time')
  for (const column of plan.columns) columnMeasures(generation, draft, measures, column, { price, quantity, hasTime })
  // A line's revenue: its unit price times its quantity (less a fractional discount beside them).
  if (measures.isLine && !measures.revenue && price && quantity) {
    const discount = columnNamed(
      (column) => column.type === 'number' && column.words.includes('discount') && !keyColumns.has(column.name),
    )
    const value = `${sqlOf(price.name)} * ${sqlOf(quantity.name)}${discount ? ` * (1 - ${sqlOf(discount.name)})` : ''}`
    const measure: Record<string, unknown> = { name: draft.unique('revenue', 'line_revenue'), type: 'sum', sql: value }
    measures.list.push(measure)
    markRevenue(generation, plan, measures, measure)
    if (discount)
      generation.check.push(
        `${plan.table.name}: revenue takes ${discount.name} as a fraction (0.1 = 10% off); change it if it is an amount`,
      )
  }
  if (measures.revenue && measures.isLine) count.synonyms = ['line items', 'order lines', 'sales lines']
  return measures
}

function markRevenue(
  generation: Generation,
  plan: Plan,
  measures: CubeMeasures,
  measure: Record<string, unknown>,
): void {
  measure.title = 'Revenue'
  measure.synonyms = REVENUE_SYNONYMS
  measure.format = 'currency'
  measures.revenue = measure
  generation.inferred.push(`${plan.table.name}: revenue = ${String(measure.sql)}`)
}

/**
 * The measures of one number column, by what its words say it is: a price's average, lowest and highest; a length
 * or size averaged and maxed; a rate averaged; money summed and averaged (a sale's revenue, with its largest and
 * smallest); a line's quantity as units sold; anything else summed. Keys, codes and years get none.
 */
function columnMeasures(
  generation: Generation,
  draft: CubeDraft,
  measures: CubeMeasures,
  column: ColumnFacts,
  line: { price?: ColumnFacts; quantity?: ColumnFacts; hasTime: boolean },
): void {
  const { unique, ownName } = draft
  if (column.type !== 'number' || draft.keyColumns.has(column.name)) return
  const words = column.words
  const title = draft.columnTitle(column)
  const lowerTitle = title.charAt(0).toLowerCase() + title.slice(1)
  const sql = generation.q(column.name) === column.name ? column.name : draft.sqlOf(column.name)
  const has = (set: Set<string>) => words.some((word) => set.has(word))
  const sum = () => {
    const measure: Record<string, unknown> = {
      name: unique(`total_${safeName(column.name)}`, `sum_of_${safeName(column.name)}`),
      type: 'sum',
      sql,
      title: `Total ${lowerTitle}`,
    }
    measures.list.push(measure)
    return measure
  }
  const aggregate = (type: 'avg' | 'max' | 'min', word: string) => {
    const measure: Record<string, unknown> = {
      name: unique(`${word}_${safeName(column.name)}`, `${type}_of_${safeName(column.name)}`),
      type,
      sql,
      title: `${word.charAt(0).toUpperCase()}${word.slice(1)} ${lowerTitle}`,
    }
    measures.list.push(measure)
    return measure
  }
  const { isLine } = measures
  if (has(KEY_WORDS) || has(CALENDAR_WORDS) || draft.foreignColumns.has(column.name)) return
  if (column === line.price || (has(PRICE_WORDS) && !has(MONEY_WORDS))) {
    aggregate('avg', 'average').format = 'currency'
    aggregate('min', 'lowest').format = 'currency'
    aggregate('max', 'highest').format = 'currency'
  } else if (has(MEASURED_WORDS) && !has(MONEY_WORDS)) {
    aggregate('avg', 'average')
    aggregate('max', has(new Set(['size', 'bytes', 'weight', 'height', 'width', 'depth'])) ? 'largest' : 'longest')
  } else if (has(AVERAGED_WORDS) && !(column.words.includes('discount') && !isLine)) {
    aggregate('avg', 'average')
  } else if (has(MONEY_WORDS)) {
    const total = sum()
    total.format = 'currency'
    const average = aggregate('avg', 'average')
    average.format = 'currency'
    if (!measures.revenue && has(REVENUE_WORDS) && (isLine || line.hasTime)) {
      markRevenue(generation, draft.plan, measures, total)
      if (!isLine) {
        // A sale's own value: its average, largest and smallest are what people ask of orders.
        average.title = `Average ${ownName} value`
        average.synonyms = [...new Set([`average ${lowerTitle}`, 'average order value', 'average sale', 'aov'])]
        const largest = aggregate('max', 'largest')
        largest.title = `Largest ${ownName}`
        largest.synonyms = [`biggest ${ownName}`, `highest ${lowerTitle}`]
        largest.format = 'currency'
        const smallest = aggregate('min', 'smallest')
        smallest.title = `Smallest ${ownName}`
        smallest.synonyms = [`lowest ${lowerTitle}`]
        smallest.format = 'currency'
      }
    }
  } else if (column === line.quantity) {
    const total = sum()
    if (isLine) {
      total.title = 'Units sold'
      total.synonyms = [...ITEMS_SOLD_SYNONYMS, `${titleOfName(column.name).toLowerCase()} sold`]
    }
  } else sum()
}

/** What a cube's revenue tells the others: which cubes are the sales counted, and which orders a line's rolls up to. */
function recordRevenue(generation: Generation, plan: Plan, measures: CubeMeasures): void {
  const { revenue, isLine } = measures
  if (!revenue) return
  if (isLine) {
    for (const join of plan.joins)
      if ((generation.planOf.get(join.target) as Plan).columns.some((column) => column.type === 'time'))
        generation.salesHeaders.add(safeName(join.target))
  } else generation.salesHeaders.add(plan.name)
  generation.revenues.set(plan.name, revenue)
  if (isLine)
    generation.lineHeaders.set(
      plan.name,
      plan.joins.map((join) => safeName(join.target)),
    )
}

/**
 * Distinct counts of the entities the table references, where its rows are events (an order, a payment, a sale's
 * line: no name of their own, a date): "how many customers bought". A customer's address or store counted is only
 * noise. A bridge (a key of references, a film's categories) counts the things on each side: "films in each
 * category" are the films it names, not its rows (without declared keys: two references and nothing else but
 * dates).
 */
function distinctCounts(
  generation: Generation,
  draft: CubeDraft,
  label: string | undefined,
  measures: CubeMeasures,
): Array<Record<string, unknown>> {
  const { plan } = draft
  const { isLine } = measures
  const joinColumns = new Set(plan.joins.map((join) => join.column))
  const bridge =
    (plan.primaryKey.length >= 2 && plan.primaryKey.some((key) => joinColumns.has(key))) ||
    (plan.primaryKey.length === 0 &&
      joinColumns.size >= 2 &&
      plan.columns.every((column) => joinColumns.has(column.name) || column.type === 'time'))
  const events =
    isLine ||
    bridge ||
    measures.revenue !== undefined ||
    (label === undefined &&
      plan.columns.some((column) => column.type === 'time' && !column.words.some((word) => BOOKKEEPING_TIME.has(word))))
  const counts: Array<Record<string, unknown>> = []
  const distinctTargets = new Set<string>()
  for (const join of events ? plan.joins : []) {
    if (join.target === plan.table.name) continue
    // A line's own order is no entity to count from its lines: the orders' count says it, without the trap.
    const header = (generation.planOf.get(join.target) as Plan).columns.some((column) => column.type === 'time')
    if (isLine && header) continue
    const role = roleWords(join.column, join.target)
    const words = role ?? singularWords(join.target)
    const key = words.join(' ')
    if (distinctTargets.has(key)) continue
    distinctTargets.add(key)
    const column = plan.columns.find((entry) => entry.name === join.column) as ColumnFacts
    const pluralTitle = titleWords([...words.slice(0, -1), ...pluralWords(words[words.length - 1] ?? '')])
    counts.push({
      name: draft.unique(`distinct_${safeName(words.join('_'))}`, `distinct_${safeName(column.name)}`),
      type: 'count_distinct',
      sql: generation.q(column.name) === column.name ? column.name : draft.sqlOf(column.name),
      // The cube's own words stay out of the title: "orders in 1997" is no question about products.
      title: `Number of different ${pluralTitle.toLowerCase()}`,
      description: `How many different ${pluralTitle.toLowerCase()} these ${titleWords(plan.plural).toLowerCase()} name.`,
      synonyms: [`distinct ${pluralTitle.toLowerCase()}`, `unique ${pluralTitle.toLowerCase()}`],
    })
  }
  return counts
}

/** Joins: one per target; a second key to the same table, or one to itself, through a cube in that role. */
function joinsOf(generation: Generation, plan: Plan): Array<Record<string, unknown>> {
  const { q, cubeNames } = generation
  const table = plan.table
  const joins: Array<Record<string, unknown>> = []
  const joined = new Set<string>()
  for (const join of plan.joins) {
    const target = safeName(join.target)
    const role = roleWords(join.column, join.target)
    const roleName = role?.join(' ')
    const selfReference = join.target === table.name
    if (!selfReference && !joined.has(target)) {
      joined.add(target)
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
    let roleCube = safeName(words.join('_'))
    if (cubeNames.has(roleCube) || joined.has(roleCube)) roleCube = safeName(`${join.target}_${words.join('_')}`)
    if (cubeNames.has(roleCube) || joined.has(roleCube)) continue
    cubeNames.add(roleCube)
    joined.add(roleCube)
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
function nameLineRevenues(generation: Generation): void {
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
function nameSales(generation: Generation): void {
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
function addRoleCubes(generation: Generation): void {
  const { files } = generation
  for (const role of generation.roleCubes) {
    const sourceName = safeName(role.source as string)
    const source = files.get(`${sourceName}.yml`) as Record<string, unknown>
    const sourceTitle = titleWords(singularWords(role.source as string))
    const words = role.role as string[]
    const cube: Record<string, unknown> = {
      name: role.name,
      sql_table: role.source,
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

/** The words of a name as written, for titles that keep acronyms. */
function splitOriginal(name: string): string[] {
  return name.split(/[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])/).filter((word) => word.length > 0)
}

/**
 * What a foreign key's column says the referenced row is, when more than the table's name: `support_rep_id` to
 * employee is "support rep", `reports_to` is "reports to"; `customer_id` to customer says nothing more.
 */
function roleWords(column: string, target: string): string[] | undefined {
  const words = lowerWords(column)
  const stem = /^(id|key|fk)$/.test(words.at(-1) ?? '') ? words.slice(0, -1) : words
  if (stem.length === 0) return undefined
  const targetWords = singularWords(target)
  const text = stem.join(' ')
  if (text === targetWords.join(' ') || text === targetWords.at(-1) || targetWords.join(' ').endsWith(text))
    return undefined
  return stem
}

/** A column name as SQL: bare when it is a plain identifier, else quoted as the source quotes identifiers. */
function quoteIdentifierIfNeeded(name: string, quoting: IdentifierQuoting): string {
  if (/^[a-z_][a-z0-9_]*$/.test(name)) return name
  return quoting === 'backquote' ? `\`${name.replace(/`/g, '``')}\`` : `"${name.replace(/"/g, '""')}"`
}
