import { afterAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { introspect } from '../../../../../plugins/semantic/sources/introspect'
import {
  mariadbAvailable,
  mariadbServer,
  postgresAvailable,
  sourcePostgresServer,
} from '../../../../helpers/database-servers'

// Table and column comments are what `model generate` writes as descriptions: read from each database that keeps them.
const folder = mkdtempSync(join(tmpdir(), 'introspect-comments-'))
afterAll(() => rmSync(folder, { recursive: true, force: true }))

const expected = {
  name: 'commented_orders',
  comment: 'One order of the shop',
  columns: [
    { name: 'id', type: expect.any(String) },
    { name: 'total', type: expect.any(String), comment: 'Paid, after discount' },
  ],
}

describe('introspect reads table and column comments', () => {
  it('on DuckDB', async () => {
    const path = join(folder, 'comments.duckdb')
    const { DuckDBInstance } = (await import('../../../../../plugins/semantic/sources/duckdb-module')).duckdb()
    const instance = await DuckDBInstance.create(path)
    const connection = await instance.connect()
    await connection.run('CREATE TABLE commented_orders (id INTEGER PRIMARY KEY, total DECIMAL(10,2))')
    await connection.run("COMMENT ON TABLE commented_orders IS 'One order of the shop'")
    await connection.run("COMMENT ON COLUMN commented_orders.total IS 'Paid, after discount'")
    connection.closeSync()
    instance.closeSync()
    expect(await introspect(path)).toEqual([expect.objectContaining(expected)])
  })

  it.skipIf(!postgresAvailable)(
    'on Postgres',
    async () => {
      const server = await sourcePostgresServer()
      const client = new Bun.SQL(server.url, { max: 1 })
      try {
        await client.unsafe('DROP TABLE IF EXISTS commented_orders')
        await client.unsafe('CREATE TABLE commented_orders (id INTEGER PRIMARY KEY, total NUMERIC(10,2))')
        await client.unsafe("COMMENT ON TABLE commented_orders IS 'One order of the shop'")
        await client.unsafe("COMMENT ON COLUMN commented_orders.total IS 'Paid, after discount'")
        const tables = await introspect(server.url)
        expect(tables.find((table) => table.name === 'commented_orders')).toEqual(expect.objectContaining(expected))
      } finally {
        await client.unsafe('DROP TABLE IF EXISTS commented_orders')
        await client.close()
      }
    },
    120_000,
  )

  it.skipIf(!mariadbAvailable)(
    'on MariaDB',
    async () => {
      const server = await mariadbServer()
      const client = new Bun.SQL(server.url, { max: 1 })
      try {
        await client.unsafe('DROP TABLE IF EXISTS commented_orders')
        await client.unsafe(
          "CREATE TABLE commented_orders (id INTEGER PRIMARY KEY, total DECIMAL(10,2) COMMENT 'Paid, after discount') COMMENT='One order of the shop'",
        )
        const tables = await introspect(server.url)
        expect(tables.find((table) => table.name === 'commented_orders')).toEqual(expect.objectContaining(expected))
      } finally {
        await client.unsafe('DROP TABLE IF EXISTS commented_orders')
        await client.close()
      }
    },
    120_000,
  )
})
