import { Value } from '@sinclair/typebox/value'
import { LineCounter, parseDocument } from 'yaml'
import { describeValueError } from '../../../lib/schema-errors'
import { buildModel } from './model-builder'
import { ModelError, type ModelProblem } from '../errors'
import { ModelFile, type CubeFile, type ViewFile } from './model-file'
import type { SemanticModel, SourceRef } from './semantic-model'
import type { Located, ParsedFile, RawCube } from './raw-model'

/** One model file's text and the name errors should show for it. */
export interface ModelSource {
  file: string
  text: string
  /** The file already parsed and checked (a built-in model parsed when the binary was built). */
  parsed?: ParsedFile
}

type PathPart = string | number

function memberLabel(document: unknown, parts: PathPart[]): { member: string; rest: PathPart[] } {
  const root = document as Record<string, Array<Record<string, unknown>> | undefined>
  const [section, index, part, partIndex] = parts
  if ((section !== 'cubes' && section !== 'views') || typeof index !== 'number') return { member: '', rest: parts }
  const entry = root[section]?.[index]
  const owner = typeof entry?.name === 'string' ? entry.name : `${section}[${index}]`
  if (typeof part !== 'string' || typeof partIndex !== 'number') return { member: owner, rest: parts.slice(2) }
  const item = (entry?.[part] as Array<Record<string, unknown>> | undefined)?.[partIndex]
  const itemName = typeof item?.name === 'string' ? item.name : undefined
  if (part === 'measures' || part === 'dimensions')
    return { member: `${owner}.${itemName ?? `${part}[${partIndex}]`}`, rest: parts.slice(4) }
  if (part === 'joins') return { member: `${owner} join ${itemName ?? `[${partIndex}]`}`, rest: parts.slice(4) }
  return { member: `${owner} ${part}[${partIndex}]`, rest: parts.slice(4) }
}

function pointerParts(pointer: string): PathPart[] {
  return pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((part) => (/^\d+$/.test(part) ? Number(part) : part))
}

/** Top-level `x-...` keys hold YAML anchors shared by several cubes (as in docker-compose files); they are not model. */
function withoutExtensions(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value
  return Object.fromEntries(Object.entries(value).filter(([key]) => !key.startsWith('x-')))
}

/**
 * Files parsed without problems, by name and text: every branch of a deployment loads the same default files (the
 * demo model's two variants parse its main file twice at every start), and parsing is most of a model's load time.
 * Parsed files are only read afterwards, so one parse can serve every load of the same text.
 */
const parsedFiles = new Map<string, ParsedFile>()
const PARSED_FILES_KEPT = 64

/** Parses one file and checks it against the schema; every problem names file, line and member. */
export function parseModelFile(source: ModelSource, problems: ModelProblem[]): ParsedFile | undefined {
  if (source.parsed) return source.parsed
  const key = `${source.file}\n${source.text}`
  const known = parsedFiles.get(key)
  if (known) return known
  const parsed = parseAndCheck(source, problems)
  if (parsed) {
    if (parsedFiles.size >= PARSED_FILES_KEPT) parsedFiles.delete(parsedFiles.keys().next().value!)
    parsedFiles.set(key, parsed)
  }
  return parsed
}

function parseAndCheck(source: ModelSource, problems: ModelProblem[]): ParsedFile | undefined {
  const lineCounter = new LineCounter()
  // Merge keys (`<<: *shared`) are how YAML anchors are shared between cubes, as Cube's own loader reads them.
  const document = parseDocument(source.text, { lineCounter, prettyErrors: false, merge: true })
  if (document.errors.length > 0) {
    for (const error of document.errors.slice(0, 5))
      problems.push({
        file: source.file,
        line: error.linePos?.[0].line ?? 1,
        member: '',
        message: error.message.split('\n')[0],
      })
    return undefined
  }
  const value: unknown = withoutExtensions(document.toJS() ?? {})
  const lineOf = (parts: PathPart[]): number => {
    for (let length = parts.length; length >= 0; length--) {
      const node = document.getIn(parts.slice(0, length), true) as { range?: [number, number, number] } | undefined
      if (node?.range) return lineCounter.linePos(node.range[0]).line
    }
    return 1
  }
  if (!Value.Check(ModelFile, value)) {
    const seen = new Set<string>()
    for (const error of Value.Errors(ModelFile, value)) {
      const parts = pointerParts(error.path)
      if (seen.has(error.path) || seen.size >= 20) continue
      seen.add(error.path)
      const { member, rest } = memberLabel(value, parts)
      const pointer = rest.length > 0 ? `/${rest.join('/')}` : ''
      const message = describeValueError({ ...error, path: pointer }, '').replace(/^\(root\): /, '')
      problems.push({ file: source.file, line: lineOf(parts), member, message })
    }
    return undefined
  }
  const file = value as ModelFile
  const at = (parts: PathPart[]): SourceRef => ({ file: source.file, line: lineOf(parts) })
  const list = <T>(items: T[] | undefined, base: PathPart[]): Located<T>[] =>
    (items ?? []).map((def, index) => ({ def, source: at([...base, index]) }))
  const cubes = (file.cubes ?? []).map((def, index): RawCube => {
    const base = ['cubes', index]
    return {
      def,
      source: at(base),
      measures: list(def.measures, [...base, 'measures']),
      dimensions: list(def.dimensions, [...base, 'dimensions']),
      joins: list(def.joins, [...base, 'joins']),
      policies: def.access_policy ? list(def.access_policy, [...base, 'access_policy']) : null,
    }
  })
  return { cubes, views: list(file.views, ['views']) }
}

function mergeByName<T extends { name: string }>(parent: Located<T>[], child: Located<T>[]): Located<T>[] {
  const names = new Set(child.map((entry) => entry.def.name))
  return [...parent.filter((entry) => !names.has(entry.def.name)), ...child]
}

/** A cube with `extends`: the parent's members, joins and policies, with the child's of the same name winning. */
function extend(parent: RawCube, child: RawCube): RawCube {
  const { extends: _ignored, ...own } = child.def
  const def: CubeFile = { ...parent.def, ...own }
  if (own.sql_table !== undefined) delete def.sql
  if (own.sql !== undefined) delete def.sql_table
  return {
    def,
    source: child.source,
    measures: mergeByName(parent.measures, child.measures),
    dimensions: mergeByName(parent.dimensions, child.dimensions),
    joins: mergeByName(parent.joins, child.joins),
    policies: child.policies ?? parent.policies,
  }
}

function collect(
  parsed: ParsedFile[],
  problems: ModelProblem[],
): { cubes: Map<string, RawCube>; views: Map<string, Located<ViewFile>> } {
  const cubes = new Map<string, RawCube>()
  const views = new Map<string, Located<ViewFile>>()
  const taken = new Map<string, SourceRef>()
  const claim = (name: string, source: SourceRef): boolean => {
    const first = taken.get(name)
    if (first) {
      problems.push({
        ...source,
        member: name,
        message: `duplicate name: ${name} is already defined at ${first.file}:${first.line}`,
      })
      return false
    }
    taken.set(name, source)
    return true
  }
  for (const file of parsed) {
    for (const cube of file.cubes) if (claim(cube.def.name, cube.source)) cubes.set(cube.def.name, cube)
    for (const view of file.views) if (claim(view.def.name, view.source)) views.set(view.def.name, view)
  }
  return { cubes, views }
}

/**
 * Loads one branch's model: the default files, then the branch's files, whose cubes and views replace those of
 * the same name (or add to them with `extends: <same name>`). Throws `ModelError` listing every problem.
 */
export function loadModel(label: string, base: ModelSource[], branch: ModelSource[] = []): SemanticModel {
  const problems: ModelProblem[] = []
  const parse = (sources: ModelSource[]) =>
    sources.map((source) => parseModelFile(source, problems)).filter((file): file is ParsedFile => file !== undefined)
  const baseLayer = collect(parse(base), problems)
  const branchLayer = collect(parse(branch), problems)
  if (problems.length > 0) throw new ModelError(label, problems)

  const written = new Map(baseLayer.cubes)
  const views = new Map(baseLayer.views)
  for (const [name, cube] of branchLayer.cubes) {
    if (views.has(name)) views.delete(name)
    written.set(name, cube)
  }
  for (const [name, view] of branchLayer.views) {
    if (written.has(name) && !branchLayer.cubes.has(name)) written.delete(name)
    views.set(name, view)
  }

  const resolved = new Map<string, RawCube>()
  const resolve = (name: string, trail: string[]): RawCube | undefined => {
    const done = resolved.get(name)
    if (done) return done
    const cube = written.get(name)
    if (!cube) return undefined
    const parentName = cube.def.extends
    if (parentName === undefined) {
      resolved.set(name, cube)
      return cube
    }
    let parent: RawCube | undefined
    if (parentName === name) parent = baseLayer.cubes.get(name) === cube ? undefined : baseLayer.cubes.get(name)
    else if (trail.includes(parentName)) {
      problems.push({
        ...cube.source,
        member: name,
        message: `extends forms a cycle: ${[...trail, parentName].join(' -> ')}`,
      })
      return undefined
    } else parent = resolve(parentName, [...trail, name])
    if (!parent) {
      if (!problems.some((problem) => problem.member === name))
        problems.push({ ...cube.source, member: name, message: `extends unknown cube ${parentName}` })
      return undefined
    }
    const merged = extend(parent, cube)
    resolved.set(name, merged)
    return merged
  }
  for (const name of written.keys()) resolve(name, [])
  if (problems.length > 0) throw new ModelError(label, problems)
  return buildModel(label, [...resolved.values()], [...views.values()])
}
