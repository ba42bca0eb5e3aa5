import { Database } from 'bun:sqlite'
import { describe, expect, it } from 'bun:test'
import { join } from 'node:path'
import { compileQuery } from '../../../../plugins/semantic/compile/query-compiler'
import { timeText } from '../../../../plugins/semantic/compile/result-format'
import { loadDemoModel } from '../../../../plugins/semantic/demo/demo-model'
import { parseQuery } from '../../../../plugins/semantic/query/query-parser'
import { planQuery } from '../../../../plugins/semantic/query/query-planner'
import { accessView } from '../../../../plugins/semantic/semantic-model/access-policy'
import { sqliteDialect } from '../../../../plugins/semantic/sources/dialects/sqlite-dialect'
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

  it('compares a SQLite date kept as YYYY-MM-DD as its midnight, and a time written with T, Z, +00:00 or a fraction as its moment', async () => {
    const path = join(folder, 'forms.db')
    const database = new Database(path)
    database.run('CREATE TABLE visits (id INTEGER PRIMARY KEY, born DATE, seen_at TEXT)')
    database.run(
      `INSERT INTO visits VALUES (1, '2024-02-29', '2024-03-30T23:30:00Z'), (2, '2023-12-31', '2024-01-01 05:00:00.500'),
        (3, '2024-01-01', '2024-01-01T05:00'), (4, '2024-03-01', '2024-03-30T23:30:00.000001+00:00')`,
    )
    database.close()
    const ids = (where: string) => `SELECT visits.id FROM visits WHERE ${where} ORDER BY 1`
    expect(
      await queryModel(model, { type: 'sqlite', path }, [
        ids("visits.born < '2024-01-01'"),
        ids("visits.born = '2024-01-01 00:00:00'"),
        ids("visits.born BETWEEN '2024-01-01' AND '2024-02-29'"),
        ids("visits.seen_at > '2024-01-01 05:00:00'"),
        ids("visits.seen_at = '2024-01-01 05:00:00.5'"),
        ids("visits.seen_at <= '2024-03-30 23:30'"),
        ids("visits.seen_at = '2024-03-30 23:30:00.000001'"),
        'SELECT MAX(visits.born), MIN(visits.seen_at) FROM visits',
      ]),
    ).toEqual([
      [['2']],
      [['3']],
      [['1'], ['3']],
      [['1'], ['2'], ['4']],
      [['2']],
      [['1'], ['2'], ['3']],
      [['4']],
      [['2024-03-01 00:00:00', '2024-01-01 05:00:00']],
    ])
  })

  it('still bounds a SQLite time column by its day, so its index serves a date range', () => {
    const model = loadDemoModel('main')
    const view = accessView(model, null)
    const compiled = compileQuery(
      model,
      view,
      planQuery(
        model,
        view,
        parseQuery(
          "SELECT MEASURE(orders.count) FROM orders WHERE orders.created_at >= '2024-01-01 06:00' AND orders.created_at <= '2024-01-31'",
        ),
      ),
      sqliteDialect,
    )
    const database = new Database(':memory:')
    database.run('CREATE TABLE orders (id INTEGER PRIMARY KEY, created_at TEXT)')
    database.run('CREATE INDEX orders_created_at ON orders (created_at)')
    const plan = database
      .query(`EXPLAIN QUERY PLAN ${compiled.sql}`)
      .all(...(compiled.params as string[]))
      .map((row) => (row as { detail: string }).detail)
    database.close()
    expect(plan.join(' | ')).toContain('USING COVERING INDEX orders_created_at (created_at>? AND created_at<?)')
    expect(compiled.params.slice(0, 4)).toEqual([
      '2024-01-01',
      '2024-01-01 06:00:00',
      '2024-01-31~',
      '2024-01-31 00:00:00',
    ])
  })
})
