import { describe, expect, it } from 'bun:test'
import { getTableColumns, is, Table } from 'drizzle-orm'
import * as sqliteSchema from '../../db/schema'
import * as postgresSchema from '../../db/schema-pg'
import { schemaShapes, type TableShape } from '../helpers/schema-drift'
import { postgresSchemaShapes } from '../helpers/schema-drift-postgres'

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false
type SqliteTables = typeof sqliteSchema
type PostgresTables = typeof postgresSchema

/**
 * Checked by the compiler: both schemas export the same tables, and each table's rows (as read and as written) have
 * the same properties with the same JavaScript types, so a query built for one reads and writes the other alike.
 */
type RowsAlike<Row extends 'select' | 'insert'> = {
  [K in keyof SqliteTables]: Row extends 'select'
    ? Equal<SqliteTables[K]['$inferSelect'], PostgresTables[K]['$inferSelect']>
    : // SQLite lets any integer primary key be left out (the rowid); on Postgres only an identity may be.
      Equal<Required<SqliteTables[K]['$inferInsert']>, Required<PostgresTables[K]['$inferInsert']>>
}
/** The names of the tables whose rows differ; `never` when none does. */
type Differing<Row extends 'select' | 'insert'> = {
  [K in keyof RowsAlike<Row>]: RowsAlike<Row>[K] extends true ? never : K
}[keyof SqliteTables]
const sameTables: Equal<keyof SqliteTables, keyof PostgresTables> = true
const sameRows: Equal<Differing<'select'>, never> = true
const sameInserts: Equal<Differing<'insert'>, never> = true
void [sameTables, sameRows, sameInserts]

/** A shape with what differs by design left out: column types, defaults and checks are each dialect's own. */
function portable(shapes: Record<string, TableShape>) {
  return Object.fromEntries(
    Object.entries(shapes).map(([table, shape]) => [
      table,
      {
        columns: Object.fromEntries(
          Object.entries(shape.columns).map(([name, column]) => [
            name,
            { notNull: column.notNull, primaryKey: column.primaryKey },
          ]),
        ),
        foreignKeys: shape.foreignKeys,
        indexes: Object.fromEntries(Object.entries(shape.indexes).filter(([name]) => !name.startsWith('check '))),
      },
    ]),
  )
}

describe('the SQLite and Postgres schemas', () => {
  it('export the same tables under the same names, with the same properties on the same columns', () => {
    const tables = (schema: Record<string, unknown>) =>
      Object.fromEntries(
        Object.entries(schema)
          .filter(([, value]) => is(value, Table))
          .map(([key, table]) => [
            key,
            Object.fromEntries(
              Object.entries(getTableColumns(table as Table)).map(([property, column]) => [property, column.name]),
            ),
          ]),
      )
    expect(tables(postgresSchema)).toEqual(tables(sqliteSchema))
    expect(Object.keys(postgresSchema).sort()).toEqual(Object.keys(sqliteSchema).sort())
  })

  it('agree on nullability, primary keys, foreign keys, unique constraints and indexes', () => {
    expect(portable(postgresSchemaShapes(postgresSchema))).toEqual(portable(schemaShapes(sqliteSchema)))
  })

  it('differ where a Postgres column type was chosen for the values: milliseconds are bigint, flags boolean', () => {
    const { accounts } = postgresSchemaShapes(postgresSchema)
    expect(accounts.columns.created_at.type).toBe('bigint')
    expect(accounts.columns.show_dashboard_chat.type).toBe('boolean')
  })
})
