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

/**
 * A check of which backend or source dialect the code runs on: `dialect === 'sqlite'`, `dialect !== ...`,
 * `dialect.name === 'mysql'`, `storage.dialect.name`. What differs by backend is the storage's to choose (its
 * repositories, its text rules) and what differs by source is a capability the source's dialect names.
 */
const DIALECT_CHECK = /\bdialect\s*[!=]==|\bdialect\.name\b/

/**
 * `file:line` for each dialect check in the files under `folders`, but for those under `allowed`: `db/` (the storage
 * itself) and the data sources' folder, whose dialects are the customer's databases.
 */
function dialectChecks(root: string, folders: string[], allowed: string[]): string[] {
  return folders.flatMap((folder) =>
    sourceFiles(join(root, folder))
      .filter((file) => !allowed.some((permitted) => inside(file, join(root, permitted))))
      .flatMap((file) =>
        readFileSync(file, 'utf8')
          .split('\n')
          .flatMap((line, index) => (DIALECT_CHECK.test(line) ? [`${relative(root, file)}:${index + 1}`] : [])),
      ),
  )
}

const DIALECTS_ALLOWED = ['db', join('plugins', 'semantic', 'sources')]

/**
 * What one storage backend alone has (SQLite's connection, lock and group commit; Postgres's pool) and each backend's
 * repository modules: the storage picks them when it opens, so nothing above `db/` names one.
 */
const REPOSITORY_AREAS = readdirSync(join(ROOT, 'db', 'repositories'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => join('db', 'repositories', entry.name))
const BACKEND_MODULES = [
  join('db', 'sqlite'),
  join('db', 'postgres'),
  ...[join('db', 'repositories'), ...REPOSITORY_AREAS].flatMap((folder) =>
    ['sqlite', 'postgres'].map((backend) => join(folder, backend)),
  ),
]

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

  it('keeps plugins and lib/ from importing a storage backend: only db/ and the composition root choose one', () => {
    expect(BACKEND_MODULES.flatMap((backend) => importsInto(ROOT, ['plugins', 'lib'], backend))).toEqual([])
  })

  it('keeps checks of a dialect inside db/ and the data sources', () => {
    expect(dialectChecks(ROOT, ['plugins', 'src', 'lib', 'client'], DIALECTS_ALLOWED)).toEqual([])
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

    it('reports checks of a dialect outside db/ and the data sources, and none inside them', () => {
      mkdirSync(join(fixture, 'plugins/management'), { recursive: true })
      mkdirSync(join(fixture, 'plugins/semantic/sources'), { recursive: true })
      mkdirSync(join(fixture, 'db'), { recursive: true })
      writeFileSync(
        join(fixture, 'plugins/management/search.ts'),
        [
          "const lower = storage.dialect === 'sqlite' ? 'unicode_lower' : 'lower'",
          'const aliases = this.dialect.name',
          "if (dialect!=='postgres') return",
          'const text = storage.text.contains(column, search)',
          "const dialects = ['sqlite']",
        ].join('\n'),
      )
      writeFileSync(join(fixture, 'plugins/semantic/sources/mysql.ts'), "if (dialect.name === 'mysql') quote()\n")
      writeFileSync(join(fixture, 'db/storage.ts'), "return storage.dialect === 'sqlite'\n")

      expect(dialectChecks(fixture, ['plugins', 'db'], DIALECTS_ALLOWED)).toEqual([
        `${join('plugins', 'management', 'search.ts')}:1`,
        `${join('plugins', 'management', 'search.ts')}:2`,
        `${join('plugins', 'management', 'search.ts')}:3`,
      ])
    })

    it('reports an import of a plugin from db/', () => {
      mkdirSync(join(fixture, 'db/repositories'), { recursive: true })
      mkdirSync(join(fixture, 'plugins/chat'), { recursive: true })
      writeFileSync(join(fixture, 'plugins/chat/model.ts'), 'export type ThreadMessage = {}\n')
      writeFileSync(
        join(fixture, 'db/repositories/threads.ts'),
        "import type { ThreadMessage } from '../../plugins/chat/model'\nimport { first } from '../query-builder'\n",
      )
      expect(importsInto(fixture, ['db'], 'plugins')).toEqual([
        `${join('db', 'repositories', 'threads.ts')} -> ../../plugins/chat/model`,
      ])
    })
  })
})
