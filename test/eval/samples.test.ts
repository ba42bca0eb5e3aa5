import { Database } from 'bun:sqlite'
import { afterAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createStatement, loadSqlite, readSample, type SampleTable } from '../../eval/samples'
import { freightTables } from '../../eval/sets/freight-data'
import { generateModel } from '../../plugins/semantic/semantic-model/model-generator'
import { loadModel } from '../../plugins/semantic/semantic-model/model-loader'
import { introspect } from '../../plugins/semantic/sources/introspect'

const folder = mkdtempSync(join(tmpdir(), 'eval-samples-'))
afterAll(() => rmSync(folder, { recursive: true, force: true }))

describe('the eval sample databases', () => {
  it('read whole, with their keys, rows in column order and NULLs', () => {
    const northwind = readSample('northwind')
    const rows = new Map(northwind.map((table) => [table.name, table.rows.length]))
    expect(Object.fromEntries(rows)).toMatchObject({ orders: 830, order_details: 2155, customers: 91, products: 77 })
    const details = northwind.find((table) => table.name === 'order_details')
    expect(details?.primaryKey).toEqual(['order_id', 'product_id'])
    expect(details?.rows[0]).toEqual(['10248', '11', '14.00', '12', '0.00'])
    const employees = northwind.find((table) => table.name === 'employees')
    // Each employee after the manager named in reports_to (DuckDB checks a key row by row), the top one first.
    const seen = new Set<string | null>([null])
    for (const row of employees?.rows ?? []) {
      expect(seen.has(row[15])).toBe(true)
      seen.add(row[0])
    }
    expect(createStatement(details!, 'mariadb')).toContain('FOREIGN KEY (`order_id`) REFERENCES `orders` (`order_id`)')
    const pagila = readSample('pagila')
    expect(pagila.find((table) => table.name === 'rental')?.rows.filter((row) => row[4] === null).length).toBe(183)
  })

  it('make the freight set the same at every run, with empty dates and values where a shipment has none', () => {
    const [carriers, clients, shipments] = freightTables()
    expect([carriers.rows.length, clients.rows.length, shipments.rows.length]).toEqual([6, 30, 640])
    expect(freightTables()[2].rows).toEqual(shipments.rows)
    const at = (name: string) => shipments.columns.findIndex((column) => column.name === name)
    const status = at('Status')
    // A shipment in transit or lost has no delivery date; some declare no value.
    for (const row of shipments.rows)
      expect(row[at('DeliveredOn')] === null).toBe(['In transit', 'Lost'].includes(row[status] as string))
    expect(shipments.rows.some((row) => row[at('DeclaredValue')] === null)).toBe(true)
  })

  it('load into SQLite with every foreign key kept, and model without edits', async () => {
    const samples: Array<[string, SampleTable[]]> = [
      ['northwind', readSample('northwind')],
      ['pagila', readSample('pagila')],
      ['freight', freightTables()],
    ]
    for (const [name, tables] of samples) {
      const path = join(folder, `${name}.db`)
      loadSqlite(tables, path)
      const database = new Database(path, { readonly: true })
      expect(database.query('PRAGMA foreign_key_check').all()).toEqual([])
      database.close()
      const { files } = generateModel(await introspect(path), { sqlite: true })
      expect(() =>
        loadModel(
          name,
          [...files].map(([file, text]) => ({ file, text })),
        ),
      ).not.toThrow()
    }
  }, 60_000)
})
