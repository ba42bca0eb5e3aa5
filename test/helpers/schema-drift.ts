import type { Database } from 'bun:sqlite'
import { is, SQL } from 'drizzle-orm'
import { getTableConfig, SQLiteTable, type SQLiteColumn } from 'drizzle-orm/sqlite-core'

/**
 * What a table looks like, reduced to what both the migrated database and the drizzle schema can say: columns
 * (declared type, not null, position in the primary key, default), foreign keys and indexes. Two descriptions that
 * differ mean the migrations and the schema drifted apart.
 */
export interface TableShape {
  columns: Record<string, { type: string; notNull: boolean; primaryKey: number; default: string | null }>
  foreignKeys: string[]
  /** Named indexes (`CREATE INDEX`) by name, and column `UNIQUE` constraints as `unique(columns)`. */
  indexes: Record<string, string>
}

/** Tables of the migrated database, without SQLite's own and the migration runner's bookkeeping (`_migrations`). */
export function databaseShapes(sqlite: Database): Record<string, TableShape> {
  const tables = sqlite
    .query<{ name: string }, []>(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name NOT LIKE '\\_%' ESCAPE '\\'",
    )
    .all()
    .map((row) => row.name)
  return Object.fromEntries(tables.sort().map((table) => [table, databaseShape(sqlite, table)]))
}

function databaseShape(sqlite: Database, table: string): TableShape {
  const quoted = JSON.stringify(table)
  type ColumnInfo = { name: string; type: string; notnull: number; pk: number; dflt_value: string | null }
  type ForeignKeyInfo = { id: number; table: string; from: string; to: string; on_delete: string }
  const columns = sqlite.query<ColumnInfo, []>(`PRAGMA table_info(${quoted})`).all()
  const foreignKeys = sqlite.query<ForeignKeyInfo, []>(`PRAGMA foreign_key_list(${quoted})`).all()
  const byId = new Map<number, typeof foreignKeys>()
  for (const key of foreignKeys) byId.set(key.id, [...(byId.get(key.id) ?? []), key])
  const indexes: Record<string, string> = {}
  for (const index of sqlite
    .query<{ name: string; unique: number; origin: string; partial: number }, []>(`PRAGMA index_list(${quoted})`)
    .all()) {
    // The primary key's own index is compared through the columns' primary key positions.
    if (index.origin === 'pk') continue
    const indexed = sqlite
      .query<{ seqno: number; name: string | null }, []>(`PRAGMA index_info(${JSON.stringify(index.name)})`)
      .all()
      .sort((a, b) => a.seqno - b.seqno)
      .map((column) => column.name ?? '<expression>')
    if (index.origin === 'u') indexes[`unique(${indexed.join(', ')})`] = 'unique'
    else indexes[index.name] = indexDescription(index.unique === 1, indexed, index.partial === 1)
  }
  return {
    columns: Object.fromEntries(
      columns.map((column) => [
        column.name,
        {
          type: column.type.toLowerCase(),
          // SQLite lets a non-integer primary key column hold NULL unless declared NOT NULL; drizzle marks every
          // primary key column not null, and the service never writes NULL there, so a key column counts as not null.
          notNull: column.notnull === 1 || column.pk > 0,
          primaryKey: column.pk,
          default: column.dflt_value,
        },
      ]),
    ),
    foreignKeys: [...byId.values()]
      .map((parts) =>
        foreignKeyDescription(
          parts.map((part) => part.from),
          parts[0].table,
          parts.map((part) => part.to),
          parts[0].on_delete,
        ),
      )
      .sort(),
    indexes,
  }
}

/** Tables the drizzle schema module exports. */
export function schemaShapes(schema: Record<string, unknown>): Record<string, TableShape> {
  const tables = Object.values(schema).filter((value): value is SQLiteTable => is(value, SQLiteTable))
  return Object.fromEntries(
    tables
      .map((table) => [getTableConfig(table).name, schemaShape(table)] as const)
      .sort(([a], [b]) => a.localeCompare(b)),
  )
}

function schemaShape(table: SQLiteTable): TableShape {
  const config = getTableConfig(table)
  const composite = config.primaryKeys[0]?.columns.map((column) => column.name) ?? []
  const primaryKeyPosition = (column: SQLiteColumn) =>
    column.primary ? 1 : composite.includes(column.name) ? composite.indexOf(column.name) + 1 : 0
  const indexes: Record<string, string> = {}
  for (const column of config.columns) if (column.isUnique) indexes[`unique(${column.name})`] = 'unique'
  for (const unique of config.uniqueConstraints)
    indexes[`unique(${unique.columns.map((column) => column.name).join(', ')})`] = 'unique'
  for (const index of config.indexes) {
    const columns = index.config.columns.map((column) => (is(column, SQL) ? '<expression>' : column.name))
    indexes[index.config.name] = indexDescription(index.config.unique, columns, index.config.where !== undefined)
  }
  return {
    columns: Object.fromEntries(
      config.columns.map((column) => [
        column.name,
        {
          type: column.getSQLType().toLowerCase(),
          notNull: column.notNull,
          primaryKey: primaryKeyPosition(column),
          default: sqlDefault(column),
        },
      ]),
    ),
    foreignKeys: config.foreignKeys
      .map((key) => {
        const reference = key.reference()
        return foreignKeyDescription(
          reference.columns.map((column) => column.name),
          getTableConfig(reference.foreignTable).name,
          reference.foreignColumns.map((column) => column.name),
          key.onDelete ?? 'no action',
        )
      })
      .sort(),
    indexes,
  }
}

/** The default as SQLite reports it (`dflt_value`): the literal's SQL text. */
function sqlDefault(column: SQLiteColumn): string | null {
  const value: unknown = column.default
  if (value === undefined || value === null) return null
  if (typeof value === 'boolean') return value ? '1' : '0'
  if (typeof value === 'number') return String(value)
  if (typeof value === 'string') return `'${value.replaceAll("'", "''")}'`
  // An SQL expression or a JSON default: render it the way the column would store it.
  if (is(value, SQL)) return '<expression>'
  return `'${JSON.stringify(value).replaceAll("'", "''")}'`
}

function indexDescription(unique: boolean, columns: string[], partial: boolean): string {
  return `${unique ? 'unique ' : ''}(${columns.join(', ')})${partial ? ' where …' : ''}`
}

function foreignKeyDescription(from: string[], table: string, to: string[], onDelete: string): string {
  return `(${from.join(', ')}) references ${table}(${to.join(', ')}) on delete ${onDelete.toLowerCase()}`
}

/** Every difference between two sets of table shapes, one readable line each; empty when they agree. */
export function shapeDifferences(database: Record<string, TableShape>, schema: Record<string, TableShape>): string[] {
  const differences: string[] = []
  for (const table of new Set([...Object.keys(database), ...Object.keys(schema)])) {
    const inDatabase = database[table]
    const inSchema = schema[table]
    if (!inDatabase) {
      differences.push(`${table}: in the drizzle schema only`)
      continue
    }
    if (!inSchema) {
      differences.push(`${table}: in the migrated database only`)
      continue
    }
    compare(differences, `${table} column`, inDatabase.columns, inSchema.columns)
    compare(differences, `${table} index`, inDatabase.indexes, inSchema.indexes)
    const keys = (list: string[]) => Object.fromEntries(list.map((key) => [key, key]))
    compare(differences, `${table} foreign key`, keys(inDatabase.foreignKeys), keys(inSchema.foreignKeys))
  }
  return differences
}

type Described = Record<string, unknown>

function compare(differences: string[], what: string, database: Described, schema: Described): void {
  for (const name of new Set([...Object.keys(database), ...Object.keys(schema)])) {
    if (!(name in schema)) differences.push(`${what} ${name}: in the migrated database only`)
    else if (!(name in database)) differences.push(`${what} ${name}: in the drizzle schema only`)
    else if (JSON.stringify(database[name]) !== JSON.stringify(schema[name]))
      differences.push(
        `${what} ${name}: database ${JSON.stringify(database[name])}, schema ${JSON.stringify(schema[name])}`,
      )
  }
}
