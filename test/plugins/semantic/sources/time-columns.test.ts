import { Database } from 'bun:sqlite'
import { describe, expect, it } from 'bun:test'
import { join } from 'node:path'
import { timeText } from '../../../../plugins/semantic/compile/result-format'
import { duckdb } from '../../../../plugins/semantic/sources/duckdb-module'
import { queryModel, scratchModel } from '../helpers'

// A DATE column and a time with a zone, read through a model: `YYYY-MM-DD HH:MM:SS` in UTC on every source.
const { folder, model } = scratchModel(
  'visits',
  `cubes:
  - name: visits
    sql_table: visits
    dimensions:
      - { name: id, type: number, primary_key: true }
      - { name: born, type: time }
      - { name: seen_at, type: time }
    measures:
      - { name: count, type: count }
`,
)
const QUERY = "SELECT visits.id, visits.born, visits.seen_at, DATE_TRUNC('day', visits.seen_at) FROM visits ORDER BY 1"
const EXPECTED = [
  ['1', '2024-02-29 00:00:00', '2024-03-30 23:30:00', '2024-03-30 00:00:00'],
  ['2', '2023-12-31 00:00:00', '2024-01-01 05:00:00', '2024-01-01 00:00:00'],
]

const read = async (config: Record<string, unknown>) => (await queryModel(model, config, [QUERY]))[0]

describe('time columns of every kind', () => {
  it('reads a DuckDB DATE and timestamptz in UTC, whatever zone the writer used', async () => {
    const path = join(folder, 'visits.duckdb')
    const instance = await duckdb().DuckDBInstance.create(path)
    const connection = await instance.connect()
    await connection.run("SET TimeZone = 'America/New_York'")
    await connection.run('CREATE TABLE visits (id INTEGER PRIMARY KEY, born DATE, seen_at TIMESTAMPTZ)')
    await connection.run(
      "INSERT INTO visits VALUES (1, DATE '2024-02-29', TIMESTAMPTZ '2024-03-30 23:30:00+00'), (2, DATE '2023-12-31', TIMESTAMPTZ '2024-01-01 00:00:00-05')",
    )
    connection.closeSync()
    instance.closeSync()
    expect(await read({ type: 'duckdb', path, maxConnections: 2, queryTimeoutMs: 30_000 })).toEqual(EXPECTED)
  })

  it('reads a SQLite DATE written as a date alone at its midnight', async () => {
    const path = join(folder, 'visits.db')
    const database = new Database(path)
    database.run('CREATE TABLE visits (id INTEGER PRIMARY KEY, born DATE, seen_at TEXT)')
    database.run(
      "INSERT INTO visits VALUES (1, '2024-02-29', '2024-03-30 23:30:00'), (2, '2023-12-31', '2024-01-01 05:00:00')",
    )
    database.close()
    expect(await read({ type: 'sqlite', path, maxConnections: 2, queryTimeoutMs: 30_000 })).toEqual(EXPECTED)
  })

  it('turns the text forms drivers give into UTC', () => {
    expect(timeText('2024-02-29')).toBe('2024-02-29 00:00:00')
    expect(timeText('2024-03-30 23:30:00+00')).toBe('2024-03-30 23:30:00')
    expect(timeText('2024-03-30 18:30:00-05')).toBe('2024-03-30 23:30:00')
    expect(timeText('2024-03-31 01:00:00.250+01:30')).toBe('2024-03-30 23:30:00')
    expect(timeText('2024-03-30T23:30:00Z')).toBe('2024-03-30 23:30:00')
    expect(timeText('not a time')).toBeUndefined()
  })
})
