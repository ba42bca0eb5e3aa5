import { Database } from 'bun:sqlite'
import { describe, expect, it } from 'bun:test'
import { join } from 'node:path'
import { parseQuery } from '../../../plugins/semantic/query/query-parser'
import { queryModel, scratchModel } from './helpers'

// A table, its columns and the model's members named by words SQL reserves, columns read without `sql` (the column
// of the member's name), as `model generate` writes them for such a database.
const { folder, model } = scratchModel(
  'order',
  `cubes:
  - name: order
    sql_table: order
    dimensions:
      - { name: id, type: number, primary_key: true }
      - { name: group, type: string }
      - { name: from, type: time }
      - { name: user, type: number }
    measures:
      - { name: count, type: count }
      - { name: total_user, type: sum, sql: user }
`,
)

describe('a model named by reserved words, on SQLite', () => {
  it('answers queries over members whose columns are reserved words', async () => {
    const path = join(folder, 'order.db')
    const database = new Database(path)
    database.run('CREATE TABLE "order" (id INTEGER PRIMARY KEY, "group" TEXT, "from" TEXT, "user" INTEGER)')
    database.run(
      `INSERT INTO "order" VALUES (1, 'g1', '2024-01-05', 3), (2, 'g1', '2024-02-07 10:00:00', 4), (3, 'g2', '2024-02-08', 5)`,
    )
    database.close()
    const answers = await queryModel(model, { type: 'sqlite', path }, [
      'SELECT "order"."group", MEASURE("order".count), MEASURE("order".total_user) FROM "order" GROUP BY 1',
      `SELECT DATE_TRUNC('month', "order"."from"), MEASURE("order".count) FROM "order" WHERE "order"."from" >= '2024-02-01' GROUP BY 1`,
      'SELECT "order"."user" FROM "order" WHERE "order"."group" = \'g2\'',
    ])
    expect(answers).toEqual([
      [
        ['g1', '2', '7'],
        ['g2', '1', '5'],
      ],
      [['2024-02-01 00:00:00', '2']],
      [['5']],
    ])
  })
})

describe('a query that writes a reserved word bare', () => {
  it('is told to quote it, where the parser only said what it expected', () => {
    for (const sql of [
      'SELECT MEASURE(order.count) FROM order',
      'SELECT MEASURE("order".count) FROM order',
      'SELECT "order"."group" AS from FROM "order"',
    ])
      expect(() => parseQuery(sql)).toThrow(/(order|from) is a word SQL reserves: write it in double quotes/)
    // Inside quotes, a reserved word is no name written bare.
    expect(() => parseQuery("SELECT orders.status FROM orders WHERE orders.status = 'from order.x' AND")).not.toThrow(
      /reserves/,
    )
  })
})
