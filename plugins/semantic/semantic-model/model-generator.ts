import { stringify } from 'yaml'
import type { TableInfo } from '../sources/introspect'

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

/**
 * Cube-style model files from a database's tables: one cube per table with a `count` measure, a `sum` for every
 * numeric column that is not a key, a dimension for every column (the primary key marked) and a many_to_one join
 * for every foreign key. Member names never clash (a column named `count` leaves the measure `row_count`), and
 * column names that are not plain identifiers are quoted as the source's SQL quotes them. Returns file name → YAML
 * text.
 */
export function generateModelFiles(tables: TableInfo[], quoting: IdentifierQuoting = 'double'): Map<string, string> {
  const quoteIfNeeded = (name: string) => quoteIdentifierIfNeeded(name, quoting)
  const cubes = new Set(tables.map((table) => safeName(table.name)))
  const files = new Map<string, string>()
  for (const table of tables) {
    const name = safeName(table.name)
    const keys = new Set([...table.primaryKey, ...table.foreignKeys.map((key) => key.column)])
    const joins = new Map<string, { name: string; relationship: string; sql: string }>()
    const position = (column: string) => table.columns.findIndex((entry) => entry.name === column)
    for (const key of [...table.foreignKeys].sort((a, b) => position(a.column) - position(b.column))) {
      const target = safeName(key.table)
      // One join per target cube (its name is the target's); a self-reference or a second key to the same
      // table is left for the author to model.
      if (target === name || joins.has(target) || !cubes.has(target)) continue
      joins.set(target, {
        name: target,
        relationship: 'many_to_one',
        sql: `{CUBE}.${quoteIfNeeded(key.column)} = {${target}}.${quoteIfNeeded(key.column2)}`,
      })
    }
    // Member names are unique within a cube: the first free one of the candidates, else the last one numbered.
    const taken = new Set<string>()
    const unique = (...candidates: string[]) => {
      let name = candidates.find((candidate) => !taken.has(candidate))
      for (let index = 2; name === undefined; index++)
        if (!taken.has(`${candidates.at(-1)}_${index}`)) name = `${candidates.at(-1)}_${index}`
      taken.add(name)
      return name
    }
    // Columns whose names clean up alike (`order date`, `order_date`) get names of their own.
    const dimensions = table.columns.map((column) => {
      const dimension: Record<string, unknown> = {
        name: unique(safeName(column.name)),
        type: dimensionTypeOf(column.type),
      }
      if (dimension.name !== column.name || quoteIfNeeded(column.name) !== column.name)
        dimension.sql = `{CUBE}.${quoteIfNeeded(column.name)}`
      if (table.primaryKey.length === 1 && table.primaryKey[0] === column.name) dimension.primary_key = true
      return dimension
    })
    const measures: Array<Record<string, unknown>> = [{ name: unique('count', 'row_count'), type: 'count' }]
    for (const column of table.columns) {
      if (keys.has(column.name) || dimensionTypeOf(column.type) !== 'number') continue
      measures.push({
        name: unique(`total_${safeName(column.name)}`, `sum_of_${safeName(column.name)}`),
        type: 'sum',
        // Quoted unless plain lower case: Postgres folds a bare `Amount` to `amount`.
        sql: quoteIfNeeded(column.name) === column.name ? column.name : `{CUBE}.${quoteIfNeeded(column.name)}`,
      })
    }
    const cube: Record<string, unknown> = { name, sql_table: table.name }
    if (joins.size > 0) cube.joins = [...joins.values()]
    cube.dimensions = dimensions
    cube.measures = measures
    files.set(
      `${name}.yml`,
      `# Generated from the table ${table.name}; edit freely (titles, descriptions, measures, access policies).\n${stringify({ cubes: [cube] }, { lineWidth: 0 })}`,
    )
  }
  return files
}

/** A column name as SQL: bare when it is a plain identifier, else quoted as the source quotes identifiers. */
function quoteIdentifierIfNeeded(name: string, quoting: IdentifierQuoting): string {
  if (/^[a-z_][a-z0-9_]*$/.test(name)) return name
  return quoting === 'backquote' ? `\`${name.replace(/`/g, '``')}\`` : `"${name.replace(/"/g, '""')}"`
}
