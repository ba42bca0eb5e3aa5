import { afterAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createPostgresSource } from '../../../../../plugins/semantic/sources/postgres-source'
import { runCli } from '../../../../../src/cli/index'
import { postgresAvailable, sourcePostgresServer, warnSkipped } from '../../../../helpers/database-servers'
import { queryModel } from '../../../../plugins/semantic/helpers'

// A Postgres schema named as people name things (capitals, a space), the `schema` of a data source and of
// `model generate`: unquoted, Postgres folded the name to lower case or refused it in the connection's search_path.
const folder = mkdtempSync(join(tmpdir(), 'postgres-schema-'))
const limits = { maxConnections: 2, queryTimeoutMs: 5_000 }
afterAll(() => rmSync(folder, { recursive: true, force: true }))

describe.skipIf(!postgresAvailable)('the schema of a Postgres source', () => {
  it('may be named with capitals and a space: a model generated from it answers queries over it', async () => {
    const server = await sourcePostgresServer()
    const client = new Bun.SQL(server.url, { max: 1 })
    await client.unsafe(`DROP SCHEMA IF EXISTS "Sales Data" CASCADE`)
    await client.unsafe(`CREATE SCHEMA "Sales Data"`)
    await client.unsafe(
      `CREATE TABLE "Sales Data"."Order" (id INTEGER PRIMARY KEY, "Region" TEXT, amount NUMERIC(10, 2))`,
    )
    await client.unsafe(`INSERT INTO "Sales Data"."Order" VALUES (1, 'Europe', 10.5), (2, 'Europe', 4), (3, 'Asia', 7)`)
    await client.close()
    const model = join(folder, 'model')
    const errors: string[] = []
    const code = await runCli(['model', 'generate', '--from', server.url, '--schema', 'Sales Data', '--out', model], {
      out: () => {},
      err: (text) => void errors.push(text),
      env: process.env,
    })
    expect(errors.join('')).toBe('')
    expect(code).toBe(0)
    const [rows] = await queryModel(model, { type: 'postgres', url: server.url, schema: 'Sales Data' }, [
      'SELECT "Order"."Region", MEASURE("Order".count) FROM "Order" GROUP BY 1',
    ])
    expect(rows).toEqual([
      ['Asia', '1'],
      ['Europe', '2'],
    ])
  }, 180_000)

  it('may be named in capitals where an unquoted CREATE SCHEMA made it lower case', async () => {
    const server = await sourcePostgresServer()
    const client = new Bun.SQL(server.url, { max: 1 })
    await client.unsafe('DROP SCHEMA IF EXISTS folded CASCADE')
    await client.unsafe('CREATE SCHEMA Folded')
    await client.unsafe('CREATE TABLE Folded.shops (id INTEGER)')
    await client.unsafe('INSERT INTO Folded.shops VALUES (1), (2)')
    await client.close()
    const source = createPostgresSource({ type: 'postgres', url: server.url, schema: 'Folded', ...limits }, 7)
    try {
      expect(await source.health()).toEqual({ ok: true })
      expect((await source.query('SELECT COUNT(*) FROM shops', [], 1)).rows.map((row) => Number(row[0]))).toEqual([2])
    } finally {
      await source.close()
    }
    const out = join(folder, 'folded')
    const code = await runCli(['model', 'generate', '--from', server.url, '--schema', 'Folded', '--out', out], {
      out: () => {},
      err: () => {},
      env: process.env,
    })
    expect({ code, files: readdirSync(out) }).toEqual({ code: 0, files: ['shops.yml'] })
  }, 180_000)

  it('is unavailable, not a bad query, while its schema does not exist, and ready once it does', async () => {
    const server = await sourcePostgresServer()
    const client = new Bun.SQL(server.url, { max: 1 })
    await client.unsafe(`DROP SCHEMA IF EXISTS "Later" CASCADE`)
    const source = createPostgresSource({ type: 'postgres', url: server.url, schema: 'Later', ...limits }, 7)
    try {
      expect(await source.health()).toEqual({ ok: false, error: 'schema not found' })
      expect(await source.connect().catch((error: Error) => error)).toMatchObject({ status: 503 })
      expect(await source.query('SELECT COUNT(*) FROM shops', [], 1).catch((error: Error) => error)).toMatchObject({
        status: 503,
        code: 'DATA_SOURCE_UNAVAILABLE',
        category: 'schema not found',
      })
      await client.unsafe(`CREATE SCHEMA "Later"`)
      await client.unsafe(`CREATE TABLE "Later".shops (id INTEGER)`)
      expect(await source.health()).toEqual({ ok: true })
      expect((await source.query('SELECT COUNT(*) FROM shops', [], 1)).rows.map((row) => Number(row[0]))).toEqual([0])
    } finally {
      await source.close()
      await client.close()
    }
  }, 180_000)
})

if (!postgresAvailable) warnSkipped('the Postgres schema test')
