import { Database } from 'bun:sqlite'
import { redact } from './data-source'

/** One table as the database describes it. */
export interface TableInfo {
  name: string
  /** The table's comment, when the database keeps one. */
  comment?: string
  columns: Array<{ name: string; type: string; comment?: string }>
  primaryKey: string[]
  foreignKeys: Array<{ column: string; table: string; column2: string }>
}

type Row = Record<string, unknown>

function group(tables: Map<string, TableInfo>, name: string): TableInfo {
  let table = tables.get(name)
  if (!table) tables.set(name, (table = { name, columns: [], primaryKey: [], foreignKeys: [] }))
  return table
}

/** A column as `information_schema.columns` describes it (`column_name`, `data_type`, `column_comment`). */
function columnOf(row: Row): TableInfo['columns'][number] {
  return {
    name: String(row.column_name),
    type: String(row.data_type),
    ...(row.column_comment ? { comment: String(row.column_comment) } : {}),
  }
}

/**
 * Key columns (`table_name`, `column_name`, and for a foreign key `ref_table` and `ref_column`) added to the tables
 * read, as primary key or foreign key; keys of tables not read are left out.
 */
function addKeys(tables: Map<string, TableInfo>, keys: Row[], isPrimary: (key: Row) => boolean): void {
  for (const key of keys) {
    const table = tables.get(String(key.table_name))
    if (!table) continue
    if (isPrimary(key)) table.primaryKey.push(String(key.column_name))
    else if (key.ref_table)
      table.foreignKeys.push({
        column: String(key.column_name),
        table: String(key.ref_table),
        column2: String(key.ref_column),
      })
  }
}

/** Tables of a Postgres schema (default: the connection's current schema) with their keys. */
async function postgresTables(url: string, schema: string | undefined): Promise<TableInfo[]> {
  const client = new Bun.SQL(url, { max: 1, connectionTimeout: 10 } as Bun.SQL.Options)
  try {
    const [{ current }] = (await client.unsafe('SELECT current_schema() AS current')) as Array<{ current: string }>
    // The schema as written, else in lower case, as an unquoted `CREATE SCHEMA Sales` made it (the source does the same).
    const [{ found }] = (await client.unsafe(
      'SELECT COALESCE((SELECT nspname FROM pg_namespace WHERE nspname = $1), (SELECT nspname FROM pg_namespace WHERE nspname = lower($1))) AS found',
      [schema ?? current],
    )) as Array<{ found: string | null }>
    const name = found ?? schema ?? current
    const tables = new Map<string, TableInfo>()
    const columns = (await client.unsafe(
      `SELECT c.table_name, c.column_name, c.data_type,
         col_description(format('%I.%I', c.table_schema, c.table_name)::regclass, c.ordinal_position::int) AS column_comment,
         obj_description(format('%I.%I', c.table_schema, c.table_name)::regclass, 'pg_class') AS table_comment
       FROM information_schema.columns c
       JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name AND t.table_type IN ('BASE TABLE', 'VIEW')
       WHERE c.table_schema = $1 ORDER BY c.table_name, c.ordinal_position`,
      [name],
    )) as Row[]
    for (const column of columns) {
      const table = group(tables, String(column.table_name))
      if (column.table_comment) table.comment = String(column.table_comment)
      table.columns.push(columnOf(column))
    }
    const keys = (await client.unsafe(
      `SELECT con.contype AS kind, cl.relname AS table_name, a.attname AS column_name, rcl.relname AS ref_table, ra.attname AS ref_column
       FROM pg_constraint con
       JOIN pg_class cl ON cl.oid = con.conrelid
       JOIN pg_namespace ns ON ns.oid = cl.relnamespace
       CROSS JOIN LATERAL unnest(con.conkey, CASE WHEN con.contype = 'f' THEN con.confkey ELSE con.conkey END) AS k(attnum, refnum)
       JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.attnum
       LEFT JOIN pg_class rcl ON rcl.oid = con.confrelid
       LEFT JOIN pg_attribute ra ON ra.attrelid = con.confrelid AND ra.attnum = k.refnum
       WHERE ns.nspname = $1 AND con.contype IN ('p', 'f')`,
      [name],
    )) as Row[]
    addKeys(tables, keys, (key) => key.kind === 'p')
    return [...tables.values()]
  } finally {
    await client.close({ timeout: 1 })
  }
}

/** Tables of a MySQL/MariaDB database (default: the URL's) with their keys. */
async function mysqlTables(url: string, schema: string | undefined): Promise<TableInfo[]> {
  const client = new Bun.SQL(url, { max: 1, connectionTimeout: 10 } as Bun.SQL.Options)
  try {
    const [{ current }] = (await client.unsafe('SELECT DATABASE() AS current')) as Array<{ current: string }>
    const name = schema ?? current
    const tables = new Map<string, TableInfo>()
    const columns = (await client.unsafe(
      'SELECT TABLE_NAME AS table_name, COLUMN_NAME AS column_name, COLUMN_TYPE AS data_type, COLUMN_COMMENT AS column_comment FROM information_schema.columns WHERE TABLE_SCHEMA = ? ORDER BY TABLE_NAME, ORDINAL_POSITION',
      [name],
    )) as Row[]
    for (const column of columns) group(tables, String(column.table_name)).columns.push(columnOf(column))
    const comments = (await client.unsafe(
      "SELECT TABLE_NAME AS table_name, TABLE_COMMENT AS table_comment FROM information_schema.tables WHERE TABLE_SCHEMA = ? AND TABLE_COMMENT <> '' AND TABLE_COMMENT <> 'VIEW'",
      [name],
    )) as Row[]
    for (const row of comments) {
      const table = tables.get(String(row.table_name))
      if (table) table.comment = String(row.table_comment)
    }
    const keys = (await client.unsafe(
      'SELECT TABLE_NAME AS table_name, COLUMN_NAME AS column_name, CONSTRAINT_NAME AS constraint_name, REFERENCED_TABLE_NAME AS ref_table, REFERENCED_COLUMN_NAME AS ref_column FROM information_schema.key_column_usage WHERE TABLE_SCHEMA = ?',
      [name],
    )) as Row[]
    addKeys(tables, keys, (key) => key.constraint_name === 'PRIMARY')
    return [...tables.values()]
  } finally {
    await client.close({ timeout: 1 })
  }
}

/** Tables and views of a SQLite file with their keys. */
function sqliteTables(path: string): TableInfo[] {
  const database = new Database(path, { readonly: true })
  // A file its writer keeps in WAL mode is locked for moments (a checkpoint as the writer closes): wait them out.
  database.run('PRAGMA busy_timeout = 5000')
  try {
    const names = database
      .query(
        "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' ORDER BY name",
      )
      .values() as string[][]
    return names.map(([name]) => {
      const columns = database
        .query('SELECT name, type, pk FROM pragma_table_info(?) ORDER BY cid')
        .all(name) as Array<{ name: string; type: string; pk: number }>
      const keys = database.query('SELECT "from", "table", "to" FROM pragma_foreign_key_list(?)').all(name) as Array<{
        from: string
        table: string
        to: string | null
      }>
      return {
        name,
        columns: columns.map((column) => ({ name: column.name, type: column.type })),
        primaryKey: columns.filter((column) => column.pk > 0).map((column) => column.name),
        foreignKeys: keys.map((key) => ({ column: key.from, table: key.table, column2: key.to ?? 'id' })),
      }
    })
  } finally {
    database.close()
  }
}

/** Tables of a DuckDB file's schema (default `main`) with their keys; DuckDB is loaded only for this. */
async function duckdbTables(path: string, schema: string | undefined): Promise<TableInfo[]> {
  const { DuckDBInstance } = (await import('./duckdb-module')).duckdb()
  const instance = await DuckDBInstance.create(path, { access_mode: 'READ_ONLY' })
  const connection = await instance.connect()
  try {
    const name = schema ?? 'main'
    const tables = new Map<string, TableInfo>()
    const columns = (
      await connection.runAndReadAll(
        'SELECT table_name, column_name, data_type, column_comment FROM information_schema.columns WHERE table_schema = $1 ORDER BY table_name, ordinal_position',
        [name],
      )
    ).getRowsJson() as Array<[string, string, string, string | null]>
    for (const [table, column, type, comment] of columns)
      group(tables, table).columns.push({ name: column, type, ...(comment ? { comment } : {}) })
    const comments = (
      await connection.runAndReadAll(
        'SELECT table_name, comment FROM duckdb_tables() WHERE schema_name = $1 AND comment IS NOT NULL UNION ALL SELECT view_name, comment FROM duckdb_views() WHERE schema_name = $1 AND comment IS NOT NULL',
        [name],
      )
    ).getRowsJson() as string[][]
    for (const [tableName, comment] of comments) {
      const table = tables.get(tableName)
      if (table) table.comment = comment
    }
    const constraints = (
      await connection.runAndReadAll(
        "SELECT table_name, constraint_type, constraint_column_names, referenced_table, referenced_column_names FROM duckdb_constraints() WHERE schema_name = $1 AND constraint_type IN ('PRIMARY KEY', 'FOREIGN KEY')",
        [name],
      )
    ).getRowsJson() as Array<[string, string, string[], string | null, string[] | null]>
    for (const [tableName, kind, columnNames, referenced, referencedColumns] of constraints) {
      const table = tables.get(tableName)
      if (!table) continue
      if (kind === 'PRIMARY KEY') table.primaryKey.push(...columnNames)
      else if (referenced)
        columnNames.forEach((column, index) =>
          table.foreignKeys.push({ column, table: referenced, column2: referencedColumns?.[index] ?? 'id' }),
        )
    }
    return [...tables.values()]
  } finally {
    connection.closeSync()
    instance.closeSync()
  }
}

/** The tables of a database given as a `postgres://` / `mysql://` URL, a `.duckdb` file or a SQLite file. */
export async function introspect(from: string, schema?: string): Promise<TableInfo[]> {
  try {
    if (/^postgres(ql)?:\/\//i.test(from))
      return await postgresTables(from.replace(/^postgresql:/i, 'postgres:'), schema)
    if (/^(mysql|mariadb):\/\//i.test(from)) return await mysqlTables(from.replace(/^mariadb:/i, 'mysql:'), schema)
    if (/\.duckdb$/i.test(from)) return await duckdbTables(from, schema)
    return sqliteTables(from)
  } catch (error) {
    throw new Error(`cannot read the database's tables: ${redact((error as Error).message)}`)
  }
}
