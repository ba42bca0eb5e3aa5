import type { DuckDBAppender } from '@duckdb/node-api'
import { duckdb } from '../sources/duckdb-module'
import { DEMO_MARKER_TABLE, type DemoTarget } from './demo-data-export'

// Rows go through DuckDB's appender into a plain staging table (an INSERT per batch takes minutes for the demo
// data), then into the typed table with one INSERT ... SELECT.
const STAGE = { id: 'INTEGER', integer: 'INTEGER', text: 'VARCHAR', money: 'DOUBLE', time: 'VARCHAR' } as const

const TYPES = {
  id: 'INTEGER PRIMARY KEY',
  integer: 'INTEGER NOT NULL',
  text: 'VARCHAR NOT NULL',
  money: 'DECIMAL(12,2) NOT NULL',
  time: 'TIMESTAMP NOT NULL',
} as const
const DROP_ORDER = ['line_items', 'orders', 'products', 'customers', 'regions', DEMO_MARKER_TABLE]

/** A DuckDB file (created when missing), in one transaction. Loaded only by `demo-data --into <file>.duckdb`. */
export async function duckdbDemoTarget(path: string): Promise<DemoTarget> {
  const instance = await duckdb().DuckDBInstance.create(path)
  const connection = await instance.connect()
  const staged: Array<{ table: string; appender: DuckDBAppender }> = []
  const hasTable = async (name: string) =>
    (
      await connection.runAndReadAll(
        'SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = $1',
        [name],
      )
    ).getRowsJson()[0][0] !== '0'
  return {
    hasTable,
    async ownsDemoTables() {
      if (!(await hasTable(DEMO_MARKER_TABLE))) return false
      const rows = (
        await connection.runAndReadAll(`SELECT value FROM ${DEMO_MARKER_TABLE} WHERE key = 'written_by'`)
      ).getRowsJson()
      return rows[0]?.[0] === 'demo-data'
    },
    async recreate(tables) {
      await connection.run('BEGIN TRANSACTION')
      for (const name of DROP_ORDER) await connection.run(`DROP TABLE IF EXISTS "${name}"`)
      for (const table of tables) {
        const columns = table.columns.map(([name, kind]) => `"${name}" ${TYPES[kind]}`)
        const keys = Object.entries(table.references ?? {}).map(
          ([column, target]) => `FOREIGN KEY ("${column}") REFERENCES "${target}" ("id")`,
        )
        await connection.run(`CREATE TABLE "${table.name}" (${[...columns, ...keys].join(', ')})`)
      }
      await connection.run(`CREATE TABLE ${DEMO_MARKER_TABLE} (key VARCHAR PRIMARY KEY, value VARCHAR NOT NULL)`)
    },
    async insert(table, rows) {
      let stage = staged.find((entry) => entry.table === table.name)
      if (!stage) {
        await connection.run(
          `CREATE TEMP TABLE "stage_${table.name}" (${table.columns.map(([name, kind]) => `"${name}" ${STAGE[kind]}`).join(', ')})`,
        )
        stage = { table: table.name, appender: await connection.createAppender(`stage_${table.name}`, 'main', 'temp') }
        staged.push(stage)
      }
      for (const row of rows) {
        table.columns.forEach(([, kind], index) => {
          const value = row[index]
          if (kind === 'id' || kind === 'integer') stage.appender.appendInteger(Number(value))
          else if (kind === 'money') stage.appender.appendDouble(Number(value))
          else stage.appender.appendVarchar(String(value))
        })
        stage.appender.endRow()
      }
    },
    async finish(version) {
      for (const { table, appender } of staged) {
        appender.closeSync()
        await connection.run(`INSERT INTO "${table}" SELECT * FROM temp."stage_${table}"`)
        await connection.run(`DROP TABLE temp."stage_${table}"`)
      }
      await connection.run(
        `INSERT INTO ${DEMO_MARKER_TABLE} VALUES ('written_by', 'demo-data'), ('version', '${version}')`,
      )
      await connection.run('COMMIT')
      await connection.run('CHECKPOINT')
    },
    async close() {
      connection.closeSync()
      instance.closeSync()
    },
  }
}
