import { describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { applyBootstrap } from '../../db/bootstrap/apply'
import { BootstrapError, loadBootstrapFile, validateBootstrap } from '../../db/bootstrap/load'
import { openStorage, type Storage } from '../../db/client'
import { hashSecret } from '../../lib/secrets'
import { testBootstrap } from '../helpers/fixtures'

const TABLES = [
  'accounts',
  'api_keys',
  'deployments',
  'deployment_branches',
  'agents',
  'users',
  'groups',
  'user_attribute_definitions',
  'embed_tenants',
]

function snapshot(storage: Storage): Record<string, unknown[]> {
  return Object.fromEntries(
    TABLES.map((table) => [table, storage.sqlite.query(`SELECT * FROM ${table} ORDER BY 1, 2`).all()]),
  )
}

function withTempDir<T>(work: (dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'bootstrap-test-'))
  try {
    return work(dir)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

describe('applyBootstrap', () => {
  it('yields the same rows when the same file is applied twice', () => {
    const storage = openStorage(':memory:')
    applyBootstrap(storage, testBootstrap(), 'test', 1000)
    const first = snapshot(storage)
    applyBootstrap(storage, testBootstrap(), 'test', 2000)
    expect(snapshot(storage)).toEqual(first)
    expect((first.accounts as unknown[]).length).toBe(3)
    expect((first.api_keys as unknown[]).length).toBe(6)
    storage.close()
  })

  it('stores API keys only as hashes', () => {
    const storage = openStorage(':memory:')
    applyBootstrap(storage, testBootstrap(), 'test')
    const dump = JSON.stringify(storage.sqlite.query('SELECT * FROM api_keys').all())
    for (const key of testBootstrap().accounts.flatMap((account) => account.apiKeys ?? [])) {
      expect(dump).not.toContain(key.key)
      expect(dump).toContain(hashSecret(key.key))
    }
    storage.close()
  })

  it('updates what the file changes and keeps what it no longer names', () => {
    const storage = openStorage(':memory:')
    applyBootstrap(storage, testBootstrap(), 'test')
    const changed = testBootstrap()
    changed.accounts[0].plan = 'premium'
    changed.accounts[0].groups = [{ name: 'sales', description: 'Renamed team' }]
    applyBootstrap(storage, changed, 'test')
    expect(storage.sqlite.query("SELECT plan FROM accounts WHERE name = 'acme'").get()).toEqual({ plan: 'premium' })
    const groups = storage.sqlite.query('SELECT name, description FROM groups WHERE account_id = 1 ORDER BY name').all()
    expect(groups).toEqual([
      { name: 'marketing', description: null },
      { name: 'ops', description: null },
      { name: 'sales', description: 'Renamed team' },
    ])
    storage.close()
  })

  it('changes nothing when a later entry fails inside the transaction', () => {
    const storage = openStorage(':memory:')
    applyBootstrap(storage, testBootstrap(), 'test')
    const before = snapshot(storage)
    const broken = testBootstrap()
    broken.accounts[0].plan = 'starter'
    broken.accounts[2].deployments = [{ id: 1, name: 'Stolen deployment' }]
    expect(() => applyBootstrap(storage, broken, 'test')).toThrow(
      'accounts[2].deployments[0].id: deployment 1 already belongs to another account',
    )
    expect(snapshot(storage)).toEqual(before)
    storage.close()
  })

  it('refuses to change the type of an existing attribute, naming it', () => {
    const storage = openStorage(':memory:')
    applyBootstrap(storage, testBootstrap(), 'test')
    const changed = testBootstrap()
    changed.accounts[0].userAttributes![0].type = 'number'
    expect(() => applyBootstrap(storage, changed, 'test')).toThrow(
      'accounts[0].userAttributes[0].type: cannot change type of region',
    )
    storage.close()
  })
})

describe('loadBootstrapFile', () => {
  it('reads the YAML example of the contract', () => {
    withTempDir((dir) => {
      const path = join(dir, 'bootstrap.yaml')
      writeFileSync(
        path,
        `accounts:
  - name: acme
    plan: enterprise
    settings:
      showDashboardChat: true
    apiKeys:
      - name: backend
        key: ak_test_0123456789abcdef
        admin: true
        deployments: [1]
    users:
      - username: alice@acme.com
    groups:
      - name: sales
        description: Sales team
    userAttributes:
      - name: region
        type: string
    embedTenants:
      - name: tenant-one
        useCreatorMode: true
    deployments:
      - id: 1
        name: Sales analytics
        branches: [main, dev]
        model: demo
        tokenAuth:
          enabled: false
          secret: change-me
        agents:
          - id: 1
            name: Analyst
`,
      )
      const file = loadBootstrapFile(path)
      expect(file.accounts[0].apiKeys![0].deployments).toEqual([1])
      expect(file.accounts[0].deployments![0].branches).toEqual(['main', 'dev'])
    })
  })

  it('reads JSON files', () => {
    withTempDir((dir) => {
      const path = join(dir, 'bootstrap.json')
      writeFileSync(path, JSON.stringify({ accounts: [{ name: 'acme', plan: 'free' }] }))
      expect(loadBootstrapFile(path).accounts[0].plan).toBe('free')
    })
  })

  it('names the bad path of an invalid file', () => {
    const bad = testBootstrap() as unknown as { accounts: Array<{ apiKeys: Array<{ key: string }> }> }
    bad.accounts[0].apiKeys[1].key = 'short'
    expect(() => validateBootstrap(bad, 'file.yaml')).toThrow(/accounts\[0\]\.apiKeys\[1\]\.key: /)
  })

  it('lists the allowed values of an enum', () => {
    const bad = { accounts: [{ name: 'acme', plan: 'gold' }] }
    expect(() => validateBootstrap(bad, 'file.yaml')).toThrow(
      'accounts[0].plan: expected one of free, starter, premium, enterprise',
    )
  })

  it('rejects unknown fields, duplicate ids and keys scoped to foreign deployments', () => {
    const errors = (document: unknown) => {
      try {
        validateBootstrap(document, 'file.yaml')
        return []
      } catch (error) {
        return (error as BootstrapError).problems
      }
    }
    expect(errors({ accounts: [{ name: 'acme', plan: 'free', colour: 'red' }] })).toEqual([
      'accounts[0].colour: unknown field',
    ])
    const duplicated = testBootstrap()
    duplicated.accounts[2].deployments![0].id = 2
    expect(errors(duplicated)).toContain(
      'accounts[2].deployments[0].id: duplicate deployment id 2 (also at accounts[0].deployments[1].id)',
    )
    const foreign = testBootstrap()
    foreign.accounts[0].apiKeys![0].deployments = [3]
    expect(errors(foreign)).toEqual([
      'accounts[0].apiKeys[0].deployments: deployment 3 is not a deployment of account acme',
    ])
  })

  it('reports a file that does not parse', () => {
    withTempDir((dir) => {
      const path = join(dir, 'bootstrap.yaml')
      writeFileSync(path, 'accounts: [\n  - name: acme\n')
      expect(() => loadBootstrapFile(path)).toThrow(/cannot parse/)
    })
  })
})
