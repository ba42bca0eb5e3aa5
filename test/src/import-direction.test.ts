import { afterAll, describe, expect, it } from 'bun:test'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve, sep } from 'node:path'

const ROOT = resolve(import.meta.dir, '../..')
const SOURCE = /\.(ts|tsx|js|mjs|cjs)$/

/**
 * Every module specifier in a file: static imports and re-exports (type-only ones too, which a transpiler would
 * drop), side-effect imports, dynamic `import()` and `require()`. Read from the text, so it needs no build.
 */
function specifiers(code: string): string[] {
  const found: string[] = []
  const pattern = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)(['"])([^'"\n]+)\1/g
  for (const match of code.matchAll(pattern)) found.push(match[2]!)
  return found
}

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && SOURCE.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name))
}

const inside = (path: string, folder: string) => path === folder || path.startsWith(folder + sep)

/** `file -> specifier` for each import of a file under one of `from` that lands inside `forbidden`. */
function importsInto(root: string, from: string[], forbidden: string): string[] {
  const target = join(root, forbidden)
  return from.flatMap((folder) =>
    sourceFiles(join(root, folder)).flatMap((file) =>
      specifiers(readFileSync(file, 'utf8'))
        .filter((specifier) => specifier.startsWith('.') && inside(resolve(dirname(file), specifier), target))
        .map((specifier) => `${relative(root, file)} -> ${specifier}`),
    ),
  )
}

describe('import direction', () => {
  it('keeps plugins, lib, db and the client from importing the composition root in src/', () => {
    expect(importsInto(ROOT, ['plugins', 'lib', 'db', 'client'], 'src')).toEqual([])
  })

  it('keeps lib/ from importing any plugin', () => {
    expect(importsInto(ROOT, ['lib'], 'plugins')).toEqual([])
  })

  describe('the scan itself', () => {
    const fixture = mkdtempSync(join(tmpdir(), 'import-direction-'))
    afterAll(() => rmSync(fixture, { recursive: true, force: true }))

    it('reports type-only, re-exported, side-effect, dynamic and required imports of src/', () => {
      mkdirSync(join(fixture, 'src'))
      mkdirSync(join(fixture, 'plugins/chat'), { recursive: true })
      writeFileSync(join(fixture, 'src/deps.ts'), 'export interface AppDeps {}\n')
      writeFileSync(
        join(fixture, 'plugins/chat/index.ts'),
        [
          "import type { AppDeps } from '../../src/deps'",
          "export { createApp } from '../../src/app'",
          "import '../../src/main'",
          "const later = () => import('../../src/server')",
          "const cli = require('../../src')",
          "import { helper } from './helper'",
          "import { Elysia } from 'elysia'",
          "import { sources } from '../../srcery/sources'",
        ].join('\n'),
      )

      expect(importsInto(fixture, ['plugins'], 'src')).toEqual([
        `${join('plugins', 'chat', 'index.ts')} -> ../../src/deps`,
        `${join('plugins', 'chat', 'index.ts')} -> ../../src/app`,
        `${join('plugins', 'chat', 'index.ts')} -> ../../src/main`,
        `${join('plugins', 'chat', 'index.ts')} -> ../../src/server`,
        `${join('plugins', 'chat', 'index.ts')} -> ../../src`,
      ])
    })
  })
})
