import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { spawnSync } from 'bun'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { eq } from 'drizzle-orm'
import { applyBootstrap } from '../../../../src/bootstrap/apply'
import { postgresMigrations } from '../../../../db/migrations-pg'
import { openPostgresStorage } from '../../../../db/postgres/postgres-storage'
import { commands, runCli } from '../../../../src/cli'
import { hashSecret } from '../../../../lib/secrets'
import { createTestApp } from '../../../helpers/app'
import { serverDatabase, type ServerDatabase } from '../../../helpers/server-database'
import { freePort, postgresAvailable } from '../../../helpers/database-servers'
import { POSTGRES_START_MS, postgresStarted, throwawayPostgresDatabase } from '../../../helpers/postgres-databases'
import { testBootstrap } from '../../../helpers/fixtures'

const dir = mkdtempSync(join(tmpdir(), 'cli-'))
const databases: ServerDatabase[] = []
afterAll(async () => {
  for (const database of databases) await database.drop()
  rmSync(dir, { recursive: true, force: true })
})
beforeAll(postgresStarted, POSTGRES_START_MS)
const root = join(import.meta.dir, '..', '..', '..', '..')

/** Runs the command line in this process, capturing what it prints. */
async function cli(argv: string[], env: Record<string, string | undefined> = {}) {
  let out = ''
  let err = ''
  const code = await runCli(argv, { out: (text) => void (out += text), err: (text) => void (err += text), env })
  return { code, out, err }
}

/** A database of the run's kind (a file, or Postgres with TEST_STORAGE=postgres) with the test bootstrap applied. */
async function bootstrappedDatabase(): Promise<ServerDatabase> {
  const database = await serverDatabase(dir, `service-${databases.length}`)
  databases.push(database)
  const storage = await database.open()
  await applyBootstrap(storage, testBootstrap(), 'test')
  await storage.close()
  return database
}

describe('service --help', () => {
  it('lists every subcommand and exits without starting the server', () => {
    const result = spawnSync([process.execPath, 'run', join(root, 'src', 'main.ts'), '--help'], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', DB_PATH: join(dir, 'never-created.db') },
      timeout: 30_000,
    })
    const out = result.stdout.toString()
    expect(result.exitCode).toBe(0)
    for (const command of commands) expect(out).toContain(command.name)
    expect(out).not.toContain('listening')
    expect(() => readFileSync(join(dir, 'never-created.db'))).toThrow()
  })

  it("prints a subcommand's options with `<command> --help`", async () => {
    const result = await cli(['keys', 'create', '--help'])
    expect(result.code).toBe(0)
    expect(result.out).toContain('--account NAME')
    expect(result.out).toContain('--deployments 1,2')
  })

  it('exits 2 naming the problem for an unknown command or option', async () => {
    const unknown = await cli(['frobnicate'])
    expect(unknown.code).toBe(2)
    expect(unknown.err).toContain('Unknown command "frobnicate"')
    const badOption = await cli(['migrate', '--frob'])
    expect(badOption.code).toBe(2)
    expect(badOption.err).toContain("'--frob'")
    const half = await cli(['keys'])
    expect(half.code).toBe(2)
    expect(half.err).toContain('keys create')
  })
})

describe('service keys create', () => {
  it('prints a new admin key once, stores only its hash, and the key authenticates', async () => {
    const database = await bootstrappedDatabase()
    const result = await cli(['keys', 'create', '--account', 'acme', '--admin', '--name', 'ops-laptop'], database.env)
    expect(result.code).toBe(0)
    const key = /\b(ak_[A-Za-z0-9_-]{20,})(?![A-Za-z0-9_-])/.exec(result.out)?.[1]
    expect(key).toBeDefined()

    const storage = await database.open()
    const { apiKeys } = storage.tables
    const [row] = await storage.db.select().from(apiKeys).where(eq(apiKeys.name, 'ops-laptop'))
    expect(row).toMatchObject({ keyHash: hashSecret(key!), admin: true, deploymentScope: null })
    // Nowhere in the file either (a Postgres server's files are its own).
    if (database.dialect === 'sqlite')
      expect(readFileSync(database.env.DB_PATH).includes(Buffer.from(key!))).toBe(false)

    const test = createTestApp({ storage, bootstrap: { accounts: [] } })
    try {
      const response = await test.request('POST', '/api/v1/embed/generate-session', {
        headers: { authorization: `Api-Key ${key}` },
        body: { deploymentId: 1, externalId: 'someone' },
      })
      expect(response.status).toBe(200)
    } finally {
      await test.close()
    }
  })

  it('scopes a key to the given deployments', async () => {
    const database = await bootstrappedDatabase()
    const result = await cli(['keys', 'create', '--account', 'acme', '--deployments', '2'], database.env)
    expect(result.code).toBe(0)
    const key = /\b(ak_[A-Za-z0-9_-]{20,})(?![A-Za-z0-9_-])/.exec(result.out)![1]
    const test = createTestApp({ storage: await database.open(), bootstrap: { accounts: [] } })
    try {
      const outside = await test.request('GET', '/api/v1/deployments/1/meta', {
        headers: { authorization: `Api-Key ${key}` },
      })
      expect(outside.status).toBe(403)
      const inside = await test.request('GET', '/api/v1/deployments/2/meta', {
        headers: { authorization: `Api-Key ${key}` },
      })
      expect(inside.status).toBe(200)
    } finally {
      await test.close()
    }
  })

  it('names keys created without --name apart, also two in the same second', async () => {
    const { env } = await bootstrappedDatabase()
    const made = await Promise.all([0, 1, 2].map(() => cli(['keys', 'create', '--account', 'acme'], env)))
    expect(made.map((result) => [result.code, result.err])).toEqual([0, 1, 2].map(() => [0, '']))
    const names = made.map((result) => /API key "(cli-\d{8}-\d{6}-[\w-]{6})"/.exec(result.out)?.[1])
    expect(new Set(names).size).toBe(3)
  })

  it('exits 1 for an unknown account, a taken name or a deployment of another account', async () => {
    const { env } = await bootstrappedDatabase()
    const unknown = await cli(['keys', 'create', '--account', 'nobody'], env)
    expect(unknown.code).toBe(1)
    expect(unknown.err).toContain('No account named "nobody" (accounts: acme')
    const taken = await cli(['keys', 'create', '--account', 'acme', '--name', 'admin'], env)
    expect(taken.code).toBe(1)
    expect(taken.err).toContain('already has a key named "admin"')
    const foreign = await cli(['keys', 'create', '--account', 'acme', '--deployments', '1,3'], env)
    expect(foreign.code).toBe(1)
    expect(foreign.err).toContain('Deployment(s) 3 do not belong to account acme')
    const missing = await cli(['keys', 'create'], env)
    expect(missing.code).toBe(2)
    expect(missing.err).toContain('--account is required')
  })
})

describe('service migrate', () => {
  it('applies the migrations once and reports the database up to date after that', async () => {
    const path = join(dir, 'migrate.db')
    const first = await cli(['migrate'], { DB_PATH: path })
    expect(first.code).toBe(0)
    expect(first.out).toContain('applied 0001_foundation')
    const second = await cli(['migrate', '--db', path])
    expect(second.out).toContain('up to date')
  })

  it.skipIf(!postgresAvailable)(
    'migrates the Postgres database of DATABASE_URL, naming it without its password',
    async () => {
      const database = await throwawayPostgresDatabase()
      try {
        const url = new URL(database.url)
        url.password = 'not-shown'
        const env = { DATABASE_URL: url.toString(), DB_PATH: join(dir, 'never-used.db') }
        const first = await cli(['migrate'], env)
        expect(first.code).toBe(0)
        expect(first.out).toContain(`applied ${postgresMigrations.map((migration) => migration.tag).join(', ')}`)
        expect(first.out).not.toContain('not-shown')
        expect((await cli(['migrate'], env)).out).toContain('up to date')
        expect(() => readFileSync(join(dir, 'never-used.db'))).toThrow()
      } finally {
        await database.drop()
      }
    },
  )
})

describe('a database file, demo data file, host or port that cannot be used', () => {
  const notADatabase = join(dir, 'not-a-database.db')
  const folder = join(dir, 'a-folder')
  writeFileSync(notADatabase, 'plain text')
  mkdirSync(folder, { recursive: true })
  /** One line naming the setting and the path: no stack trace. */
  const oneLine = (result: { code: number | void; err: string }, text: string) => {
    expect(result.code).toBe(1)
    expect(result.err.trim().split('\n')).toEqual([expect.stringContaining(text)])
  }

  it('migrate and keys create exit 1 with one line naming --db or DB_PATH and the path', async () => {
    oneLine(await cli(['migrate', '--db', notADatabase]), `--db ${notADatabase}: file is not a database`)
    oneLine(await cli(['migrate'], { DB_PATH: folder }), `DB_PATH ${folder}: unable to open database file`)
    oneLine(
      await cli(['keys', 'create', '--account', 'acme', '--db', folder]),
      `--db ${folder}: unable to open database file`,
    )
  })

  it('the server stops with one line naming DB_PATH, DEMO_DATA_PATH or HOST', async () => {
    const env = { HOST: '127.0.0.1', PORT: String(await freePort()), LOG_LEVEL: 'error' }
    oneLine(await cli(['serve'], { ...env, DB_PATH: notADatabase }), `DB_PATH ${notADatabase}: file is not a database`)
    oneLine(
      await cli(['serve'], {
        ...env,
        DB_PATH: join(dir, 'demo-path.db'),
        DEMO_DATA_PATH: join(notADatabase, 'demo.db'),
      }),
      'DEMO_DATA_PATH',
    )
    oneLine(await cli(['serve'], { ...env, HOST: 'not_a_host', DB_PATH: join(dir, 'host.db') }), 'set HOST to')
  })

  it('refuses a taken port before it stores anything, so the demo key is not printed by a start that fails', async () => {
    const holder = Bun.serve({ hostname: '127.0.0.1', port: 0, reusePort: false, fetch: () => new Response('') })
    try {
      const path = join(dir, 'never-seeded.db')
      const result = await cli(['serve'], { HOST: '127.0.0.1', PORT: String(holder.port), DB_PATH: path })
      oneLine(result, `Port ${holder.port} on 127.0.0.1 is already in use`)
      expect(result.out).not.toContain('Demo admin API key')
      expect(() => readFileSync(path)).toThrow()
    } finally {
      holder.stop(true)
    }
  })
})

describe('service migrate and keys create with an unreachable DATABASE_URL', () => {
  it('exit 1 with one line naming the database without its password', async () => {
    const port = await freePort()
    const env = { DATABASE_URL: `postgres://svc:hunter2@127.0.0.1:${port}/state` }
    for (const argv of [['migrate'], ['keys', 'create', '--account', 'acme']]) {
      const result = await cli(argv, env)
      expect(result.code).toBe(1)
      expect(result.err).toStartWith(`Cannot use the Postgres database postgres://svc@127.0.0.1:${port}/state`)
      expect(result.err).not.toContain('hunter2')
      expect(result.err.trim().split('\n')).toHaveLength(1)
    }
  })
})

describe.skipIf(!postgresAvailable)('service keys create on Postgres', () => {
  it('stores the new key in the database of DATABASE_URL, as a hash', async () => {
    const database = await throwawayPostgresDatabase()
    try {
      const storage = await openPostgresStorage(database.url, { poolSize: 1 })
      await applyBootstrap(storage, testBootstrap(), 'test')
      const result = await cli(['keys', 'create', '--account', 'acme', '--admin', '--name', 'ops'], {
        DATABASE_URL: database.url,
      })
      expect(result.code).toBe(0)
      const key = /\b(ak_[A-Za-z0-9_-]{20,})(?![A-Za-z0-9_-])/.exec(result.out)![1]
      const { apiKeys } = storage.tables
      const [row] = await storage.db.select().from(apiKeys).where(eq(apiKeys.name, 'ops'))
      expect(row).toMatchObject({ keyHash: hashSecret(key), admin: true, deploymentScope: null })
      const taken = await cli(['keys', 'create', '--account', 'acme', '--name', 'ops'], { DATABASE_URL: database.url })
      expect(taken.code).toBe(1)
      expect(taken.err).toContain('already has a key named "ops"')
      await storage.close()
    } finally {
      await database.drop()
    }
  })
})

describe('service check-config', () => {
  it('exits 1 naming the bad variable', async () => {
    const result = await cli(['check-config'], { PORT: 'eighty', CORS_ORIGINS: 'https://ok.example, not-an-origin' })
    expect(result.code).toBe(1)
    expect(result.err).toContain('PORT: expected an integer')
    expect(result.err).toContain('CORS_ORIGINS: "not-an-origin"')
  })

  it('names the Postgres database of DATABASE_URL without its password, and refuses a URL of another kind', async () => {
    const result = await cli(['check-config'], { DATABASE_URL: 'postgres://service:hunter2@db.internal:5432/state' })
    expect(result.code).toBe(0)
    expect(result.out).toContain('database postgres://service@db.internal:5432/state')
    expect(result.out).not.toContain('hunter2')
    const wrong = await cli(['check-config'], { DATABASE_URL: 'mysql://service:hunter2@db.internal/state' })
    expect(wrong.code).toBe(1)
    expect(wrong.err).toContain('DATABASE_URL: expected a postgres:// or postgresql:// URL')
    expect(wrong.err).not.toContain('hunter2')
  })

  it('exits 1 naming the bad path of the bootstrap file', async () => {
    const file = join(dir, 'bad-bootstrap.yaml')
    writeFileSync(
      file,
      'accounts:\n  - name: acme\n    plan: enterprise\n    apiKeys:\n      - name: short\n        key: tooshort\n',
    )
    const result = await cli(['check-config', '--bootstrap', file])
    expect(result.code).toBe(1)
    expect(result.err).toContain('accounts[0].apiKeys[0].key')
  })

  it('exits 1 naming the file, line and member of a broken model folder the bootstrap file names', async () => {
    const models = join(dir, 'shop-model')
    mkdirSync(models, { recursive: true })
    writeFileSync(
      join(models, 'orders.yml'),
      'cubes:\n  - name: orders\n    sql_table: orders\n    measures:\n      - name: count\n        type: total\n',
    )
    const file = join(dir, 'model-bootstrap.json')
    const bootstrap = testBootstrap()
    bootstrap.accounts[0].deployments![0].model = models
    writeFileSync(file, JSON.stringify(bootstrap))
    const result = await cli(['check-config', '--bootstrap', file])
    expect(result.code).toBe(1)
    expect(result.err).toContain('orders.yml:6: orders.count: type: expected one of')
    writeFileSync(
      join(models, 'orders.yml'),
      'cubes:\n  - name: orders\n    sql_table: orders\n    measures:\n      - name: count\n        type: count\n',
    )
    const fixed = await cli(['check-config', '--bootstrap', file])
    expect(fixed.code).toBe(0)
    expect(fixed.out).toContain(`model ${models}: ok (main, dev)`)
  })

  it('names every problem in one run: a bad variable, a data source, and each broken model folder', async () => {
    const broken = (name: string) => {
      const folder = join(dir, name)
      mkdirSync(folder, { recursive: true })
      writeFileSync(
        join(folder, 'orders.yml'),
        'cubes:\n  - name: orders\n    sql_table: orders\n    measures:\n      - name: count\n        type: total\n',
      )
      return folder
    }
    const file = join(dir, 'many-problems.json')
    const bootstrap = testBootstrap()
    const [first, second] = bootstrap.accounts[0].deployments!
    first.model = broken('first-broken-model')
    second.model = broken('second-broken-model')
    first.dataSource = { type: 'postgres', url: '${NOPE_URL}' } as typeof first.dataSource
    writeFileSync(file, JSON.stringify(bootstrap))
    const result = await cli(['check-config', '--bootstrap', file], { PORT: 'eighty' })
    expect(result.code).toBe(1)
    expect(result.err).toContain('PORT: expected an integer')
    expect(result.err).toContain('accounts[0].deployments[0].dataSource.url: environment variable NOPE_URL is not set')
    expect(result.err).toContain('first-broken-model/orders.yml:6: orders.count: type: expected one of')
    expect(result.err).toContain('second-broken-model/orders.yml:6: orders.count: type: expected one of')
    expect(result.out).toBe('')
    // A file that breaks its schema still has its data sources and model folders checked, in the same run.
    ;(bootstrap.accounts[0] as { plan: string }).plan = 'gold'
    second.model = join(dir, 'no-such-model')
    writeFileSync(file, JSON.stringify(bootstrap))
    const schema = await cli(['check-config', '--bootstrap', file])
    expect(schema.code).toBe(1)
    expect(schema.err).toContain('accounts[0].plan: expected one of')
    expect(schema.err).toContain('first-broken-model/orders.yml:6: orders.count: type: expected one of')
    expect(schema.err).toContain('no-such-model')
    expect(schema.err).toContain('accounts[0].deployments[0].dataSource.url: environment variable NOPE_URL is not set')
  })

  /** The test bootstrap with data sources on deployments 1 and 2 of its first account, written to `name`. */
  function dataSourceBootstrap(name: string, first: object, second: object = { type: 'sqlite', path: './shop.db' }) {
    const file = join(dir, name)
    const bootstrap = testBootstrap()
    const deployments = bootstrap.accounts[0].deployments!
    deployments[0].dataSource = first as (typeof deployments)[0]['dataSource']
    deployments[1].dataSource = second as (typeof deployments)[0]['dataSource']
    writeFileSync(file, JSON.stringify(bootstrap))
    return file
  }

  it("exits 1 naming each data source the start would refuse: an unset variable, another kind's URL, no url or path", async () => {
    const unset = dataSourceBootstrap('unset-source.json', { type: 'postgres', url: '${NOPE_URL}' })
    const missing = await cli(['check-config', '--bootstrap', unset])
    expect(missing.code).toBe(1)
    expect(missing.err).toContain('accounts[0].deployments[0].dataSource.url: environment variable NOPE_URL is not set')
    expect(missing.out).not.toContain('data source of deployment')

    const wrongKind = dataSourceBootstrap(
      'wrong-scheme.json',
      { type: 'postgres', url: 'mysql://shop:hunter2@db.internal/shop' },
      { type: 'duckdb' },
    )
    const wrong = await cli(['check-config', '--bootstrap', wrongKind])
    expect(wrong.code).toBe(1)
    expect(wrong.err).toContain('accounts[0].deployments[0].dataSource.url: expected a postgres:// URL')
    expect(wrong.err).toContain('accounts[0].deployments[1].dataSource.path: required for a duckdb source')
    expect(wrong.err).not.toContain('hunter2')

    const noUrl = dataSourceBootstrap('no-url.json', { type: 'mysql' }, { type: 'sqlite', url: 'sqlite://x' })
    const neither = await cli(['check-config', '--bootstrap', noUrl])
    expect(neither.code).toBe(1)
    expect(neither.err).toContain('accounts[0].deployments[0].dataSource.url: required for a mysql source')
    expect(neither.err).toContain(
      'accounts[0].deployments[1].dataSource.url: a sqlite source takes a path to its database file, not a url',
    )
  })

  it('accepts data sources the start would accept, without connecting to them or printing their URLs', async () => {
    // Nothing listens on port 1: a check that connected would fail or hang.
    const file = dataSourceBootstrap('good-source.json', { type: 'postgres', url: '${SHOP_URL}' })
    const result = await cli(['check-config', '--bootstrap', file], {
      SHOP_URL: 'postgres://shop:hunter2@127.0.0.1:1/shop',
    })
    expect(result.err).toBe('')
    expect(result.code).toBe(0)
    expect(result.out).toContain('data source of deployment 1: ok (postgres, not connected)')
    expect(result.out).toContain('data source of deployment 2: ok (sqlite, not connected)')
    expect(result.out).not.toContain('hunter2')
  })

  it('exits 1 naming a data source URL the driver refuses (sslmode=bogus), without its password', async () => {
    const file = dataSourceBootstrap(
      'bogus-sslmode.json',
      { type: 'postgres', url: 'postgres://shop:hunter2@127.0.0.1:1/shop?sslmode=bogus' },
      { type: 'mysql', url: 'mysql://shop:hunter2@127.0.0.1:1/shop?sslmode=bogus' },
    )
    const result = await cli(['check-config', '--bootstrap', file])
    expect(result.code).toBe(1)
    for (const index of [0, 1])
      expect(result.err).toContain(`accounts[0].deployments[${index}].dataSource.url: The argument 'sslmode' must be`)
    expect(result.out).not.toContain('data source of deployment 1: ok')
    expect(result.err + result.out).not.toContain('hunter2')
  })

  // It starts the server from source, which outlasts bun's 5 s test limit on a busy machine.
  it('refuses a data source with the very lines the start refuses it with', async () => {
    const file = dataSourceBootstrap('start-refuses.json', { type: 'postgres', url: '${NOPE_URL}' }, { type: 'mysql' })
    const env = { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', DB_PATH: join(dir, 'refused.db') }
    const start = spawnSync([process.execPath, 'run', join(root, 'src', 'main.ts'), '--bootstrap', file], {
      cwd: dir,
      env,
      timeout: 30_000,
    })
    expect(start.exitCode).toBe(1)
    const problems = (text: string) => text.split('\n').filter((line) => line.includes('].dataSource.'))
    const refused = problems(start.stderr.toString() + start.stdout.toString())
    expect(refused).toHaveLength(2)
    const checked = await cli(['check-config', '--bootstrap', file], env)
    expect(checked.code).toBe(1)
    expect(problems(checked.err)).toEqual(refused)
  }, 30_000)

  it('exits 0 for a valid environment and bootstrap file', async () => {
    const file = join(dir, 'good-bootstrap.json')
    writeFileSync(file, JSON.stringify(testBootstrap()))
    const result = await cli(['check-config'], { BOOTSTRAP_FILE: file, PORT: '8080' })
    expect(result.code).toBe(0)
    expect(result.out).toContain('ok (3 account(s)')
  })
})
