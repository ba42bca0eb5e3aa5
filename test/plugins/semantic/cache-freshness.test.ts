import { Database } from 'bun:sqlite'
import { afterAll, describe, expect, it } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { DuckDBInstance } from '@duckdb/node-api'
import { demoService, scratchModel, WHOLE_MODEL } from './helpers'

const TALLY_MODEL = (sql: string) => `cubes:
  - name: tally
    sql: "${sql}"
    dimensions:
      - name: id
        type: number
        primary_key: true
    measures:
      - name: count
        type: count
`
const COUNT = 'SELECT MEASURE(tally.count) FROM tally'

/** A SQLite file with a `tally` table of `rows` rows, in `journal` mode. */
function tallyFile(path: string, rows: number, journal: 'wal' | 'delete'): Database {
  const database = new Database(path, { create: true })
  database.exec(`PRAGMA journal_mode = ${journal}`)
  database.exec('CREATE TABLE tally (id INTEGER PRIMARY KEY)')
  for (let id = 1; id <= rows; id++) database.run('INSERT INTO tally (id) VALUES (?)', [id])
  return database
}

describe('the SQL result cache and a change of the data', () => {
  const services: Array<ReturnType<typeof demoService>> = []
  afterAll(() => services.forEach((service) => service.close()))
  const serviceOver = (config: Record<string, unknown> | undefined, unstampedCacheMs?: number) => {
    const service = demoService({
      dataSources: new Map(config ? [[9, { maxConnections: 2, queryTimeoutMs: 30_000, ...config } as never]] : []),
      unstampedCacheMs,
    })
    services.push(service)
    return service
  }

  for (const journal of ['wal', 'delete'] as const)
    it(`answers from a SQLite source's rows as they are now, the writer in ${journal} mode`, async () => {
      const { folder, model } = scratchModel(`tally-${journal}`, TALLY_MODEL('SELECT * FROM tally'))
      const path = join(folder, 'tally.db')
      const writer = tallyFile(path, 2, journal)
      const semantic = serviceOver({ type: 'sqlite', path })
      const deployment = { id: 9, model, branches: ['main'], defaultBranch: 'main' }
      const ask = () => semantic.query({ deployment, access: WHOLE_MODEL }, COUNT)

      expect((await ask()).data).toEqual([['2']])
      // Unchanged data: the cache answers, and says so.
      expect(await ask()).toMatchObject({ data: [['2']], cached: { computedAt: expect.any(String) } })
      writer.run('INSERT INTO tally (id) VALUES (3)')
      const after = await ask()
      expect(after.data).toEqual([['3']])
      expect(after.cached).toBeUndefined()
      writer.close()
    })

  it("answers from a model folder's data.db as it is now", async () => {
    const { model } = scratchModel('tally-folder', TALLY_MODEL('SELECT * FROM tally'))
    const writer = tallyFile(join(model, 'data.db'), 5, 'delete')
    const semantic = serviceOver(undefined)
    const deployment = { id: 9, model, branches: ['main'], defaultBranch: 'main' }
    const ask = () => semantic.query({ deployment, access: WHOLE_MODEL }, COUNT)

    expect((await ask()).data).toEqual([['5']])
    writer.run('DELETE FROM tally WHERE id > 1')
    expect((await ask()).data).toEqual([['1']])
    writer.close()
  })

  it('keeps the answers of a source that cannot tell a change for its short while only', async () => {
    // DuckDB reads the CSV file the model names at each query; the service has no way to see it change.
    const { folder, model } = scratchModel('tally-csv', '')
    const csv = join(folder, 'tally.csv')
    writeFileSync(join(model, 'tally-csv.yml'), TALLY_MODEL(`SELECT * FROM read_csv_auto('${csv}')`))
    writeFileSync(csv, 'id\n1\n2\n')
    const path = join(folder, 'empty.duckdb')
    ;(await DuckDBInstance.create(path)).closeSync()
    const semantic = serviceOver({ type: 'duckdb', path }, 300)
    const deployment = { id: 9, model, branches: ['main'], defaultBranch: 'main' }
    const ask = () => semantic.query({ deployment, access: WHOLE_MODEL }, COUNT)

    expect((await ask()).data).toEqual([['2']])
    writeFileSync(csv, 'id\n1\n2\n3\n4\n')
    expect(await ask()).toMatchObject({ data: [['2']], cached: { computedAt: expect.any(String) } })
    await Bun.sleep(400)
    const later = await ask()
    expect(later.data).toEqual([['4']])
    expect(later.cached).toBeUndefined()
  }, 30_000)
})
