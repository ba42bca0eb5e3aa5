import { Database } from 'bun:sqlite'
import { existsSync } from 'node:fs'
import { DEMO_DATA_VERSION } from './demo-data'

/** A column of a demo table, in the portable types every target spells its own way. */
type ColumnKind = 'id' | 'integer' | 'text' | 'money' | 'time'

interface DemoTable {
  name: 'regions' | 'customers' | 'products' | 'orders' | 'line_items'
  columns: Array<[name: string, kind: ColumnKind]>
  /** Foreign keys (column → table), so `model generate` finds the joins. */
  references?: Record<string, string>
}

/** The demo tables in dependency order (a table's references come before it). */
export const DEMO_TABLES: DemoTable[] = [
  {
    name: 'regions',
    columns: [
      ['id', 'id'],
      ['name', 'text'],
    ],
  },
  {
    name: 'customers',
    columns: [
      ['id', 'id'],
      ['name', 'text'],
      ['email', 'text'],
      ['region_id', 'integer'],
      ['city', 'text'],
      ['segment', 'text'],
      ['is_vip', 'integer'],
      ['created_at', 'time'],
    ],
    references: { region_id: 'regions' },
  },
  {
    name: 'products',
    columns: [
      ['id', 'id'],
      ['name', 'text'],
      ['category', 'text'],
      ['price', 'money'],
    ],
  },
  {
    name: 'orders',
    columns: [
      ['id', 'id'],
      ['customer_id', 'integer'],
      ['status', 'text'],
      ['created_at', 'time'],
      ['amount', 'money'],
      ['discount', 'money'],
    ],
    references: { customer_id: 'customers' },
  },
  {
    name: 'line_items',
    columns: [
      ['id', 'id'],
      ['order_id', 'integer'],
      ['product_id', 'integer'],
      ['quantity', 'integer'],
      ['unit_price', 'money'],
      ['amount', 'money'],
    ],
    references: { order_id: 'orders', product_id: 'products' },
  },
]

/** The table that marks the demo tables as written by this command (and so replaceable by it). */
export const DEMO_MARKER_TABLE = 'demo_meta'

/** Where the demo tables go: one implementation per kind of database. */
export interface DemoTarget {
  /** Whether a table of that name exists (in the target's schema). */
  hasTable(name: string): Promise<boolean>
  /** Whether the marker table says the demo tables were written by this command. */
  ownsDemoTables(): Promise<boolean>
  /** Drops the demo tables and the marker, then creates them empty. */
  recreate(tables: DemoTable[]): Promise<void>
  insert(table: DemoTable, rows: unknown[][]): Promise<void>
  /** Records ownership and finishes (commits, builds indexes). */
  finish(version: number): Promise<void>
  close(): Promise<void>
}

export class DemoExportError extends Error {}

export type Progress = (table: string, written: number, total: number) => void

/**
 * Copies the demo data (read from the generated SQLite file, so every target holds exactly the same rows) into
 * a target database in batches. Idempotent: tables it wrote before are replaced; a table of the same name that it
 * did not write stops it before anything is changed.
 */
export async function exportDemoData(
  demoFile: string,
  target: DemoTarget,
  options: { batchRows?: number; progress?: Progress } = {},
): Promise<Record<string, number>> {
  if (!existsSync(demoFile)) throw new DemoExportError(`demo data file ${demoFile} not found`)
  const owned = await target.ownsDemoTables()
  if (!owned)
    for (const table of [...DEMO_TABLES.map((entry) => entry.name), DEMO_MARKER_TABLE])
      if (await target.hasTable(table))
        throw new DemoExportError(
          `table ${table} already exists and was not written by demo-data; drop it or choose another database or schema`,
        )
  const source = new Database(demoFile, { readonly: true })
  const counts: Record<string, number> = {}
  try {
    await target.recreate(DEMO_TABLES)
    const batchRows = options.batchRows ?? 1_000
    for (const table of DEMO_TABLES) {
      const total = (source.query(`SELECT COUNT(*) AS n FROM ${table.name}`).get() as { n: number }).n
      const statement = source.query(
        `SELECT ${table.columns.map(([name]) => name).join(', ')} FROM ${table.name} ORDER BY id`,
      )
      let batch: unknown[][] = []
      let written = 0
      for (const row of statement.values() as unknown[][]) {
        batch.push(row)
        if (batch.length === batchRows) {
          await target.insert(table, batch)
          written += batch.length
          batch = []
          options.progress?.(table.name, written, total)
        }
      }
      if (batch.length > 0) {
        await target.insert(table, batch)
        written += batch.length
        options.progress?.(table.name, written, total)
      }
      counts[table.name] = written
    }
    await target.finish(DEMO_DATA_VERSION)
    return counts
  } finally {
    source.close()
  }
}
