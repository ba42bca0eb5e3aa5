import { Database } from 'bun:sqlite'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

/**
 * The sample databases of `test/fixtures/sample-databases/` (a portable schema and `COPY` blocks, gzipped), read and
 * written into SQLite, DuckDB, Postgres or MariaDB with each one's column types.
 */

export type SourceKind = 'sqlite' | 'duckdb' | 'postgres' | 'mariadb'

interface Column {
  name: string
  /** As written in the fixture: integer, smallint, varchar(n), text, numeric(p,s), date, timestamp, boolean. */
  type: string
  notNull: boolean
}

export interface SampleTable {
  name: string
  columns: Column[]
  primaryKey: string[]
  foreignKeys: Array<{ columns: string[]; table: string; references: string[] }>
  rows: Array<Array<string | null>>
}

const FIXTURES = join(import.meta.dir, '..', 'test', 'fixtures', 'sample-databases')

/** A COPY text field: `\N` is NULL, backslash escapes as Postgres writes them. */
function field(text: string): string | null {
  if (text === '\\N') return null
  return text.replace(/\\(.)/g, (_, char: string) => ({ t: '\t', n: '\n', r: '\r' })[char] ?? char)
}

/** Reads `<name>.sql.gz`: its tables in the order written (referenced tables first). */
export function readSample(name: string): SampleTable[] {
  const text = new TextDecoder().decode(Bun.gunzipSync(readFileSync(join(FIXTURES, `${name}.sql.gz`))))
  const tables = new Map<string, SampleTable>()
  for (const match of text.matchAll(/CREATE TABLE (\w+) \(\n([\s\S]*?)\n\);/g)) {
    const table: SampleTable = { name: match[1], columns: [], primaryKey: [], foreignKeys: [], rows: [] }
    for (const line of match[2].split('\n').map((entry) => entry.trim().replace(/,$/, ''))) {
      const key = /^PRIMARY KEY \((.*)\)$/.exec(line)
      const foreign = /^FOREIGN KEY \((.*)\) REFERENCES (\w+) \((.*)\)$/.exec(line)
      if (key) table.primaryKey = key[1].split(', ')
      else if (foreign)
        table.foreignKeys.push({
          columns: foreign[1].split(', '),
          table: foreign[2],
          references: foreign[3].split(', '),
        })
      else {
        const [, column, type, rest] = /^(\w+) (\w+(?:\([\d,]+\))?)(.*)$/.exec(line) ?? []
        table.columns.push({ name: column, type, notNull: /NOT NULL/.test(rest ?? '') })
      }
    }
    tables.set(table.name, table)
  }
  for (const match of text.matchAll(/COPY (\w+) \((.*)\) FROM stdin;\n([\s\S]*?)\\\.\n/g)) {
    const table = tables.get(match[1]) as SampleTable
    const lines = match[3].split('\n').filter((line) => line.length > 0)
    table.rows = parentsFirst(
      table,
      lines.map((line) => line.split('\t').map(field)),
    )
  }
  return [...tables.values()]
}

/** Rows of a table that references itself, each after the row it references (DuckDB checks keys row by row). */
function parentsFirst(table: SampleTable, rows: Array<Array<string | null>>): Array<Array<string | null>> {
  const self = table.foreignKeys.find((key) => key.table === table.name && key.columns.length === 1)
  if (!self) return rows
  const from = table.columns.findIndex((column) => column.name === self.columns[0])
  const to = table.columns.findIndex((column) => column.name === self.references[0])
  const placed = new Set<string | null>([null])
  const ordered: Array<Array<string | null>> = []
  let rest = rows
  while (rest.length > 0) {
    const ready = rest.filter((row) => placed.has(row[from]) || row[from] === row[to])
    if (ready.length === 0) return [...ordered, ...rest]
    for (const row of ready) placed.add(row[to])
    ordered.push(...ready)
    rest = rest.filter((row) => !ready.includes(row))
  }
  return ordered
}

/** A fixture column type in a source's dialect. */
function columnType(type: string, kind: SourceKind): string {
  const lower = type.toLowerCase()
  if (kind === 'sqlite') {
    if (/int/.test(lower)) return 'INTEGER'
    if (/numeric/.test(lower)) return 'NUMERIC'
    if (lower === 'boolean') return 'BOOLEAN'
    if (lower === 'timestamp') return 'DATETIME'
    if (lower === 'date') return 'DATE'
    return 'TEXT'
  }
  if (kind === 'mariadb') {
    if (lower === 'text') return 'TEXT'
    if (lower === 'timestamp') return 'DATETIME'
    return type.toUpperCase()
  }
  return type.toUpperCase()
}

function quote(name: string, kind: SourceKind): string {
  return kind === 'mariadb' ? `\`${name}\`` : `"${name}"`
}

/** The statements that create one table, keys included. */
export function createStatement(table: SampleTable, kind: SourceKind): string {
  const q = (name: string) => quote(name, kind)
  const parts = table.columns.map(
    (column) => `${q(column.name)} ${columnType(column.type, kind)}${column.notNull ? ' NOT NULL' : ''}`,
  )
  if (table.primaryKey.length > 0) parts.push(`PRIMARY KEY (${table.primaryKey.map(q).join(', ')})`)
  for (const key of table.foreignKeys)
    parts.push(
      `FOREIGN KEY (${key.columns.map(q).join(', ')}) REFERENCES ${q(key.table)} (${key.references.map(q).join(', ')})`,
    )
  return `CREATE TABLE ${q(table.name)} (${parts.join(', ')})`
}

/** A value as the column's type takes it (booleans from `t`/`f`). */
function value(raw: string | null, column: Column, kind: SourceKind): unknown {
  if (raw === null) return null
  const lower = column.type.toLowerCase()
  if (lower === 'boolean') return kind === 'sqlite' || kind === 'mariadb' ? (raw === 't' ? 1 : 0) : raw === 't'
  if (/int/.test(lower)) return Number(raw)
  return raw
}

/** Writes the sample into a SQLite file. */
export function loadSqlite(tables: SampleTable[], path: string): void {
  const database = new Database(path, { create: true })
  try {
    for (const table of tables) {
      database.run(createStatement(table, 'sqlite'))
      const insert = database.prepare(`INSERT INTO "${table.name}" VALUES (${table.columns.map(() => '?').join(', ')})`)
      database.transaction(() => {
        for (const row of table.rows)
          insert.run(...(row.map((raw, index) => value(raw, table.columns[index], 'sqlite')) as never[]))
      })()
    }
  } finally {
    database.close()
  }
}

/** Writes the sample into a DuckDB file (through a SQLite copy, which DuckDB reads in one statement each). */
export async function loadDuckdb(tables: SampleTable[], path: string): Promise<void> {
  const { DuckDBInstance } = (await import('../plugins/semantic/sources/duckdb-module')).duckdb()
  const instance = await DuckDBInstance.create(path)
  const connection = await instance.connect()
  try {
    for (const table of tables) {
      await connection.run(createStatement(table, 'duckdb'))
      const appender = await connection.createAppender(table.name)
      for (const row of table.rows) {
        row.forEach((raw, index) => {
          const column = table.columns[index]
          const lower = column.type.toLowerCase()
          if (raw === null) appender.appendNull()
          else if (lower === 'boolean') appender.appendBoolean(raw === 't')
          else if (/int/.test(lower)) appender.appendInteger(Number(raw))
          else appender.appendVarchar(raw)
        })
        appender.endRow()
        // A row that references its own table is checked against what was flushed.
        if (table.foreignKeys.some((key) => key.table === table.name)) appender.flushSync()
      }
      appender.flushSync()
      appender.closeSync()
    }
  } finally {
    connection.closeSync()
    instance.closeSync()
  }
}

/**
 * The sample as Parquet files (one per table, in `folder`) and a DuckDB file of views over them, as a data lake is
 * often queried: no declared keys at all, so a model of it has only the keys and joins names suggest.
 */
export async function loadParquetViews(tables: SampleTable[], path: string, folder: string): Promise<void> {
  const staging = `${path}.staging.duckdb`
  await loadDuckdb(tables, staging)
  const { DuckDBInstance } = (await import('../plugins/semantic/sources/duckdb-module')).duckdb()
  const instance = await DuckDBInstance.create(path)
  const connection = await instance.connect()
  const literal = (text: string) => `'${text.replace(/'/g, "''")}'`
  try {
    await connection.run(`ATTACH ${literal(staging)} AS staging (READ_ONLY)`)
    for (const table of tables) {
      const file = join(folder, `${table.name}.parquet`)
      await connection.run(`COPY staging.main."${table.name}" TO ${literal(file)} (FORMAT PARQUET)`)
      await connection.run(`CREATE VIEW "${table.name}" AS SELECT * FROM read_parquet(${literal(file)})`)
    }
    await connection.run('DETACH staging')
  } finally {
    connection.closeSync()
    instance.closeSync()
  }
}

/** Writes the sample into a Postgres or MariaDB database (the URL's), in batches of rows. */
export async function loadServer(tables: SampleTable[], url: string, kind: 'postgres' | 'mariadb'): Promise<void> {
  const client = new Bun.SQL(url, { max: 1 })
  try {
    for (const table of tables) {
      await client.unsafe(createStatement(table, kind))
      const columns = table.columns.map((column) => quote(column.name, kind)).join(', ')
      for (let start = 0; start < table.rows.length; start += 500) {
        const batch = table.rows.slice(start, start + 500)
        const parameters: unknown[] = []
        const tuples = batch.map((row) => {
          const marks = row.map((raw, index) => {
            parameters.push(value(raw, table.columns[index], kind))
            return kind === 'postgres' ? `$${parameters.length}` : '?'
          })
          return `(${marks.join(', ')})`
        })
        await client.unsafe(
          `INSERT INTO ${quote(table.name, kind)} (${columns}) VALUES ${tuples.join(', ')}`,
          parameters,
        )
      }
    }
  } finally {
    await client.close()
  }
}
