import { describe, expect, it } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { BootstrapError, loadBootstrapFile, validateBootstrap } from '../../../src/bootstrap/load'
import { testBootstrap } from '../../helpers/fixtures'
import { sqliteKind } from '../../helpers/storages'
import { applyBootstrapContract, withTempDir } from './bootstrap-contract'

// applyBootstrap on SQLite (on Postgres in test/e2e/src/bootstrap/bootstrap.test.ts), and the bootstrap file's own rules.

applyBootstrapContract([sqliteKind])

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
    // One secret in two accounts would be one key: named by path, the secret itself not repeated.
    const shared = testBootstrap()
    shared.accounts[2].apiKeys![0].key = shared.accounts[0].apiKeys![0].key
    expect(errors(shared)).toEqual(['accounts[2].apiKeys[0].key: duplicate key (also at accounts[0].apiKeys[0].key)'])
    const foreign = testBootstrap()
    foreign.accounts[0].apiKeys![0].deployments = [3]
    expect(errors(foreign)).toEqual([
      'accounts[0].apiKeys[0].deployments: deployment 3 is not a deployment of account acme',
    ])
  })

  it('names an attribute default that is not a value of its type', () => {
    const document = {
      accounts: [
        {
          name: 'acme',
          plan: 'enterprise',
          userAttributes: [
            { name: 'region', type: 'string', defaultValue: 'Europe' },
            { name: 'seats', type: 'number', defaultValue: 'many' },
            { name: 'codes', type: 'number_array', defaultValue: '[1, 2]' },
          ],
        },
      ],
    }
    expect(() => validateBootstrap(document, 'file.yaml')).toThrow(
      'accounts[0].userAttributes[1].defaultValue: "many" is not a default of type number: write a number such as 42 or 2.5',
    )
    document.accounts[0].userAttributes[1].defaultValue = '12'
    expect(validateBootstrap(document, 'file.yaml').accounts[0].userAttributes).toHaveLength(3)
  })

  it('reports a file that does not parse', () => {
    withTempDir((dir) => {
      const path = join(dir, 'bootstrap.yaml')
      writeFileSync(path, 'accounts: [\n  - name: acme\n')
      expect(() => loadBootstrapFile(path)).toThrow(/cannot parse/)
    })
  })
})
