import { afterEach, describe, expect, it } from 'bun:test'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BootstrapError } from '../../src/bootstrap/load'
import { loadConfig } from '../../lib/config'
import { createLogger } from '../../lib/logger'
import { prepareStorage } from '../../src/prepare-storage'
import { TEST_DEMO_DATA } from '../helpers/demo-data'

let folder: string | undefined
afterEach(() => {
  if (folder) rmSync(folder, { recursive: true, force: true })
  folder = undefined
})

const configFor = (dbPath: string, bootstrapFile: string | undefined) => ({
  ...loadConfig({ DEMO_API_KEY: 'ak_demo_key_for_tests_0123456789' }),
  dbPath,
  demoDataPath: TEST_DEMO_DATA,
  bootstrapFile,
})

describe('a bootstrap file naming a model folder that does not load', () => {
  it('stops the start with the path in the file, before anything of it is stored', async () => {
    folder = mkdtempSync(join(tmpdir(), 'bootstrap-models-'))
    const dbPath = join(folder, 'service.db')
    const accounts = async () => {
      const { storage } = await prepareStorage(configFor(dbPath, undefined), createLogger('silent'))
      try {
        return (await storage.db.select().from(storage.tables.accounts)).map((row) => row.name)
      } finally {
        await storage.close()
      }
    }
    expect(await accounts()).toEqual(['demo'])

    const file = join(folder, 'bootstrap.yaml')
    const missing = join(folder, 'no-such-model')
    const broken = join(folder, 'broken-model')
    mkdirSync(broken)
    writeFileSync(join(broken, 'orders.yml'), 'cubes:\n  - name: orders\n    sql_table: orders\n    measures: oops\n')
    writeFileSync(
      file,
      [
        'accounts:',
        '  - name: extra',
        '    plan: enterprise',
        '    deployments:',
        '      - { id: 50, name: Fine, model: demo }',
        `      - { id: 51, name: Missing, model: ${missing} }`,
        `      - { id: 52, name: Broken, model: ${broken} }`,
      ].join('\n'),
    )
    const refused = await prepareStorage(configFor(dbPath, file), createLogger('silent')).catch((error) => error)
    expect(refused).toBeInstanceOf(BootstrapError)
    expect(refused.problems).toHaveLength(2)
    expect(refused.problems[0]).toStartWith(`accounts[0].deployments[1].model: ${missing}:0: model folder not found`)
    expect(refused.problems[1]).toStartWith(`accounts[0].deployments[2].model: ${broken}/orders.yml:`)
    // Nothing of the file was stored: the database starts as before without it.
    expect(await accounts()).toEqual(['demo'])
  })
})
