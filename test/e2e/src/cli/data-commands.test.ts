import { Database } from 'bun:sqlite'
import { afterAll, describe, expect, it } from 'bun:test'
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createSemanticService } from '../../../../plugins/semantic/semantic-service'
import { runCli } from '../../../../src/cli/index'
import { createLogger } from '../../../../lib/logger'
import { mariadbAvailable, postgresAvailable } from '../../../helpers/database-servers'
import { TEST_DEMO_DATA } from '../../../helpers/demo-data'
import {
  duckdbDemoSource,
  mariadbDemoSource,
  postgresDemoSource,
  sqliteDemoSource,
  type DemoSource,
} from '../../../helpers/demo-sources'
import { WHOLE_MODEL } from '../../../plugins/semantic/helpers'

const folder = mkdtempSync(join(tmpdir(), 'cli-data-'))
afterAll(() => rmSync(folder, { recursive: true, force: true }))

async function cli(...argv: string[]) {
  let out = ''
  let err = ''
  const code = await runCli(argv, {
    out: (text) => void (out += text),
    err: (text) => void (err += text),
    env: { ...process.env, DEMO_DATA_PATH: TEST_DEMO_DATA },
  })
  return { code, out, err }
}

describe('demo-data --into', () => {
  it('writes the demo tables with a progress line, and replaces them when run again', async () => {
    const path = join(folder, 'again.db')
    const first = await cli('demo-data', '--into', path)
    expect(first.code).toBe(0)
    expect(first.err).toContain('demo-data: line_items 251660/251660')
    const database = new Database(path)
    database.run('CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)')
    database.run("INSERT INTO notes VALUES (1, 'mine')")
    database.close()
    expect((await cli('demo-data', '--into', path)).code).toBe(0)
    const after = new Database(path, { readonly: true })
    expect(after.query('SELECT COUNT(*) AS n FROM orders').get()).toEqual({ n: 120_000 })
    expect(after.query('SELECT text FROM notes').all()).toEqual([{ text: 'mine' }])
    after.close()
  }, 60_000)

  it('stops without touching anything when a table of a demo name was not written by it', async () => {
    const path = join(folder, 'theirs.db')
    const database = new Database(path)
    database.run('CREATE TABLE orders (id INTEGER PRIMARY KEY, total REAL)')
    database.run('INSERT INTO orders VALUES (7, 1.5)')
    database.close()
    const outcome = await cli('demo-data', '--into', path)
    expect(outcome.code).toBe(1)
    expect(outcome.err).toContain('table orders already exists and was not written by demo-data')
    const after = new Database(path, { readonly: true })
    expect(after.query('SELECT * FROM orders').all()).toEqual([{ id: 7, total: 1.5 }])
    expect(after.query("SELECT name FROM sqlite_master WHERE type = 'table'").all()).toEqual([{ name: 'orders' }])
    after.close()
  })

  it('answers 2 with the usage when --into is missing, and never prints a password from a URL', async () => {
    const missing = await cli('demo-data')
    expect(missing.code).toBe(2)
    expect(missing.err).toContain('--into is required')
    const refused = await cli('demo-data', '--into', 'postgres://reader:hunter2@127.0.0.1:1/shop')
    expect(refused.code).toBe(1)
    expect(refused.err).not.toContain('hunter2')
  })

  it('answers 2 for a file that is neither SQLite nor DuckDB by its name, or a URL of another kind, writing nothing', async () => {
    for (const into of [join(folder, 'shop.csv'), join(folder, 'shop'), 'redis://127.0.0.1:1/0']) {
      const result = await cli('demo-data', '--into', into)
      expect(result.code).toBe(2)
      expect(result.err).toContain('--into:')
    }
    expect(readdirSync(folder).filter((name) => name.startsWith('shop'))).toEqual([])
    // A connection string of another shape is not repeated: it may hold a password.
    const keyValue = await cli('demo-data', '--into', 'host=db user=shop password=hunter2')
    expect(keyValue.code).toBe(2)
    expect(keyValue.err).not.toContain('hunter2')
  })
})

const generated: Array<[string, () => Promise<DemoSource>, boolean]> = [
  ['sqlite', sqliteDemoSource, true],
  ['duckdb', duckdbDemoSource, true],
  ['postgres', postgresDemoSource, postgresAvailable],
  ['mariadb', mariadbDemoSource, mariadbAvailable],
]

describe('model generate', () => {
  for (const [name, make, available] of generated)
    it.skipIf(!available)(
      `writes a model of the ${name} demo tables that loads and answers counts and joins along foreign keys`,
      async () => {
        const source = await make()
        const out = join(folder, `model-${name}`)
        const generatedModel = await cli(
          'model',
          'generate',
          '--from',
          source.config.url ?? (source.config.path as string),
          '--out',
          out,
        )
        expect(generatedModel).toMatchObject({ code: 0, out: expect.stringContaining('Wrote 5 model files') })
        // demo-data's own bookkeeping table (demo_meta) is no data to ask about: no cube for it.
        expect(readdirSync(out).sort()).toEqual([
          'customers.yml',
          'line_items.yml',
          'orders.yml',
          'products.yml',
          'regions.yml',
        ])
        const semantic = createSemanticService({
          config: { dbPath: ':memory:', demoDataPath: TEST_DEMO_DATA },
          logger: createLogger('silent'),
          dataSources: new Map([[5, source.config]]),
        })
        const deployment = { id: 5, model: out, branches: ['main'], defaultBranch: 'main' }
        const count = await semantic.query(
          { deployment, access: WHOLE_MODEL },
          'SELECT MEASURE(orders.count) FROM orders',
        )
        expect(count.data).toEqual([['120000']])
        // orders → customers → regions, two foreign keys away; the demo model's revenue by region is the reference.
        const joined = await semantic.query(
          { deployment, access: WHOLE_MODEL },
          'SELECT regions.name, MEASURE(orders.total_amount) FROM orders GROUP BY 1 ORDER BY 1',
        )
        const reference = createSemanticService({
          config: { dbPath: ':memory:', demoDataPath: TEST_DEMO_DATA },
          logger: createLogger('silent'),
        })
        const expected = await reference.query(
          { deployment: { id: 1, model: 'demo', branches: ['main'], defaultBranch: 'main' }, access: WHOLE_MODEL },
          'SELECT customers.region, MEASURE(orders.total_amount) FROM orders GROUP BY 1 ORDER BY 1',
        )
        expect(joined.data).toEqual(expected.data)
        semantic.close()
        reference.close()
      },
      120_000,
    )

  // Columns whose names are not plain identifiers, in the quotes of each server's SQL, and one named like the count
  // measure. Written into a database of the demo source's server (Postgres, MariaDB) or a file of its own (SQLite).
  const awkward: Array<[string, () => Promise<DemoSource>, boolean, string]> = [
    ['sqlite', sqliteDemoSource, true, '"'],
    ['postgres', postgresDemoSource, postgresAvailable, '"'],
    ['mariadb', mariadbDemoSource, mariadbAvailable, '`'],
  ]
  for (const [name, make, available, q] of awkward)
    it.skipIf(!available)(
      `writes a model of ${name} columns named "count", in mixed case or with spaces that loads and answers`,
      async () => {
        const source = await make()
        const create = `CREATE TABLE awkward_people (id INTEGER PRIMARY KEY, ${q}count${q} INTEGER, ${q}Mixed Case${q} INTEGER, ${q}Amount${q} INTEGER, ${q}order date${q} INTEGER, order_date INTEGER)`
        const insert = `INSERT INTO awkward_people VALUES (1, 10, 100, 1000, 1, 5), (2, 20, 200, 2000, 2, 6)`
        let from: string
        if (name === 'sqlite') {
          from = join(folder, 'awkward.db')
          const database = new Database(from)
          database.run(create)
          database.run(insert)
          database.close()
        } else {
          from = source.config.url as string
          const admin = new Bun.SQL(from)
          await admin.unsafe('DROP TABLE IF EXISTS awkward_people')
          await admin.unsafe(create)
          await admin.unsafe(insert)
          await admin.close()
        }
        const out = join(folder, `awkward-${name}`)
        expect((await cli('model', 'generate', '--from', from, '--out', out)).code).toBe(0)
        const config = name === 'sqlite' ? { ...source.config, path: from } : source.config
        const semantic = createSemanticService({
          config: { dbPath: ':memory:', demoDataPath: TEST_DEMO_DATA },
          logger: createLogger('silent'),
          dataSources: new Map([[6, config]]),
        })
        try {
          const result = await semantic.query(
            {
              deployment: { id: 6, model: out, branches: ['main'], defaultBranch: 'main' },
              access: WHOLE_MODEL,
            },
            'SELECT MEASURE(awkward_people.row_count), MEASURE(awkward_people.total_count), MEASURE(awkward_people.total_Mixed_Case), MEASURE(awkward_people.total_Amount), MAX(awkward_people.Mixed_Case), MAX(awkward_people.order_date), MAX(awkward_people.order_date_2) FROM awkward_people',
          )
          expect(result.data).toEqual([['2', '30', '300', '3000', '200', '2', '6']])
        } finally {
          semantic.close()
          if (name !== 'sqlite') {
            const admin = new Bun.SQL(from)
            await admin.unsafe('DROP TABLE IF EXISTS awkward_people')
            await admin.close()
          }
        }
      },
      120_000,
    )

  it('refuses to overwrite model files without --force', async () => {
    const { config } = await sqliteDemoSource()
    const out = join(folder, 'model-twice')
    expect((await cli('model', 'generate', '--from', config.path as string, '--out', out)).code).toBe(0)
    const again = await cli('model', 'generate', '--from', config.path as string, '--out', out)
    expect(again.code).toBe(2)
    expect(again.err).toContain('pass --force to overwrite')
  })

  it('answers 2 naming the forms it reads for a URL of another kind, writing nothing', async () => {
    const out = join(folder, 'model-of-a-web-page')
    const result = await cli('model', 'generate', '--from', 'http://user:secret@example.com/db', '--out', out)
    expect(result.code).toBe(2)
    expect(result.err).toContain('--from: http:// is not a database this reads; give a postgres:// or mysql://')
    expect(result.err).not.toContain('secret')
    expect(existsSync(out)).toBe(false)
  })
})
