import type { SQL } from 'bun'
import { is, SQL as DrizzleSql } from 'drizzle-orm'
import { getTableConfig, PgTable, type PgColumn } from 'drizzle-orm/pg-core'
import type { TableShape } from './schema-drift'

/**
 * The Postgres side of the drift check: the same table shapes as `schema-drift.ts` builds for SQLite, read from the
 * catalogue (information_schema and pg_catalog) of a migrated database and from the drizzle Postgres schema. Check
 * constraints are listed with the indexes as `check <name>`, identity columns have the default `identity`.
 */
export async function postgresDatabaseShapes(client: SQL): Promise<Record<string, TableShape>> {
  const columns: Array<{
    table: string
    column: string
    type: string
    nullable: string
    default: string | null
    identity: string
    pk: number | null
  }> = await client.unsafe(`
    SELECT c.table_name AS table, c.column_name AS column, c.data_type AS type, c.is_nullable AS nullable,
      c.column_default AS default, c.is_identity AS identity,
      (SELECT k.ordinal_position FROM information_schema.table_constraints t
        JOIN information_schema.key_column_usage k
          ON k.constraint_name = t.constraint_name AND k.table_schema = t.table_schema AND k.table_name = t.table_name
        WHERE t.constraint_type = 'PRIMARY KEY' AND t.table_schema = c.table_schema AND t.table_name = c.table_name
          AND k.column_name = c.column_name) AS pk
    FROM information_schema.columns c
    WHERE c.table_schema = current_schema() AND c.table_name NOT LIKE '\\_%'
    ORDER BY c.table_name, c.ordinal_position`)
  const indexes: Array<{
    table: string
    name: string
    unique: boolean
    partial: boolean
    columns: string
    constraint: string | null
  }> = await client.unsafe(`
    SELECT t.relname AS table, i.relname AS name, x.indisunique AS unique, x.indpred IS NOT NULL AS partial,
      (SELECT string_agg(CASE WHEN k.attnum = 0 THEN '<expression>' ELSE a.attname END, ', ' ORDER BY k.ord)
        FROM unnest(x.indkey::int2[]) WITH ORDINALITY k(attnum, ord)
        LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum) AS columns,
      c.contype::text AS constraint
    FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
    JOIN pg_namespace n ON n.oid = t.relnamespace
    LEFT JOIN pg_constraint c ON c.conindid = x.indexrelid AND c.contype IN ('u', 'p')
    WHERE n.nspname = current_schema() AND t.relname NOT LIKE '\\_%'`)
  const constraints: Array<{
    table: string
    name: string
    type: string
    foreign: string | null
    onDelete: string
    from: string | null
    to: string | null
  }> = await client.unsafe(`
    SELECT t.relname AS table, c.conname AS name, c.contype::text AS type, f.relname AS foreign,
      c.confdeltype::text AS "onDelete",
      (SELECT string_agg(a.attname, ', ' ORDER BY k.ord) FROM unnest(c.conkey) WITH ORDINALITY k(attnum, ord)
        JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum) AS from,
      (SELECT string_agg(a.attname, ', ' ORDER BY k.ord) FROM unnest(c.confkey) WITH ORDINALITY k(attnum, ord)
        JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.attnum) AS to
    FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid LEFT JOIN pg_class f ON f.oid = c.confrelid
    JOIN pg_namespace n ON n.oid = t.relnamespace
    WHERE c.contype IN ('f', 'c') AND n.nspname = current_schema() AND t.relname NOT LIKE '\\_%'`)
  const shapes: Record<string, TableShape> = {}
  const shape = (table: string) => (shapes[table] ??= { columns: {}, foreignKeys: [], indexes: {} })
  for (const column of columns)
    shape(column.table).columns[column.column] = {
      type: column.type,
      notNull: column.nullable === 'NO',
      primaryKey: column.pk ?? 0,
      default: column.identity === 'YES' ? 'identity' : column.default,
    }
  for (const index of indexes) {
    if (index.constraint === 'p') continue
    if (index.constraint === 'u') shape(index.table).indexes[`unique(${index.columns})`] = 'unique'
    else shape(index.table).indexes[index.name] = indexDescription(index.unique, index.columns, index.partial)
  }
  for (const constraint of constraints) {
    if (constraint.type === 'c') shape(constraint.table).indexes[`check ${constraint.name}`] = 'check'
    else
      shape(constraint.table).foreignKeys.push(
        `(${constraint.from}) references ${constraint.foreign}(${constraint.to}) on delete ${ON_DELETE[constraint.onDelete]}`,
      )
  }
  for (const table of Object.values(shapes)) table.foreignKeys.sort()
  return Object.fromEntries(Object.entries(shapes).sort(([a], [b]) => a.localeCompare(b)))
}

const ON_DELETE: Record<string, string> = {
  a: 'no action',
  r: 'restrict',
  c: 'cascade',
  n: 'set null',
  d: 'set default',
}

/** Tables the drizzle Postgres schema module exports. */
export function postgresSchemaShapes(schema: Record<string, unknown>): Record<string, TableShape> {
  const tables = Object.values(schema).filter((value): value is PgTable => is(value, PgTable))
  return Object.fromEntries(
    tables
      .map((table) => [getTableConfig(table).name, schemaShape(table)] as const)
      .sort(([a], [b]) => a.localeCompare(b)),
  )
}

function schemaShape(table: PgTable): TableShape {
  const config = getTableConfig(table)
  const composite = config.primaryKeys[0]?.columns.map((column) => column.name) ?? []
  const primaryKeyPosition = (column: PgColumn) =>
    column.primary ? 1 : composite.includes(column.name) ? composite.indexOf(column.name) + 1 : 0
  const indexes: Record<string, string> = {}
  for (const column of config.columns) if (column.isUnique) indexes[`unique(${column.name})`] = 'unique'
  for (const unique of config.uniqueConstraints)
    indexes[`unique(${unique.columns.map((column) => column.name).join(', ')})`] = 'unique'
  for (const index of config.indexes) {
    const columns = index.config.columns.map((column) =>
      is(column, DrizzleSql) ? '<expression>' : (column as { name: string }).name,
    )
    indexes[index.config.name!] = indexDescription(
      index.config.unique,
      columns.join(', '),
      index.config.where !== undefined,
    )
  }
  for (const check of config.checks) indexes[`check ${check.name}`] = 'check'
  return {
    columns: Object.fromEntries(
      config.columns.map((column) => [
        column.name,
        {
          type: column.getSQLType().toLowerCase(),
          // A primary key column is not null whether or not the schema says so.
          notNull: column.notNull || primaryKeyPosition(column) > 0,
          primaryKey: primaryKeyPosition(column),
          default: column.generatedIdentity ? 'identity' : sqlDefault(column),
        },
      ]),
    ),
    foreignKeys: config.foreignKeys
      .map((key) => {
        const reference = key.reference()
        return (
          `(${reference.columns.map((column) => column.name).join(', ')}) references ` +
          `${getTableConfig(reference.foreignTable).name}(${reference.foreignColumns.map((column) => column.name).join(', ')}) ` +
          `on delete ${key.onDelete ?? 'no action'}`
        )
      })
      .sort(),
    indexes,
  }
}

/** The default as information_schema reports it. */
function sqlDefault(column: PgColumn): string | null {
  const value: unknown = column.default
  if (value === undefined || value === null) return null
  if (typeof value === 'boolean' || typeof value === 'number') return String(value)
  if (typeof value === 'string') return `'${value.replaceAll("'", "''")}'::${column.getSQLType()}`
  return '<expression>'
}

function indexDescription(unique: boolean, columns: string, partial: boolean): string {
  return `${unique ? 'unique ' : ''}(${columns})${partial ? ' where …' : ''}`
}
