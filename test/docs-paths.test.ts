import { afterAll, describe, expect, it } from 'bun:test'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'

const ROOT = resolve(import.meta.dir, '..')
const AREAS = ['plugins', 'src', 'db', 'lib', 'test', 'bench', 'eval', 'harness', 'client', 'deploy', 'docs']
const LOOKS_LIKE_PATH = new RegExp(`^(?:${AREAS.join('|')})/`)
/** A pattern or a placeholder (`<area>`, `*.tsx`, `{id}`, `...`) names no one path: skipped. */
const PATTERN = /[<>*{}$\s]|\.\.\./

/** The Markdown files that name paths: the README and every chapter of `docs/`. */
function markdownFiles(root: string): string[] {
  const docs = existsSync(join(root, 'docs'))
    ? readdirSync(join(root, 'docs'))
        .filter((name) => name.endsWith('.md'))
        .map((name) => join('docs', name))
    : []
  return ['README.md', ...docs].filter((file) => existsSync(join(root, file)))
}

/**
 * The repository paths a Markdown text names: inline code spans that start with an area's folder, and the first word
 * of each line of a fenced block that does (the README's tree of folders). A `:line` suffix is dropped.
 */
function namedPaths(markdown: string): string[] {
  const fenced = /^```[^\n]*\n([\s\S]*?)^```/gm
  const found: string[] = []
  for (const [, block] of markdown.matchAll(fenced))
    for (const line of block!.split('\n')) {
      const first = line.trim().split(/\s+/)[0] ?? ''
      if (LOOKS_LIKE_PATH.test(first)) found.push(first)
    }
  for (const [, span] of markdown.replace(fenced, '').matchAll(/`([^`\n]+)`/g))
    if (LOOKS_LIKE_PATH.test(span!)) found.push(span!)
  return found.filter((path) => !PATTERN.test(path)).map((path) => path.replace(/:\d+(?::\d+)?$/, ''))
}

/**
 * The repository paths a Markdown file's relative links point to (`[Testing](docs/testing.md)`, `../eval/README.md`),
 * from the root and without their `#anchor`; links to other sites and to the service's own pages are left out.
 */
function linkedPaths(file: string, markdown: string): string[] {
  const prose = markdown.replace(/^```[^\n]*\n[\s\S]*?^```/gm, '').replace(/`[^`\n]+`/g, '')
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)]
    .map(([, target]) => target!.split('#')[0]!)
    .filter((target) => target !== '' && !/^[a-z]+:|^\//i.test(target))
    .map((target) => join(dirname(file), target))
}

/** Folders and files git ignores by their plain path (`bench/results/`): written when the project runs, so named. */
function ignoredPaths(root: string): string[] {
  const file = join(root, '.gitignore')
  if (!existsSync(file)) return []
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => line.trim().replace(/^\//, ''))
    .filter((line) => line !== '' && !line.startsWith('#') && !PATTERN.test(line) && !line.startsWith('!'))
}

/** `file: path` for each path the README or a chapter names or links to that is not in the tree under `root`. */
function missingPaths(root: string): string[] {
  const ignored = ignoredPaths(root)
  return markdownFiles(root).flatMap((file) => {
    const markdown = readFileSync(join(root, file), 'utf8')
    return [...namedPaths(markdown), ...linkedPaths(file, markdown)]
      .filter((path) => !existsSync(join(root, path)))
      .filter((path) => !ignored.some((prefix) => path === prefix || path.startsWith(prefix.replace(/\/?$/, '/'))))
      .map((path) => `${file}: ${path}`)
  })
}

describe('paths named in the README and docs/', () => {
  const planted = mkdtempSync(join(tmpdir(), 'docs-paths-'))
  afterAll(() => rmSync(planted, { recursive: true, force: true }))

  it('names only files and folders that exist', () => {
    expect(markdownFiles(ROOT).length).toBeGreaterThan(1)
    expect(missingPaths(ROOT)).toEqual([])
  })

  it('reports a planted wrong path, in a code span, a fenced tree or a relative link, and no right one', () => {
    mkdirSync(join(planted, 'docs'))
    mkdirSync(join(planted, 'plugins', 'auth'), { recursive: true })
    writeFileSync(join(planted, 'plugins', 'auth', 'deployment-authorization.ts'), '')
    writeFileSync(join(planted, '.gitignore'), 'bench/results/\n')
    writeFileSync(
      join(planted, 'README.md'),
      'See `plugins/auth/deployment-authorization.ts:12` and `plugins/auth/access.ts`, per `plugins/<area>/`.\n\n' +
        '```\nplugins/auth/          keys\nplugins/chats/         moved\n```\n',
    )
    writeFileSync(join(planted, 'docs', 'api.md'), '')
    writeFileSync(
      join(planted, 'docs', 'chat.md'),
      'Results land in `bench/results/`; code in `src/main.ts`. See [the API](api.md#top), [tests](testing.md), ' +
        '[the plugin](../plugins/auth/deployment-authorization.ts) and [the site](https://example.com/x.md).\n',
    )
    expect(missingPaths(planted)).toEqual([
      'README.md: plugins/chats/',
      'README.md: plugins/auth/access.ts',
      'docs/chat.md: src/main.ts',
      'docs/chat.md: docs/testing.md',
    ])
  })
})
