import { Database } from 'bun:sqlite'
import { describe, expect, it } from 'bun:test'
import { join } from 'node:path'
import { duckdb } from '../../../../../plugins/semantic/sources/duckdb-module'
import { mariadbAvailable, postgresAvailable } from '../../../../helpers/database-servers'
import { mariadbDemoSource, postgresDemoSource } from '../../../../helpers/demo-sources'
import { queryModel, scratchModel } from '../../../../plugins/semantic/helpers'

/**
 * Text that differs only in case, accents or a trailing space is different text on every source: MySQL's default
 * collations (case- and accent-insensitive, trailing spaces ignored) must not merge or match it.
 */
const { folder, model } = scratchModel(
  'people',
  `cubes:
  - name: people
    sql_table: people_text
    dimensions:
      - { name: id, type: number, primary_key: true }
      - { name: name, type: string }
      - { name: city, type: string }
    measures:
      - { name: count, type: count }
`,
)
const ROWS = [
  [1, 'Émile', 'São Paulo'],
  [2, 'émile', 'Sao Paulo'],
  [3, 'STRASSE', 'berlin'],
  [4, 'straße', 'Berlin'],
  [5, 'a_b%c', 'Berlin '],
] as const
const values = ROWS.map(([id, name, city]) => `(${id}, '${name}', '${city}')`).join(', ')

const QUERIES = [
  "SELECT people.id FROM people WHERE people.city = 'berlin' ORDER BY 1",
  "SELECT people.id FROM people WHERE people.name = 'émile' ORDER BY 1",
  "SELECT people.id FROM people WHERE people.city = 'Berlin ' ORDER BY 1",
  "SELECT people.id FROM people WHERE people.city IN ('Sao Paulo', 'berlin') ORDER BY 1",
  "SELECT people.id FROM people WHERE people.city > 'Berlin' ORDER BY 1",
  'SELECT people.city, MEASURE(people.count) FROM people GROUP BY 1 ORDER BY 1',
  'SELECT COUNT(DISTINCT people.name), MIN(people.name), MAX(people.city) FROM people',
  "SELECT people.id FROM people WHERE people.city LIKE 'S_o Paulo' ORDER BY 1",
  "SELECT people.id FROM people WHERE people.name ILIKE 'str%' ORDER BY 1",
  // Case is ignored, accents are not: 'sao%' is not São Paulo.
  "SELECT people.id FROM people WHERE people.city ILIKE 'sao%' ORDER BY 1",
  "SELECT people.id FROM people WHERE people.city ILIKE '%SãO%' OR people.name ILIKE 'emile' ORDER BY 1",
  // Case is ignored beyond ASCII too: SQLite's lower() left 'É' as it was, and found only Émile.
  "SELECT people.id FROM people WHERE people.name ILIKE 'ÉMILE' ORDER BY 1",
  "SELECT people.id FROM people WHERE people.city ILIKE 'SÃO%' ORDER BY 1",
]

const answers = (config: Record<string, unknown>) => queryModel(model, config, QUERIES)

async function onServer(url: string, create: string) {
  const admin = new Bun.SQL(url)
  try {
    await admin.unsafe('DROP TABLE IF EXISTS people_text')
    await admin.unsafe(create)
    await admin.unsafe(`INSERT INTO people_text VALUES ${values}`)
  } finally {
    await admin.close()
  }
}

describe('text compared exactly on every source', () => {
  let reference: unknown[][]

  it('on SQLite: the reference', async () => {
    const path = join(folder, 'people.db')
    const database = new Database(path)
    database.run('CREATE TABLE people_text (id INTEGER PRIMARY KEY, name TEXT, city TEXT)')
    database.run(`INSERT INTO people_text VALUES ${values}`)
    database.close()
    reference = await answers({ type: 'sqlite', path })
    expect(reference.slice(0, 5)).toEqual([[['3']], [['2']], [['5']], [['2'], ['3']], [['1'], ['2'], ['3'], ['5']]])
    expect(reference[5]).toHaveLength(5)
    expect(reference[6]).toEqual([['5', 'STRASSE', 'berlin']])
    expect(reference.slice(-2)).toEqual([[['1'], ['2']], [['1']]])
  })

  it('on DuckDB', async () => {
    const path = join(folder, 'people.duckdb')
    const instance = await duckdb().DuckDBInstance.create(path)
    const connection = await instance.connect()
    await connection.run('CREATE TABLE people_text (id INTEGER PRIMARY KEY, name VARCHAR, city VARCHAR)')
    await connection.run(`INSERT INTO people_text VALUES ${values}`)
    connection.closeSync()
    instance.closeSync()
    expect(await answers({ type: 'duckdb', path })).toEqual(reference)
  })

  it.skipIf(!postgresAvailable)(
    'on Postgres',
    async () => {
      const { config } = await postgresDemoSource()
      await onServer(config.url as string, 'CREATE TABLE people_text (id INTEGER PRIMARY KEY, name TEXT, city TEXT)')
      expect(await answers({ type: 'postgres', url: config.url })).toEqual(reference)
    },
    60_000,
  )

  for (const [collation, table] of [
    ['its default case- and accent-insensitive collation', 'DEFAULT CHARSET utf8mb4 COLLATE utf8mb4_general_ci'],
    ['a latin1 table', 'DEFAULT CHARSET latin1'],
  ])
    it.skipIf(!mariadbAvailable)(
      `on MariaDB, in ${collation}`,
      async () => {
        const { config } = await mariadbDemoSource()
        await onServer(
          config.url as string,
          `CREATE TABLE people_text (id INTEGER PRIMARY KEY, name VARCHAR(50), city VARCHAR(50)) ${table}`,
        )
        expect(await answers({ type: 'mysql', url: config.url })).toEqual(reference)
      },
      60_000,
    )
})
