import { afterAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runCli } from '../../../../src/cli/index'
import { postgresAvailable, sourcePostgresServer } from '../../../helpers/database-servers'
import { queryModel } from '../../../plugins/semantic/helpers'

// A shop whose orders name their user by a column `user` (no `_id`, no foreign key declared; a word Postgres
// reserves): model generate joins it to users by its name, and the join and the breakdown by it run on Postgres.
const folder = mkdtempSync(join(tmpdir(), 'model-generator-'))
afterAll(() => rmSync(folder, { recursive: true, force: true }))

describe.skipIf(!postgresAvailable)('a model generated from a Postgres schema with a user column', () => {
  it('joins orders to users by the column and counts the orders by user, never summing it', async () => {
    const server = await sourcePostgresServer()
    const client = new Bun.SQL(server.url, { max: 1 })
    await client.unsafe('DROP SCHEMA IF EXISTS shop_user CASCADE')
    await client.unsafe('CREATE SCHEMA shop_user')
    await client.unsafe('CREATE TABLE shop_user.users (id INTEGER PRIMARY KEY, name TEXT)')
    await client.unsafe(
      'CREATE TABLE shop_user.orders (id INTEGER PRIMARY KEY, "user" INTEGER, total NUMERIC(10, 2), created_at DATE)',
    )
    await client.unsafe(`INSERT INTO shop_user.users VALUES (1, 'Ann'), (2, 'Bo')`)
    await client.unsafe(
      `INSERT INTO shop_user.orders VALUES (1, 1, 10, '2025-01-02'), (2, 1, 5, '2025-01-03'), (3, 2, 7, '2025-02-01')`,
    )
    await client.close()
    const model = join(folder, 'shop')
    const errors: string[] = []
    const code = await runCli(['model', 'generate', '--from', server.url, '--schema', 'shop_user', '--out', model], {
      out: () => {},
      err: (text) => void errors.push(text),
      env: process.env,
    })
    expect(errors.join('')).toBe('')
    expect(code).toBe(0)
    expect(readFileSync(join(model, 'orders.yml'), 'utf8')).not.toContain('Total user')
    const [byName, byColumn] = await queryModel(model, { type: 'postgres', url: server.url, schema: 'shop_user' }, [
      'SELECT users.name, MEASURE(orders.count) FROM orders GROUP BY 1 ORDER BY 1',
      'SELECT orders."user", MEASURE(orders.total_total) FROM orders GROUP BY 1 ORDER BY 1',
    ])
    expect(byName).toEqual([
      ['Ann', '2'],
      ['Bo', '1'],
    ])
    expect(byColumn.map((row) => (row as unknown[]).map(Number))).toEqual([
      [1, 15],
      [2, 7],
    ])
  }, 180_000)
})
