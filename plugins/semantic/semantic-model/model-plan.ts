import type { TableInfo } from '../sources/introspect'
import { lowerWords, pluralWords, singular, singularWords } from './model-naming'

type DimensionType = 'string' | 'number' | 'time' | 'boolean'

/** A database column type as a model dimension type. */
export function dimensionTypeOf(type: string): DimensionType {
  const lower = type.toLowerCase()
  if (/^(boolean|bool|tinyint\(1\)|bit\(1\))/.test(lower)) return 'boolean'
  if (/(timestamp|datetime|^date$|^date )/.test(lower)) return 'time'
  if (/(int|numeric|decimal|real|double|float|number|money)/.test(lower)) return 'number'
  return 'string'
}

/** Latin letters Unicode does not split into a plain letter and an accent, as their languages spell them in ASCII. */
const LATIN: Record<string, string> = {
  ø: 'o',
  Ø: 'O',
  æ: 'ae',
  Æ: 'AE',
  œ: 'oe',
  Œ: 'OE',
  ß: 'ss',
  ł: 'l',
  Ł: 'L',
  đ: 'd',
  Đ: 'D',
  ð: 'd',
  Ð: 'D',
  þ: 'th',
  Þ: 'TH',
  ı: 'i',
}

/**
 * A cube or member name the model accepts: letters, digits and underscores, not starting with a digit. Accented
 * letters lose their accents (`Tåble_État` → `Table_Etat`) rather than become underscores (`T_ble__tat`).
 */
export function safeName(name: string): string {
  const cleaned = name
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .replace(/[^\x00-\x7f]/g, (letter) => LATIN[letter] ?? letter)
    .replace(/[^A-Za-z0-9_]/g, '_')
  return /^[A-Za-z_]/.test(cleaned) ? cleaned : `_${cleaned}`
}

/** How the source's SQL quotes an identifier: backquotes on MySQL and MariaDB, double quotes elsewhere. */
export type IdentifierQuoting = 'double' | 'backquote'

export interface GenerateOptions {
  quoting?: IdentifierQuoting
  /** SQLite keeps dates as text: a text column named like a date (`created_at`, `order_date`) is a time there. */
  sqlite?: boolean
}

export interface ColumnFacts {
  name: string
  member: string
  type: DimensionType
  words: string[]
  comment?: string
}

export interface Plan {
  table: TableInfo
  name: string
  singular: string[]
  plural: string[]
  columns: ColumnFacts[]
  primaryKey: string[]
  joins: Array<{ column: string; target: string; targetColumn: string; inferred: boolean }>
}

/**
 * The table a column's words point at (`customer_id`, `CustomerId` → customer or customers; `user` → users, a
 * column named as a table's row is), when one does.
 */
function referencedTable(words: string[], byWords: Map<string, TableInfo>): TableInfo | undefined {
  if (words.length < 2 || !/^(id|key)$/.test(words[words.length - 1])) {
    // `customerid` in one word.
    const last = words[words.length - 1] ?? ''
    if (words.length === 1 && /^[a-z]+id$/.test(last) && last.length > 3)
      return byWords.get(singular(last.slice(0, -2)))
    // `user`, `product`: the row of another table, by its name alone (the caller checks the key's type).
    if (words.length > 0) return byWords.get([...words.slice(0, -1), singular(last)].join(' '))
    return undefined
  }
  const stem = words.slice(0, -1)
  for (let start = 0; start < stem.length; start++) {
    const found = byWords.get([...stem.slice(start, -1), singular(stem[stem.length - 1])].join(' '))
    if (found) return found
  }
  return undefined
}

/** What the generation of one model keeps as it goes: the notes it reports, and what one cube tells the others. */
export interface Generation {
  quoting: IdentifierQuoting
  /** A column name as the source's SQL writes it. */
  q: (name: string) => string
  inferred: string[]
  check: string[]
  /** Every cube name taken so far, role cubes included, in lower case. */
  cubeNames: Set<string>
  planOf: Map<string, Plan>
  files: Map<string, Record<string, unknown>>
  /** Cubes whose lines carry a revenue: their orders (a joined table with a date) are the sales counted. */
  salesHeaders: Set<string>
  /** Each cube's revenue measure, and the cubes a line cube's revenue rolls up into. */
  revenues: Map<string, Record<string, unknown>>
  lineHeaders: Map<string, string[]>
  roleCubes: Array<Record<string, unknown>>
  /** Each table's name in singular words (`order line`): a number column named so is a reference to its rows. */
  tableWords: Set<string>
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
export function planOf(table: TableInfo, options: GenerateOptions, inferred: string[], name: string): Plan {
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
    name,
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
export function planJoins(
  plan: Plan,
  tables: {
    planOf: Map<string, Plan>
    /** Each table by its name's words in the singular. */
    byWords: Map<string, TableInfo>
    /** Whether any table of the database declares a foreign key. */
    declaredKeys: boolean
  },
  inferred: string[],
): void {
  const { table } = plan
  const { planOf, byWords, declaredKeys } = tables
  const position = (column: string) => table.columns.findIndex((entry) => entry.name === column)
  if (table.foreignKeys.length > 0) {
    for (const key of [...table.foreignKeys].sort((a, b) => position(a.column) - position(b.column)))
      if (planOf.has(key.table))
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

/** The words of a name as written, for titles that keep acronyms. */
export function splitOriginal(name: string): string[] {
  return name.split(/[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])/).filter((word) => word.length > 0)
}

/**
 * What a foreign key's column says the referenced row is, when more than the table's name: `support_rep_id` to
 * employee is "support rep", `reports_to` is "reports to"; `customer_id` to customer says nothing more.
 */
export function roleWords(column: string, target: string): string[] | undefined {
  const words = lowerWords(column)
  const stem = /^(id|key|fk)$/.test(words.at(-1) ?? '') ? words.slice(0, -1) : words
  if (stem.length === 0) return undefined
  const targetWords = singularWords(target)
  const text = stem.join(' ')
  if (text === targetWords.join(' ') || text === targetWords.at(-1) || targetWords.join(' ').endsWith(text))
    return undefined
  return stem
}
