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

/** The file a relative specifier names (`./x` is `x.ts`, `x.tsx` or `x/index.ts`), if it is one of `files`. */
function resolveImport(files: Set<string>, file: string, specifier: string): string | undefined {
  const base = resolve(dirname(file), specifier)
  return [base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts')].find((candidate) => files.has(candidate))
}

/** Groups of files that import each other in a ring (type-only imports count), found as strongly connected parts. */
function importCycles(root: string, folders: string[]): string[][] {
  const files = new Set(folders.flatMap((folder) => sourceFiles(join(root, folder))))
  const edges = new Map<string, string[]>()
  for (const file of files)
    edges.set(
      file,
      specifiers(readFileSync(file, 'utf8'))
        .filter((specifier) => specifier.startsWith('.'))
        .flatMap((specifier) => resolveImport(files, file, specifier) ?? []),
    )
  // Tarjan's algorithm, iterative over the files in order.
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const cycles: string[][] = []
  const visit = (file: string) => {
    index.set(file, index.size)
    low.set(file, index.get(file)!)
    stack.push(file)
    onStack.add(file)
    for (const next of edges.get(file)!) {
      if (!index.has(next)) {
        visit(next)
        low.set(file, Math.min(low.get(file)!, low.get(next)!))
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file)!, index.get(next)!))
    }
    if (low.get(file) !== index.get(file)) return
    const part: string[] = []
    let member: string
    do {
      member = stack.pop()!
      onStack.delete(member)
      part.push(relative(root, member))
    } while (member !== file)
    if (part.length > 1) cycles.push(part.sort())
  }
  for (const file of files) if (!index.has(file)) visit(file)
  return cycles
}

describe('import direction', () => {
  it('has no import cycle between modules, type-only imports included', () => {
    expect(importCycles(ROOT, ['plugins', 'lib', 'db', 'src', 'client'])).toEqual([])
  })

  it('keeps plugins, lib, db and the client from importing the composition root in src/', () => {
    expect(importsInto(ROOT, ['plugins', 'lib', 'db', 'client'], 'src')).toEqual([])
  })

  it('keeps lib/ from importing any plugin', () => {
    expect(importsInto(ROOT, ['lib'], 'plugins')).toEqual([])
  })

  it('keeps db/ from importing any plugin or src/: storage sits below the areas that use it', () => {
    expect(importsInto(ROOT, ['db'], 'plugins')).toEqual([])
    expect(importsInto(ROOT, ['db'], 'src')).toEqual([])
  })

  describe('the scan itself', () => {
    const fixture = mkdtempSync(join(tmpdir(), 'import-direction-'))
    afterAll(() => rmSync(fixture, { recursive: true, force: true }))

    it('reports a ring of imports made only of type imports', () => {
      mkdirSync(join(fixture, 'ring'))
      writeFileSync(join(fixture, 'ring/a.ts'), "import type { B } from './b'\nexport interface A { b?: B }\n")
      writeFileSync(join(fixture, 'ring/b.ts'), "import type { A } from './a'\nexport interface B { a?: A }\n")
      writeFileSync(join(fixture, 'ring/c.ts'), "import type { A } from './a'\n")
      expect(importCycles(fixture, ['ring'])).toEqual([[join('ring', 'a.ts'), join('ring', 'b.ts')]])
    })

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
