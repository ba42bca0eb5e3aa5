import { afterEach, describe, expect, it } from 'bun:test'
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runCli } from '../../../src/cli'

const folders: string[] = []
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true })
})

/** Runs the CLI in process with `env` as its whole environment; returns the exit code and what it printed. */
async function cli(argv: string[], env: Record<string, string>) {
  let out = ''
  let err = ''
  const code = await runCli(argv, { out: (text) => (out += text), err: (text) => (err += text), env })
  return { code, out, err }
}

describe('service keys create without a database', () => {
  it('exits 1 naming DB_PATH and creates neither the file nor its folder', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'keys-create-'))
    folders.push(folder)
    const path = join(folder, 'data', 'service.db')
    const result = await cli(['keys', 'create', '--account', 'demo'], { DB_PATH: path })
    expect(result.code).toBe(1)
    expect(result.err).toContain(`No database at ${path} (DB_PATH)`)
    expect(readdirSync(folder)).toEqual([])
  })

  it('leaves no ./data/service.db behind where DB_PATH is not set', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'keys-create-'))
    folders.push(folder)
    const before = process.cwd()
    process.chdir(folder)
    try {
      const result = await cli(['keys', 'create', '--account', 'demo', '--admin'], {})
      expect(result.code).toBe(1)
      expect(result.err).toContain('No database at ./data/service.db (DB_PATH, the default)')
    } finally {
      process.chdir(before)
    }
    expect(existsSync(join(folder, 'data'))).toBe(false)
  })

  it('names --db when that is the missing file', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'keys-create-'))
    folders.push(folder)
    const path = join(folder, 'other.db')
    const result = await cli(['keys', 'create', '--account', 'demo', '--db', path], {})
    expect(result.code).toBe(1)
    expect(result.err).toContain(`No database at ${path} (--db)`)
    expect(existsSync(path)).toBe(false)
  })
})
